"""The session as an in-process API: hooks installed and removed, global state restored,
own failures contained, report written."""
from __future__ import annotations

import copy
import gc
import io
import json
import math
from typing import Any
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as module_globals
from torch.optim import optimizer as optimizer_globals
from torch.utils.data import DataLoader, TensorDataset, dataloader

from sanitizer import Sanitizer
from sanitizer.detectors import Detector


def _global_state() -> dict[str, object]:
    return {
        "forward_hooks": dict(module_globals._global_forward_hooks),
        "forward_pre_hooks": dict(module_globals._global_forward_pre_hooks),
        "always_call": dict(module_globals._global_forward_hooks_always_called),
        "step_pre_hooks": dict(optimizer_globals._global_optimizer_pre_hooks),
        "step_post_hooks": dict(optimizer_globals._global_optimizer_post_hooks),
        "backward": torch.autograd.backward,
        "scale": torch.amp.GradScaler.scale,
        "scaler_step": torch.amp.GradScaler.step,
        "next": dataloader._BaseDataLoaderIter.__next__,
        "cross_entropy": F.cross_entropy,
        "mse_loss": F.mse_loss,
        "categorical_sample": torch.distributions.Categorical.sample,
        "categorical_log_prob": torch.distributions.Categorical.log_prob,
        "normal_sample": torch.distributions.Normal.sample,
        "distribution_log_prob": vars(torch.distributions.Distribution)["log_prob"],
        "deepcopy": copy.deepcopy,
    }


def _train(steps: int) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(torch.randn(4 * steps, 4), torch.randint(0, 2, (4 * steps,))), batch_size=4)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def test_hooks_are_removed_after_exit(tmp_path: Path) -> None:
    before = _global_state()
    with Sanitizer(report=tmp_path / "run.json") as session:
        assert module_globals._global_forward_hooks and optimizer_globals._global_optimizer_pre_hooks
        assert torch.autograd.backward is not before["backward"]
        _train(5)
    assert _global_state() == before
    assert session.steps == 5
    report = json.loads((tmp_path / "run.json").read_text())
    assert report["steps"] == 5 and report["schema"] == 1 and report["events"] == []
    assert report["exit_code"] == 0
    assert len(report["series"]["loss"]) == 5 and all(v > 0 for v in report["series"]["grad_norm"])


def test_exception_inside_the_block_still_restores_and_reports(tmp_path: Path) -> None:
    before = _global_state()
    with pytest.raises(RuntimeError, match="user failure"):
        with Sanitizer(report=tmp_path / "run.json"):
            _train(2)
            raise RuntimeError("user failure")
    assert _global_state() == before
    assert json.loads((tmp_path / "run.json").read_text())["exit_code"] == 1


class _Broken(Detector):
    name = "broken"
    kinds = ("loss_spike",)

    def on_step(self, record, sink) -> None:
        raise ZeroDivisionError("detector bug")


def test_a_failing_detector_never_reaches_the_script(tmp_path: Path) -> None:
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        session.detectors.append(_Broken())
        _train(3)
    assert session.steps == 3
    errors = [e for e in session.events if e.kind == "sanitizer_error"]
    assert errors and "detector bug" in errors[0].message and errors[0].severity == "warning"
    assert session.error_count == 0


class _BrokenLater(_Broken):
    """Fails at its second step; counts the calls it gets after."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def on_backward(self, loss, sink) -> None:
        self.calls.append("backward")

    def on_step(self, record, sink) -> None:
        self.calls.append("step")
        if record.step == 2:
            raise ZeroDivisionError("detector bug")

    def on_end(self, sink) -> None:
        self.calls.append("end")


def test_a_detector_that_failed_is_called_no_more(tmp_path: Path) -> None:
    broken = _BrokenLater()
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        session.detectors.append(broken)
        session._backward_listeners.append(broken)
        _train(5)
    assert session.steps == 5
    assert broken.calls == ["backward", "step", "backward", "step"]  # nothing after its failure, not even the end
    errors = [e for e in session.events if e.kind == "sanitizer_error"]
    assert len(errors) == 1 and errors[0].step == 2 and "its checks stop here" in errors[0].message


class _Ragged(nn.Module):
    """Takes a nested tensor (sequences of several lengths), as some sequence models do."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 1)

    def forward(self, sequences: torch.Tensor) -> torch.Tensor:
        return torch.stack([self.proj(part).mean() for part in sequences.unbind()])


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_a_nested_tensor_batch_is_trained_on_without_errors(tmp_path: Path) -> None:
    """A nested tensor has no shape and no plain reduction: it is neither measured
    nor counted as a batch, and the run reports nothing."""
    model = _Ragged()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for _ in range(5):
            batch = torch.nested.nested_tensor([torch.randn(3, 4), torch.randn(5, 4)])
            loss = model(batch).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert session.steps == 5
    assert [e.kind for e in session.events] == []


def test_unknown_check_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        Sanitizer(report=None, checks=["nan_everywhere"])


def test_eval_losses_are_seen_in_eval_mode(tmp_path: Path) -> None:
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        x, y = torch.randn(4, 3), torch.tensor([0, 1, 0, 1])
        F.cross_entropy(model(x), y).backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            expected = F.cross_entropy(model(x), y).item()
    fitting = next(d for d in session.detectors if d.name == "fitting")
    assert fitting.val_losses == [(2, pytest.approx(expected))]
    assert fitting.train_losses and len(fitting.train_losses) == 1


def _validation_after(tmp_path: Path, evaluations: list[str]) -> list[float]:
    """The validation losses the session keeps when a loader-trained step is followed by
    evaluations of `evaluations`: "train" (the training dataset through a new loader),
    "val" (a validation dataset through a loader), "tensor" (validation tensors, no loader)."""
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train = TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,)))
    val = TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,)))
    expected = []
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for x, y in DataLoader(train, batch_size=8):
            F.cross_entropy(model(x), y).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for which in evaluations:
                if which == "tensor":
                    loss = F.cross_entropy(model(val.tensors[0]), val.tensors[1]).item()
                else:
                    for x, y in DataLoader(train if which == "train" else val, batch_size=4):
                        loss = F.cross_entropy(model(x), y).item()
                        break  # one batch (makemore's `max_batches`): the loader does not end
                if which != "train":
                    expected.append(loss)
        opt.step()  # closes the step the evaluations belong to
    fitting = next(d for d in session.detectors if d.name == "fitting")
    assert [value for _, value in fitting.val_losses] == ([pytest.approx(sum(expected) / len(expected))]
                                                           if expected else [])
    return expected


@pytest.mark.parametrize("evaluations", [["train", "val"], ["val", "train"], ["train"], ["tensor"],
                                         ["train", "tensor"], ["val", "tensor"]])
def test_evaluations_of_the_training_dataset_are_not_validation(tmp_path: Path, evaluations: list[str]) -> None:
    _validation_after(tmp_path, evaluations)


def test_data_sources_tell_slices_of_one_tensor_apart() -> None:
    from sanitizer.core.sources import OTHER, SAME, TRAIN, DataSources
    data = torch.randn(100, 4)
    sources = DataSources()
    for start in range(0, 60, 20):
        sources.training_forward(data[start:start + 20])

    def origin(batch: torch.Tensor) -> str:
        sources.evaluation_forward(batch)
        return sources.latest.what

    assert origin(data) == TRAIN  # every row, the trained ones among them
    assert origin(data[:60]) == TRAIN and origin(data[50:70]) == TRAIN
    assert origin(data[60:]) == OTHER and origin(data[80:90]) == OTHER  # the rows never trained on
    assert origin(data[:, 0]) == TRAIN  # a column reaches trained rows
    assert origin(torch.randn(20, 4)) == OTHER
    full = torch.randn(10, 4)
    sources.training_forward(full)
    sources.training_forward(full)
    assert origin(full) == SAME and origin(full[:5]) == TRAIN


def test_data_sources_forget_dead_tensors() -> None:
    from sanitizer.core.sources import MAX_BASES, OTHER, DataSources
    sources = DataSources()
    kept = torch.randn(4, 2)
    sources.training_forward(kept)
    for _ in range(3 * MAX_BASES):
        sources.training_forward(torch.randn(4, 2))  # fresh batches, dropped when the table is full
    assert len(sources._extents) <= MAX_BASES
    sources.evaluation_forward(kept)
    assert sources.latest.what != OTHER  # a live tensor is still known


class _Switchable(nn.Module):
    """A net whose dropout and batch norm run only when asked (MorvanZhou's `do_bn`)."""

    def __init__(self, use_norm: bool, use_dropout: bool) -> None:
        super().__init__()
        self.use_norm, self.use_dropout = use_norm, use_dropout
        self.norm, self.fc, self.drop, self.out = nn.BatchNorm1d(4), nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(self.norm(x) if self.use_norm else x))
        return self.out(self.drop(h) if self.use_dropout else h)


@pytest.mark.parametrize(("use_norm", "use_dropout", "named"), [
    (False, False, None), (True, False, ["norm"]), (False, True, ["drop"]), (True, True, ["norm", "drop"])])
def test_train_in_eval_mode_names_the_layers_the_forward_runs(tmp_path: Path, use_norm: bool, use_dropout: bool,
                                                               named: list[str] | None) -> None:
    torch.manual_seed(0)
    model = _Switchable(use_norm, use_dropout)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.eval()  # left on: the net trains as at inference, where its forward runs those layers
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for _ in range(3):
            F.mse_loss(model(torch.randn(16, 4)), torch.randn(16, 1)).backward()
            opt.step()
            opt.zero_grad()
    events = [e for e in session.events if e.kind == "train_in_eval_mode"]
    assert [e.extra["modules"] for e in events] == ([named] if named else [])


class _DetachedEncoder(nn.Module):
    """An encoder whose output is detached before the head (`encoder(x).detach()`): none
    of its layers learns. With `reuse`, its last layer also runs on the head's path."""

    def __init__(self, reuse: bool) -> None:
        super().__init__()
        self.reuse = reuse
        self.encoder = nn.Sequential(*[nn.Linear(4, 4) for _ in range(4)])
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.encoder(x).detach()
        return self.head(self.encoder[3](h) if self.reuse else h)


@pytest.mark.parametrize("reuse", [False, True])
def test_unused_parameters_of_a_whole_module_are_one_event(tmp_path: Path, reuse: bool) -> None:
    torch.manual_seed(0)
    model = _DetachedEncoder(reuse)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for _ in range(3):
            F.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1)).backward()
            opt.step()
            opt.zero_grad()
    events = [(e.module, e.extra["params"], e.message) for e in session.events if e.kind == "unused_parameter"]
    if not reuse:
        (module, params, message), = events
        assert module == "encoder" and len(params) == 8, events
        assert message.startswith("all 8 parameters of encoder (encoder.0.weight, "), message
    else:  # encoder.3 learns: each layer that does not is its own event
        assert [module for module, _, _ in events] == ["encoder.0", "encoder.1", "encoder.2"], events


@pytest.mark.parametrize("bug", [False, True])
def test_a_generator_left_in_eval_mode_is_seen_through_the_discriminator(tmp_path: Path, bug: bool) -> None:
    """PyTorch-GAN's loop: the generator's loss comes back through the discriminator (the
    last model called), yet `optimizer_G` steps the generator, left in eval mode."""
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 4))
    discriminator = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    teacher = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1)).eval()  # run with gradients on, never trained
    optimizer_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
    optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
    if bug:
        generator.eval()
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for _ in range(3):
            real, z = torch.randn(16, 4), torch.randn(16, 8)
            optimizer_d.zero_grad()
            (discriminator(generator(z).detach()).mean() - discriminator(teacher(real)).mean()).backward()
            optimizer_d.step()
            optimizer_g.zero_grad()
            (-discriminator(generator(z)).mean()).backward()
            optimizer_g.step()
    events = [(e.step, e.extra["modules"]) for e in session.events if e.kind == "train_in_eval_mode"]
    assert events == ([(2, ["generator.1"])] if bug else [])


def test_halt_on_an_end_of_run_kind_does_not_break_closing(tmp_path: Path) -> None:
    class Unused(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.used, self.unused = nn.Linear(3, 1), nn.Linear(3, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.used(x)

    model = Unused()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=tmp_path / "run.json", halt_on=["unused_parameter"],
                   stream=open(tmp_path / "err.txt", "w")) as session:
        for _ in range(3):
            model(torch.randn(2, 3)).sum().backward()
            opt.step()
    assert [e.param for e in session.events if e.kind == "unused_parameter"] == ["unused.weight"]
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == 3


@pytest.mark.parametrize(("objective", "policy_gradient"), [
    ("reinforce", True),  # log-probabilities of the actions the policy sampled, weighted by returns
    ("gaussian_likelihood", False),  # a VAE-style likelihood of the data, with a reparameterized draw
    ("categorical_nll", False),  # log_prob of the labels: a cross-entropy in other words
    ("sampled_without_grad", False),  # samples drawn for a look at the model, log_prob not trained
    ("flow_likelihood", False),  # a normalizing flow: log_prob of the data it transformed, samples to look at
    # PPO: the actions' log-probabilities taken while collecting, without gradients; later
    # those of the actions copied into a buffer, differentiated
    ("ppo_buffer", True),
    ("mixup_likelihood", False),  # a Gaussian likelihood of targets mixed by a Beta sample: no action
])
def test_a_policy_gradient_loss_is_told_apart(tmp_path: Path, objective: str, policy_gradient: bool) -> None:
    from torch.distributions import Beta, Categorical, Normal
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with Sanitizer(report=tmp_path / "run.json", stream=open(tmp_path / "err.txt", "w"), lint=False) as session:
        for _ in range(3):
            out = model(torch.randn(5, 3))
            if objective == "reinforce":
                dist = Categorical(logits=out)
                loss = -(dist.log_prob(dist.sample()) * torch.randn(5)).sum()
            elif objective == "gaussian_likelihood":
                dist = Normal(out[:, 0], out[:, 1].exp())
                loss = -dist.log_prob(torch.randn(5)).mean() + dist.rsample().pow(2).mean()
            elif objective == "categorical_nll":
                loss = -Categorical(logits=out).log_prob(torch.randint(0, 2, (5,))).mean()
            elif objective == "ppo_buffer":
                with torch.no_grad():
                    rollout = Categorical(logits=model(torch.randn(5, 3)))
                    actions = rollout.sample()
                    old = rollout.log_prob(actions)
                buffer = actions.clone()
                ratio = (Categorical(logits=out).log_prob(buffer) - old).exp()
                loss = -(ratio * torch.randn(5)).mean()
            elif objective == "mixup_likelihood":
                mixing = Beta(0.4, 0.4).sample()
                target = torch.randn(5)
                mixed = mixing * target + (1 - mixing) * target.flip(0)
                loss = -Normal(out[:, 0], out[:, 1].exp()).log_prob(mixed).mean()
            elif objective == "flow_likelihood":
                prior = Normal(torch.zeros(2), torch.ones(2))
                loss = -prior.log_prob(out).sum(1).mean()  # `out`, the flow of the data, carries a gradient
                with torch.no_grad():
                    prior.sample((4,))
            else:
                loss = F.cross_entropy(out, torch.randint(0, 2, (5,)))
                with torch.no_grad():
                    Categorical(logits=model(torch.randn(5, 3))).log_prob(Categorical(logits=out).sample())
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert session.policy_gradient is policy_gradient
    notes = json.loads((tmp_path / "run.json").read_text())["summary"]["notes"]
    assert any("policy-gradient objective" in note for note in notes) is policy_gradient, notes


@pytest.mark.parametrize("environment", [None, "gymnasium"])
def test_a_loss_on_rl_returns_is_not_judged_by_its_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         environment: str | None) -> None:
    """A DQN's TD loss climbs as the agent's returns grow: divergence by its level,
    not once an RL environment library is loaded."""
    import sys
    import types
    for name in ("gymnasium", "gym", "dm_env", "envpool", "pettingzoo"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    if environment is not None:
        monkeypatch.setitem(sys.modules, environment, types.ModuleType(environment))
    torch.manual_seed(0)
    q_net = nn.Linear(4, 1)
    opt = torch.optim.SGD(q_net.parameters(), lr=0.01)
    with Sanitizer(report=tmp_path / "run.json", stream=open(tmp_path / "err.txt", "w"), lint=False) as session:
        for step in range(120):
            returns = torch.full((16, 1), 1.04 ** step)  # the targets grow as the agent survives longer
            loss = F.smooth_l1_loss(q_net(torch.randn(16, 4)), returns)
            opt.zero_grad()
            loss.backward()
            opt.step()
    report = json.loads((tmp_path / "run.json").read_text())
    kinds = {event["kind"] for event in report["events"]}
    assert ("divergence" in kinds) is (environment is None), report["events"]
    assert session.reinforcement_learning is (environment is not None)
    assert any("RL environment (gymnasium is loaded)" in note
               for note in report["summary"]["notes"]) is (environment is not None)


def test_a_parameter_group_added_with_its_loss_term_is_a_new_objective(tmp_path: Path) -> None:
    """Multi-task: a second head joins at step 17 with `add_param_group`, its larger loss
    term added to the total, which then falls steadily: no divergence from the jump."""
    torch.manual_seed(3)
    x = torch.randn(512, 12)
    first, second = x[:, :3].sum(1, keepdim=True), (x[:, 3:] ** 2).sum(1, keepdim=True)
    body, head, extra = nn.Sequential(nn.Linear(12, 32), nn.ReLU()), nn.Linear(32, 1), nn.Linear(32, 1)
    opt = torch.optim.Adam([*body.parameters(), *head.parameters()], lr=1e-2)
    with Sanitizer(report=tmp_path / "run.json", stream=open(tmp_path / "err.txt", "w"), lint=False):
        for step in range(48):
            if step == 16:
                opt.add_param_group({"params": extra.parameters(), "lr": 5e-3})
            rows = slice(64 * (step % 8), 64 * (step % 8 + 1))
            hidden = body(x[rows])
            loss = F.mse_loss(head(hidden), first[rows])
            if step >= 16:
                loss = loss + F.mse_loss(extra(hidden), second[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
    report = json.loads((tmp_path / "run.json").read_text())
    assert report["events"] == [], report["events"]


class _GanTrainer:
    """Keeps its two models as attributes, as trainer classes do."""

    def __init__(self) -> None:
        self.generator = nn.Sequential(nn.Linear(4, 4))
        self.discriminator = nn.Sequential(nn.Linear(4, 1))
        self.optimizer = torch.optim.SGD([*self.generator.parameters(), *self.discriminator.parameters()], lr=0.1)

    def fit(self, session: Sanitizer) -> list[str | None]:
        self.discriminator(self.generator(torch.randn(2, 4))).sum().backward()
        self.optimizer.step()
        return [session.module_name(self.generator[0]), session.param_name(self.discriminator[0].weight)]


def _autoencode(session: Sanitizer) -> list[str | None]:
    encoder, decoder = nn.Sequential(nn.Linear(4, 2)), nn.Sequential(nn.Linear(2, 4))
    optimizer = torch.optim.SGD([*encoder.parameters(), *decoder.parameters()], lr=0.1)
    x = torch.randn(2, 4)
    F.mse_loss(decoder(encoder(x)), x).backward()
    optimizer.step()
    return [session.module_name(encoder[0]), session.param_name(decoder[0].bias)]


def test_models_are_named_by_the_variables_and_attributes_that_hold_them(tmp_path: Path) -> None:
    """Several models get a prefix each: the name the running code gives them, a
    local variable or an attribute of `self`, not their class (two Sequentials)."""
    with Sanitizer(report=None, lint=False) as session:
        assert _GanTrainer().fit(session) == ["generator.0", "discriminator.0.weight"]
    with Sanitizer(report=None, lint=False) as session:
        assert _autoencode(session) == ["encoder.0", "decoder.0.bias"]


def test_two_optimizers_on_one_backward_pass_make_one_step_also_when_the_scaler_skips(tmp_path: Path) -> None:
    """`scaler.step(encoder_opt); scaler.step(decoder_opt)` after one backward pass:
    one step per iteration, and an overflow that makes the scaler skip both counts
    one skipped step, not two."""
    torch.manual_seed(0)
    encoder, decoder = nn.Linear(4, 4), nn.Linear(4, 1)
    optimizers = [torch.optim.SGD(encoder.parameters(), lr=0.01), torch.optim.SGD(decoder.parameters(), lr=0.01)]
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
    with Sanitizer(report=str(tmp_path / "r.json"), lint=False) as session:
        for iteration in range(6):
            x = torch.randn(8, 4)
            if iteration == 3:
                x[0, 0] = 1e38  # the scaled loss overflows: both optimizers are skipped
            loss = decoder(encoder(x)).pow(2).mean()
            for optimizer in optimizers:
                optimizer.zero_grad()
            scaler.scale(loss).backward()
            for optimizer in optimizers:
                scaler.step(optimizer)
            scaler.update()
    assert (session.steps, session.skipped_steps) == (6, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_huge_finite_weight_or_gradient_is_a_number_not_an_inf(tmp_path: Path, dtype: torch.dtype) -> None:
    # the squared norms of a 1e30 weight and of 1e25 gradients overflow float32, yet no
    # value is infinite; the input never reaches that weight (its feature is 0)
    for weight in (1e30, math.inf):
        torch.manual_seed(0)
        model = nn.Linear(3, 2).to(dtype)
        with torch.no_grad():
            model.weight[0, 0] = weight
        opt = torch.optim.SGD(model.parameters(), lr=0.0)
        x = torch.tensor([[0.0, 1.0, 2.0], [0.0, -1.0, 1.0]], dtype=dtype)
        report = tmp_path / f"{weight}.json"
        with Sanitizer(report=report, stream=open(tmp_path / "err.txt", "w")) as session:
            for _ in range(3):
                opt.zero_grad()
                (model(x).sum() * 1e25).backward()
                opt.step()
        if weight == math.inf:  # a real Inf is still one (0 * Inf makes the output NaN)
            event = next(event for event in session.events if event.kind == "nonfinite_param")
            assert event.param == "weight" and event.value == math.inf and event.step == 1
            continue
        assert session.events == []
        grad_norms = json.loads(report.read_text())["series"]["grad_norm"]
        assert len(grad_norms) == 3 and all(1e25 < norm < 1e26 for norm in grad_norms), grad_norms


def test_each_line_of_the_sanitizer_is_one_write(tmp_path: Path) -> None:
    """Ranks and children share stderr: a line written in two parts (text, then its
    newline) on an unbuffered stream interleaves with another process's line."""
    class Writes(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []

        def write(self, text: str) -> int:
            self.calls.append(text)
            return super().write(text)

    stream = Writes()
    with Sanitizer(report=tmp_path / "run.json", stream=stream):
        _train(3)
        torch.nn.Linear(2, 2)(torch.full((1, 2), math.nan)).sum().backward()  # an alert
    assert len(stream.calls) >= 2, stream.calls
    assert all(call.endswith("\n") and call.count("\n") == 1 and call.startswith("sanitizer")
               for call in stream.calls), stream.calls


def test_a_parameter_is_dated_by_its_own_optimizers_last_update(tmp_path: Path) -> None:
    """A GAN's optimizers take turns. The discriminator's update at step 9 (its learning
    rate NaN) breaks its weights; they are read at its next step, 11, after the
    generator's update at step 10: the event names step 9, the update that did it."""
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    discriminator = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    opt_g = torch.optim.SGD(generator.parameters(), lr=0.01)
    opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.01)
    with Sanitizer(report=None, stream=open(tmp_path / "err.txt", "w")) as session:
        for iteration in range(1, 9):
            if iteration == 5:
                opt_d.param_groups[0]["lr"] = math.nan
            fake = generator(torch.randn(16, 4))
            opt_d.zero_grad()
            (discriminator(fake.detach()).mean() - discriminator(torch.randn(16, 2)).mean()).backward()
            opt_d.step()  # steps 1, 3, 5, ...
            opt_g.zero_grad()
            (-discriminator(fake).mean()).backward()
            opt_g.step()  # steps 2, 4, 6, ...
    broken = [event for event in session.events if event.kind == "nonfinite_param"]
    assert broken and broken[0].step == 9 and broken[0].param.startswith("discriminator."), broken


def test_a_crash_records_the_step_it_happened_in() -> None:
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            for _ in range(5):
                optimizer.zero_grad()
                model(torch.randn(2, 3)).sum().backward()
                optimizer.step()
            model(torch.randn(2, 3))
            raise RuntimeError("rejected a NaN")
    assert session.ending is not None and session.ending["how"] == "exception"
    assert session.ending["step"] == 6  # five steps done, the sixth under way


def test_a_crash_after_the_last_step_in_code_that_trains_nothing_records_that_step() -> None:
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            for _ in range(5):
                optimizer.zero_grad()
                model(torch.randn(2, 3)).sum().backward()
                optimizer.step()
            model.eval()
            with torch.no_grad():  # an evaluation after the loop: no sixth step begins
                model(torch.randn(2, 3))
            raise RuntimeError("metric failed")
    assert session.ending is not None and (session.ending["step"], session.ending["after_step"]) == (5, True)


def test_a_crash_in_the_loop_around_the_step_before_its_backward_records_the_next_step() -> None:
    import io

    import pytest
    import torch
    from torch import nn

    from sanitizer import Sanitizer

    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            for step in range(1, 11):
                if step == 6:  # the sixth batch fails to load: no backward, no forward yet
                    raise RuntimeError("bad batch")
                optimizer.zero_grad()
                model(torch.randn(2, 3)).sum().backward()
                optimizer.step()
    assert session.ending is not None and session.ending["step"] == 6 and "after_step" not in session.ending


def test_a_crash_after_the_function_that_trains_returned_records_its_last_step() -> None:
    import io

    import pytest
    import torch
    from torch import nn

    from sanitizer import Sanitizer

    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train() -> None:
        for _ in range(4):
            optimizer.zero_grad()
            model(torch.randn(2, 3)).sum().backward()
            optimizer.step()

    with pytest.raises(RuntimeError):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            train()
            raise RuntimeError("export failed")
    assert session.ending is not None
    assert (session.ending["step"], session.ending["after_step"], session.ending["last_step"]) == (4, True, True)


@pytest.mark.parametrize("epochs", [1, 3])
def test_a_crash_past_the_loop_of_a_function_that_trains_is_its_last_step_only_if_it_runs_once(epochs: int) -> None:
    """`train_epoch()` steps in its loop, then fails as it sums up: once called outside any
    loop, that was the last step; called by an epoch loop, more epochs would have run, so
    the crash is after step 3, not after the last one."""
    import io

    import torch
    from torch import nn

    from sanitizer import Sanitizer

    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_epoch() -> None:
        for _ in range(3):
            optimizer.zero_grad()
            model(torch.randn(2, 3)).sum().backward()
            optimizer.step()
        raise RuntimeError("summary failed")

    with pytest.raises(RuntimeError):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            if epochs == 1:
                train_epoch()
            else:
                for _ in range(epochs):
                    train_epoch()
    assert session.ending is not None
    assert (session.ending["step"], session.ending["after_step"], session.ending.get("last_step", False)) \
        == (3, True, epochs == 1)


def _gan_turns(clear_discriminator: str, iterations: int = 12, hinge: bool = False) -> list[tuple[str, int | None]]:
    """A GAN whose generator's backward passes run through the discriminator, adding to
    its gradients after its step; the discriminator clears them (or not) before its own.
    `hinge`: the discriminator's hinge loss with every margin active, whose gradient on
    the last bias is exactly zero (one real and one fake term per sample cancel)."""
    torch.manual_seed(0)
    gen, disc = nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    g_opt, d_opt = torch.optim.SGD(gen.parameters(), lr=1e-2), torch.optim.SGD(disc.parameters(), lr=1e-2)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for _ in range(iterations):
            real, noise = torch.randn(16, 4), torch.randn(16, 4)
            if clear_discriminator == "in_place":
                d_opt.zero_grad(set_to_none=False)
            elif clear_discriminator == "set_to_none":
                d_opt.zero_grad()
            if hinge:
                (F.relu(10.0 + disc(gen(noise).detach())) + F.relu(10.0 - disc(real))).mean().backward()
            else:
                (F.softplus(disc(gen(noise).detach())) + F.softplus(-disc(real))).mean().backward()
            d_opt.step()
            g_opt.zero_grad()
            F.softplus(-disc(gen(noise))).mean().backward()  # adds to the discriminator's gradients
            g_opt.step()
    return [(event.kind, event.step) for event in session.events if event.kind == "missing_zero_grad"]


@pytest.mark.parametrize("clear", ["in_place", "set_to_none"])
def test_gradients_cleared_after_another_models_backward_are_cleared(clear: str) -> None:
    """The generator's backward adds to the discriminator's kept gradients before the
    discriminator clears them: that backward pass starts from kept gradients, the next
    one from cleared ones, and the discriminator's step is on fresh gradients."""
    assert _gan_turns(clear) == []


def test_a_discriminator_never_cleared_is_reported_at_its_second_step() -> None:
    """Steps 1 and 2 are the first turns of each model: the discriminator's second
    step is step 3; the generator, cleared each turn, is not reported."""
    assert _gan_turns("never") == [("missing_zero_grad", 3)]


@pytest.mark.parametrize("clear", ["never", "in_place"])
def test_a_gradient_zero_alone_is_no_clear(clear: str) -> None:
    """Under the hinge loss the discriminator's own pass leaves its last bias's gradient
    at exactly zero: that alone is no clear (the first layer's is kept), while a clear in
    place zeroes both."""
    assert _gan_turns(clear, hinge=True) == ([("missing_zero_grad", 3)] if clear == "never" else [])


def _clearing_events(train: Any, steps: int = 6) -> list[tuple[str, int | None, str | None]]:
    torch.manual_seed(0)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        train(steps)
    return [(e.kind, e.step, e.param) for e in session.events if e.kind == "missing_zero_grad"]


def test_an_outer_optimizer_on_pseudo_gradients_is_not_reported() -> None:
    """Reptile: inner backward passes train a copy (they add nothing to the outer model's
    gradients); the outer optimizer is cleared and given `p.grad = p - q` each round."""
    import copy

    def train(rounds: int) -> None:
        meta = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        meta_opt = torch.optim.SGD(meta.parameters(), lr=0.5)
        for _ in range(rounds):
            fast = copy.deepcopy(meta)
            inner = torch.optim.SGD(fast.parameters(), lr=0.1)
            for _ in range(3):
                inner.zero_grad()
                F.mse_loss(fast(torch.randn(8, 4)), torch.randn(8, 1)).backward()
                inner.step()
            meta_opt.zero_grad()
            for p, q in zip(meta.parameters(), fast.parameters()):
                p.grad = p.detach() - q.detach()
            meta_opt.step()

    assert _clearing_events(train) == []


def test_gradients_assigned_from_autograd_grad_beside_another_models_backward() -> None:
    """Actor-critic: the critic's backward passes do not reach the actor, whose
    gradients come from `torch.autograd.grad` and replace the old ones."""
    def train(steps: int) -> None:
        actor, critic = nn.Linear(4, 2), nn.Linear(4, 1)
        actor_opt, critic_opt = torch.optim.SGD(actor.parameters(), lr=0.1), torch.optim.SGD(critic.parameters(), lr=0.1)
        for _ in range(steps):
            state = torch.randn(16, 4)
            critic_opt.zero_grad()
            F.mse_loss(critic(state), torch.randn(16, 1)).backward()
            critic_opt.step()
            actor_loss = -(actor(state).log_softmax(-1)[:, 0] * critic(state).detach().squeeze(1)).mean()
            for p, g in zip(actor.parameters(), torch.autograd.grad(actor_loss, list(actor.parameters()))):
                p.grad = g
            actor_opt.step()

    assert _clearing_events(train) == []


def test_a_padding_embedding_registered_last_does_not_hide_gradients_never_cleared() -> None:
    """The embedding's padding row is zero in every gradient: the gradients followed
    are biases, whose values are not."""
    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.out = nn.Linear(8, 3)
            self.embed = nn.Embedding(10, 8, padding_idx=0)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.out(self.embed(tokens).mean(1))

    def train(steps: int) -> None:
        model = Tagger()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(steps):
            F.cross_entropy(model(torch.randint(0, 10, (4, 5))), torch.randint(0, 3, (4,))).backward()
            optimizer.step()

    assert _clearing_events(train) == [("missing_zero_grad", 2, "out.bias")]


def test_a_scripted_submodule_under_a_global_hook_is_judged_without_errors() -> None:
    """A TorchScript module takes no new hooks: with a global forward hook of the script's
    (a profiler's call counter) its output is judged by the session's own global hook."""
    torch.manual_seed(0)
    with pytest.warns(DeprecationWarning, match="torch.jit.script"):  # torch's own, expected
        scripted = torch.jit.script(nn.Linear(4, 8))
    model = nn.Sequential(scripted, nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    calls: list[int] = []
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        handle = module_globals.register_module_forward_hook(lambda module, args, output: calls.append(1))
        try:
            for _ in range(4):
                opt.zero_grad()
                F.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1)).backward()
                opt.step()
        finally:
            handle.remove()
    assert calls and [e.kind for e in session.events] == [], [(e.kind, e.message) for e in session.events]


class _Agent(nn.Module):
    """A DQN agent whose forward computes the TD loss: the target network runs as its child."""

    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target.requires_grad_(False)

    def forward(self, s, a, r, s2):
        with torch.no_grad():
            y = r + 0.99 * self.target(s2).max(1).values
        return F.smooth_l1_loss(self.q(s).gather(1, a[:, None]).squeeze(1), y)


@pytest.mark.parametrize("how", ["child", "forward_call"])
def test_a_target_network_is_told_however_it_runs(how: str) -> None:
    """Synced by load_state_dict every 10 steps and run every step, as a child of the
    module computing the loss or through `target.forward(x)`: a target network."""
    torch.manual_seed(0)
    agent = _Agent()
    opt = torch.optim.Adam(agent.q.parameters(), 1e-3)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for step in range(40):
            s, s2 = torch.randn(32, 4), torch.randn(32, 4)
            a, r = torch.randint(0, 2, (32,)), torch.randn(32) + step / 20
            if how == "child":
                loss = agent(s, a, r, s2)
            else:
                with torch.no_grad():
                    y = r + 0.99 * agent.target.forward(s2).max(1).values
                loss = F.smooth_l1_loss(agent.q(s).gather(1, a[:, None]).squeeze(1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0:
                agent.target.load_state_dict(agent.q.state_dict())
    assert any("target network" in note for note in session.notes), session.notes


@pytest.mark.parametrize("how", ["rebuilt", "fine_tuned"])
def test_a_deepcopy_of_the_trained_model_run_every_step_is_a_target_network_unless_it_trains(how: str) -> None:
    """`target = copy.deepcopy(q)` every 10 steps, run every step for the TD target: a
    target network. A copy fine-tuned by an optimizer of its own (one per task, as
    few-shot adaptation makes them), run every step too, is none."""
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.Adam(q.parameters(), 1e-3)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        target = copy.deepcopy(q)
        for step in range(40):
            s, s2 = torch.randn(32, 4), torch.randn(32, 4)
            if how == "rebuilt":
                with torch.no_grad():
                    y = torch.randn(32) + 0.99 * target(s2).max(1).values
                loss = F.smooth_l1_loss(q(s).max(1).values, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if step % 10 == 9:
                    target = copy.deepcopy(q)
            elif step % 4 == 0:
                F.mse_loss(q(s), s2[:, :2]).backward()
                opt.step()
                opt.zero_grad()
            else:
                if step % 4 == 1:
                    fast = copy.deepcopy(q)
                    inner = torch.optim.SGD(fast.parameters(), lr=0.01)
                F.mse_loss(fast(s), s2[:, :2]).backward()
                inner.step()
                inner.zero_grad()
    assert any("target network" in note for note in session.notes) == (how == "rebuilt"), session.notes


class _OwnState(nn.Module):
    """A Q-network whose `__setstate__` is its own and does not call `Module.__setstate__`."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x):
        return self.body(x)

    def __setstate__(self, state):
        self.__dict__.update(state)


@pytest.mark.parametrize("network", [nn.Sequential, _OwnState])
def test_a_target_network_copied_by_a_bound_deepcopy_is_one_whatever_its_setstate(network: type) -> None:
    """`from copy import deepcopy` ran before the session began (a notebook's first cell):
    the name holds the function the session does not wrap, and the rebuilt target network
    was not seen as one (no note; its TD loss judged as any other's). Also when the
    network's class has its own `__setstate__`, not calling `super()`'s, and no
    `__deepcopy__`: such a copy was once seen only through `Module.__setstate__`, and missed."""
    from copy import deepcopy as bound

    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)) if network is nn.Sequential else network()
    opt = torch.optim.Adam(q.parameters(), 1e-3)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        assert copy.deepcopy is not bound
        target = bound(q)
        for step in range(40):
            s, s2 = torch.randn(32, 4), torch.randn(32, 4)
            with torch.no_grad():
                y = torch.randn(32) + 0.99 * target(s2).max(1).values
            loss = F.smooth_l1_loss(q(s).max(1).values, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 9:
                target = bound(q)
    assert any("target network" in note for note in session.notes), session.notes
    assert not [e for e in session.events if e.kind == "sanitizer_error"], session.events


def test_a_module_copied_or_loaded_after_the_session_is_as_before() -> None:
    """The copies are seen where `copy._reconstruct` is called: it is restored at the
    session's end (`Module.__setstate__` is never touched), and a module pickled and
    loaded, deep- or shallow-copied in the session is the same as outside it."""
    setstate, reconstruct = vars(nn.Module)["__setstate__"], copy._reconstruct
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.Linear(16, 2))
    opt = torch.optim.SGD(q.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for _ in range(3):
            opt.zero_grad()
            q(torch.randn(8, 4)).pow(2).mean().backward()
            opt.step()
        buffer = io.BytesIO()
        torch.save(q, buffer)
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=False)
        deep, shallow = copy.deepcopy(q), copy.copy(q)
    assert vars(nn.Module)["__setstate__"] is setstate and copy._reconstruct is reconstruct
    x = torch.randn(5, 4)
    q.eval()
    for other in (loaded, deep):
        other.eval()
        assert other is not q and torch.equal(other(x), q(x))
        assert all(a.data_ptr() != b.data_ptr() for a, b in zip(other.parameters(), q.parameters()))
        assert [type(m) for m in other.modules()] == [type(m) for m in q.modules()]
    assert all(a is b for a, b in zip(shallow.parameters(), q.parameters()))
    assert not [e for e in session.events if e.kind == "sanitizer_error"], session.events


class _Shifted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x, bias):
        return self.fc(x + bias)


def test_an_argument_handed_to_every_call_is_measured_again_once_changed() -> None:
    """A bias tensor given to each of a step's three calls is measured once per step,
    unless it changed in place: a NaN written into it before the second call is found."""
    torch.manual_seed(0)
    model, bias = _Shifted(), torch.zeros(4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for step in range(1, 5):
            opt.zero_grad()
            total = torch.zeros(())
            for call in range(3):
                if step == 3 and call == 1:
                    bias[2] = float("nan")
                total = total + model(x=torch.randn(8, 4), bias=bias).pow(2).mean()
            if torch.isfinite(total):
                total.backward()
                opt.step()
            bias.zero_()
    found = [e for e in session.events if e.kind == "nonfinite_input"]
    assert [(e.step, e.extra.get("argument")) for e in found] == [(3, "bias")], [
        (e.kind, e.step, e.message) for e in session.events]


def test_each_optimizer_keeps_a_number_of_its_own_after_others_are_freed() -> None:
    """k-fold cross-validation frees each fold's optimizer and builds the next, which
    CPython may place at the freed one's address (the same `id()`, as a CI run did: the
    fourth fold's first step was judged a spike against the first fold's history). Steps
    carry a number per optimizer, given in order and never given again."""
    import gc
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        model = nn.Linear(2, 1)
        numbers = []
        for _ in range(4):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            numbers += [session._optimizer_number(optimizer), session._optimizer_number(optimizer)]
            del optimizer
            gc.collect()
    assert numbers == [1, 1, 2, 2, 3, 3, 4, 4], numbers


class _ContextProxy:
    """An object whose attributes exist only inside a context of its own (a web
    framework's request proxy): reading its `__dict__` anywhere else raises."""

    @property
    def __dict__(self) -> dict[str, object]:  # type: ignore[override]
        raise RuntimeError("working outside of context")


def test_a_variable_whose_attributes_cannot_be_read_stops_no_check() -> None:
    request = _ContextProxy()
    with Sanitizer(report=None) as session:
        _train(6)
    assert type(request) is _ContextProxy
    assert not [e for e in session.events if e.kind == "sanitizer_error"], session.events


def test_models_a_script_froze_out_of_the_collector_keep_their_names() -> None:
    """`gc.freeze()` (before forking data workers) hides the objects made before it
    from the collector's scans: a model kept in a dict is named as without it."""
    torch.manual_seed(0)
    models = {"student": nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))}
    opt = torch.optim.SGD(models["student"].parameters(), lr=0.1)
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        with Sanitizer(report=None) as session:
            for step in range(1, 5):
                x = torch.randn(4, 4)
                if step == 3:
                    x[0, 0] = float("nan")
                loss = F.cross_entropy(models["student"](x), torch.randint(0, 2, (4,)))
                opt.zero_grad()
                loss.backward()
                opt.step()
    finally:
        gc.unfreeze()
        if frozen_before:
            gc.freeze()
    grad = next(e for e in session.events if e.kind == "nonfinite_grad")
    assert (grad.step, grad.module, grad.param) == (3, "2", "2.bias"), session.events  # one model: bare names
