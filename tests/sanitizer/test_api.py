"""`with Sanitizer(...)` as a notebook uses it: cells run again, sessions nested or
closed in any order, exceptions, closure-based optimizers, loops without torch.optim."""
from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.fx.traceback as fx_traceback
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as module_globals
from torch.optim import optimizer as optimizer_globals
from torch.utils.data import dataloader

from sanitizer import Sanitizer
from sanitizer.core import hooks

PATCHED = [(torch.autograd, "backward"), (torch.amp.GradScaler, "scale"), (torch.amp.GradScaler, "step"),
           (dataloader._BaseDataLoaderIter, "__next__"), (nn.Module, "__setstate__"),
           (copy, "_reconstruct"), (fx_traceback, "format_stack"),
           *((F, name) for name in hooks.LOSS_FUNCTIONS if hasattr(F, name))]


def _global_state() -> dict[str, Any]:
    state: dict[str, Any] = {
        "forward_hooks": dict(module_globals._global_forward_hooks),
        "forward_pre_hooks": dict(module_globals._global_forward_pre_hooks),
        "always_call": dict(module_globals._global_forward_hooks_always_called),
        "step_pre_hooks": dict(optimizer_globals._global_optimizer_pre_hooks),
        "step_post_hooks": dict(optimizer_globals._global_optimizer_post_hooks),
        "layers": dict(hooks._LAYERS),
    }
    for owner, name in PATCHED:
        state[f"{getattr(owner, '__name__', owner)}.{name}"] = (getattr(owner, name), name in vars(owner))
    return state


def _quiet(**options: Any) -> Sanitizer:
    return Sanitizer(stream=io.StringIO(), **options)


def _train(steps: int, blow_up_at: int | None = None, closure: bool = False,
           nan_input_at: int | None = None) -> nn.Module:
    """A small loop; at `blow_up_at` the first layer's weights overflow to inf in the forward,
    at `nan_input_at` the batch holds a NaN (the update of that step breaks the weights)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1, steps + 1):
        x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))
        if step == nan_input_at:
            x[0, 0] = float("nan")
        if step == blow_up_at:
            with torch.no_grad():
                model[0].weight.mul_(1e38)

        def forward_backward() -> torch.Tensor:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            return loss

        if closure:
            opt.step(forward_backward)
        else:
            forward_backward()
            opt.step()
    return model


def _run(model: nn.Module, shape: tuple[int, ...], steps: int, lr: float) -> Sanitizer:
    """`steps` plain SGD steps of `model` on random batches of `shape`, in a quiet session."""
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            model(torch.randn(*shape)).pow(2).mean().backward()
            opt.step()
    return session


def _events(session: Sanitizer) -> list[tuple[Any, ...]]:
    return [(e.kind, e.step, e.module, e.param) for e in session.events]


def test_a_cell_run_twice_gives_two_equal_reports_and_no_hook_left(tmp_path: Path) -> None:
    before = _global_state()
    reports = []
    for run in range(2):
        with _quiet(report=tmp_path / "run.json") as session:
            _train(6, blow_up_at=4)
        assert _global_state() == before
        reports.append(json.loads((tmp_path / "run.json").read_text()))
        assert session.steps == 6
    first, second = ({"events": r["events"], "summary": r["summary"], "steps": r["steps"],
                      "loss": r["series"]["loss"], "grad_norm": r["series"]["grad_norm"]} for r in reports)
    assert first["events"] and first["events"][0]["step"] == 4
    assert first == second


def test_nested_sessions_both_watch_and_restore_in_any_order() -> None:
    before = _global_state()
    with _quiet(report=None) as outer:
        _train(2)
        with _quiet(report=None) as inner:
            _train(3, blow_up_at=2)
    assert _global_state() == before
    assert outer.steps == 5 and inner.steps == 3
    assert ("nonfinite_loss", 2, "0", None) in _events(inner)
    assert ("nonfinite_loss", 4) in [(e.kind, e.step) for e in outer.events]  # outer sees both models

    first, second, third = _quiet(report=None), _quiet(report=None), _quiet(report=None)
    first.start()
    second.start()
    third.start()
    _train(1)
    second.close()  # the middle one first: the others keep working
    _train(1)
    first.close()
    _train(1)
    third.close()
    assert (first.steps, second.steps, third.steps) == (2, 1, 3)
    assert _global_state() == before


def test_a_session_watches_one_run_only() -> None:
    session = _quiet(report=None)
    with session:
        _train(1)
    before = _global_state()
    with pytest.raises(RuntimeError, match="create a new Sanitizer"):
        with session:
            _train(1)
    with pytest.raises(RuntimeError, match="create a new Sanitizer"):
        with _quiet(report=None) as running:
            running.start()
    assert _global_state() == before
    assert session.steps == 1


def test_the_exception_propagates_unchanged_after_the_report_is_written(tmp_path: Path) -> None:
    before = _global_state()
    failure = KeyError("user failure")
    with pytest.raises(KeyError) as raised:
        with _quiet(report=tmp_path / "run.json"):
            _train(5, blow_up_at=3)
            raise failure
    assert raised.value is failure
    assert raised.traceback[-1].name == "test_the_exception_propagates_unchanged_after_the_report_is_written"
    assert _global_state() == before
    report = json.loads((tmp_path / "run.json").read_text())
    assert report["exit_code"] == 1 and report["steps"] == 5
    assert report["events"][0]["kind"] in ("nonfinite_activation", "nonfinite_loss")
    assert report["events"][0]["step"] == 3


def test_sites_read_from_the_launch_directory_after_the_script_changes_it(tmp_path: Path, monkeypatch) -> None:
    here = Path(__file__)
    monkeypatch.chdir(here.parent)
    with _quiet(report=None) as session:
        os.chdir(tmp_path)  # the script moves on: its sites still read as from where it was run
        _train(4, blow_up_at=3)
    loss_line = here.read_text().splitlines().index("            loss = F.cross_entropy(model(x), y)") + 1
    sites = {e.kind: e.where for e in session.events}
    assert sites["nonfinite_loss"] == f"{here.name}:{loss_line}"


def test_no_explicit_step_is_needed_with_an_optimizer_even_with_a_closure() -> None:
    with _quiet(report=None) as plain:
        _train(6, blow_up_at=4)
    with _quiet(report=None) as with_closure:
        _train(6, blow_up_at=4, closure=True)
    assert with_closure.steps == plain.steps == 6
    assert _events(with_closure) == _events(plain)
    assert ("nonfinite_grad", 4, "0", "0.weight") in _events(plain)
    assert with_closure.series.to_json()["loss"] == plain.series.to_json()["loss"]
    assert with_closure.series.to_json()["loss"][0] is not None
    with _quiet(report=None) as plain:
        _train(6, nan_input_at=3)
    with _quiet(report=None) as with_closure:
        _train(6, nan_input_at=3, closure=True)
    assert ("nonfinite_param", 3, "0", "0.weight") in _events(plain)  # broken by the 3rd update
    assert _events(with_closure) == _events(plain)


def test_mark_step_ends_steps_of_a_loop_without_torch_optim() -> None:
    torch.manual_seed(0)
    model = nn.Module()
    model.body = nn.Linear(4, 4)
    model.head = nn.Linear(4, 2)
    model.spare = nn.Linear(4, 4)  # never called: unused
    trained = list(model.parameters())
    with _quiet(report=None) as session:
        for step in range(1, 7):
            x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
            if step == 4:
                x[0, 0] = float("nan")
            loss = F.cross_entropy(model.head(torch.relu(model.body(x))), y)
            loss.backward()
            session.mark_step(trained if step == 1 else None)  # after backward, before the grads go
            with torch.no_grad():
                for param in trained:
                    if param.grad is not None:
                        param -= 0.1 * param.grad
                        param.grad = None
    assert session.steps == 6
    events = _events(session)
    assert ("nonfinite_input", 4, None, None) in [(e.kind, e.step, e.module, e.param) for e in session.events]
    assert any(kind == "unused_parameter" and module == "spare" for kind, _, module, _ in events)
    assert not any(kind == "param_not_in_optimizer" for kind, *_ in events)
    assert session.series.columns["step"] == [1, 2, 3, 4, 5, 6]


def test_mark_step_outside_the_block_is_refused() -> None:
    session = _quiet(report=None)
    with pytest.raises(RuntimeError, match="inside the `with` block"):
        session.mark_step()


def test_a_parameter_of_the_model_itself_is_named_by_the_models_class() -> None:
    """A table the root model owns (`self.pos = nn.Parameter(...)`): its events name
    the module as the model's activation events do, by its class, not `""`."""

    class Tiny(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pos = nn.Parameter(torch.zeros(4))
            self.fc = nn.Linear(4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(x + self.pos)

    torch.manual_seed(0)
    model = Tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with _quiet(report=None) as session:
        for step in range(1, 4):
            opt.zero_grad()
            model(torch.randn(8, 4)).pow(2).mean().backward()
            if step == 2:
                model.pos.grad[0] = float("nan")
            opt.step()
    grads = [(e.step, e.module, e.param) for e in session.events if e.kind == "nonfinite_grad"]
    assert grads == [(2, "Tiny", "pos")], grads


def test_a_run_that_stops_stepping_says_so() -> None:
    """A handler that skips a bad batch without clearing its gradients: every later
    backward adds to the Inf ones and is skipped too. The note says that the last
    backward passes stepped nothing; a run that steps to its end gets no such note."""

    def run(forget_to_clear: bool, first_bad: int = 10) -> list[str]:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        with _quiet(report=None) as session:
            for batch in range(60):
                x = torch.randn(16, 6)
                y = x.sum(1)
                if batch == first_bad:
                    y[0] = float("inf")
                F.mse_loss(model(x).squeeze(1), y).backward()
                try:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0, error_if_nonfinite=True)
                except RuntimeError:
                    if not forget_to_clear:
                        opt.zero_grad()
                    continue
                opt.step()
                opt.zero_grad()
        return session.notes

    stalled = [note for note in run(True) if note.startswith("training stalled")]
    assert stalled and "the last 50 backward passes stepped no optimizer (the last step was step 10)" in stalled[0], stalled
    assert not any(note.startswith("training stalled") for note in run(False))
    # the very first batch is bad: no optimizer ever steps, the passes add up into one gradient
    never = run(True, first_bad=0)
    assert any(note.startswith("training never stepped: 60 backward passes added up") for note in never), never


def test_a_tensor_only_the_optimizer_holds_is_unused_not_replaced() -> None:
    """An extra tensor handed to the optimizer, never part of the model: it gets no
    gradient, and no new parameter of the model stands in for it."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    extra = nn.Parameter(torch.zeros(3))
    opt = torch.optim.SGD([*model.parameters(), extra], lr=0.1)
    with _quiet(report=None) as session:
        for _ in range(4):
            opt.zero_grad()
            model(torch.randn(8, 4)).pow(2).mean().backward()
            opt.step()
    unused = [e for e in session.events if e.kind == "unused_parameter"]
    assert len(unused) == 1 and "no longer parameters" not in unused[0].message, unused
    assert unused[0].message.endswith("never received a gradient in 4 steps"), unused[0].message


def test_a_loss_falling_to_minus_infinity_is_called_minus_inf() -> None:
    """A log-likelihood maximised past a zero probability: the loss is -inf, and the
    report says so (as its value does), not Inf."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with _quiet(report=None) as session:
        for step in range(1, 4):
            opt.zero_grad()
            probability = torch.sigmoid(model(torch.randn(8, 4))).mean()
            if step == 2:
                probability = probability * 0
            (-torch.log(1 - probability) + torch.log(probability)).backward()
            opt.step()
    losses = [e for e in session.events if e.kind == "nonfinite_loss"]
    assert [(e.step, e.value) for e in losses] == [(2, float("-inf"))], losses
    assert "loss is -Inf" in losses[0].message, losses[0].message


def test_steps_a_grad_scaler_skips_are_no_stall() -> None:
    """fp16 that overflows on every step: the scaler skips all of them, and the
    report says so (scale collapse); the run called `scaler.step()` after every
    backward, so it did not stall."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    with _quiet(report=None) as session:
        for _ in range(30):
            x = torch.randn(16, 8)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = F.mse_loss((model(x) * 1e5).float().squeeze(1), x.sum(1))
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
    assert session.skipped_steps == 30
    assert not any(note.startswith("training stalled") for note in session.notes), session.notes


def test_an_optimizer_over_a_frozen_teacher_makes_no_second_model() -> None:
    """An optimizer built over a teacher frozen with `requires_grad_(False)`, never
    stepped: the teacher is no model of the run, and names stay those of the
    student's `named_modules()` (`0.weight`, not `student.0.weight`)."""
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).requires_grad_(False).eval()
    student = nn.Sequential(nn.Linear(4, 2))
    with _quiet(report=None) as session:
        teacher_opt = torch.optim.SGD(teacher.parameters(), lr=0.1)  # built by a shared helper, never stepped
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for step in range(1, 4):
            x = torch.randn(8, 4)
            with torch.no_grad():
                target = teacher(x)
            opt.zero_grad()
            F.mse_loss(student(x), target).backward()
            if step == 2:
                student[0].weight.grad[0, 0] = float("nan")
            opt.step()
    del teacher_opt
    grads = [(e.step, e.module, e.param) for e in session.events if e.kind == "nonfinite_grad"]
    assert grads == [(2, "0", "0.weight")], grads


@pytest.mark.parametrize("new_head", ["replaces_fc", "separate_module"])
def test_a_head_left_out_of_a_second_stages_optimizer_is_reported_at_that_stage(new_head: str) -> None:
    """Pretrain 40 steps, then fine-tune with a head built after the stage-2
    optimizer: the head gets gradients and is never updated. The check restarts
    with the new optimizer (step 41, not at 64 or never), the head is found even
    as a module of its own, and names stay those of `named_modules()`."""

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
            self.fc = nn.Linear(16, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(self.body(x))

    torch.manual_seed(0)
    model = Net()
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(40):
            opt.zero_grad()
            F.cross_entropy(model(torch.randn(8, 6)), torch.randint(0, 3, (8,))).backward()
            opt.step()
        stage2 = torch.optim.SGD(model.parameters(), lr=0.05)
        head = nn.Linear(16, 2)
        if new_head == "replaces_fc":
            model.fc = head
        for _ in range(20):
            stage2.zero_grad()
            head.zero_grad()
            x = torch.randn(8, 6)
            logits = model(x) if new_head == "replaces_fc" else head(model.body(x))
            F.cross_entropy(logits, torch.randint(0, 2, (8,))).backward()
            stage2.step()
    found = [(e.step, e.module, e.param) for e in session.events if e.kind == "param_not_in_optimizer"]
    expected = (41, "fc", "fc.weight") if new_head == "replaces_fc" else (41, "head", "head.weight")
    assert found == [expected], found


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad")
def test_a_layer_run_without_gradients_is_unused_but_not_never_called() -> None:
    """A stem run by a reentrant checkpoint on the raw batch (no input needs a
    gradient): its weights get none, and are reported; the stem runs every step,
    and the message does not say it is never called."""
    from torch.utils.checkpoint import checkpoint

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
            self.fc = nn.Linear(16, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(checkpoint(self.stem, x, use_reentrant=True))

    torch.manual_seed(0)
    model = Net()
    session = _run(model, (8, 6), steps=4, lr=0.1)
    unused = [e for e in session.events if e.kind == "unused_parameter"]
    assert [(e.module, e.param) for e in unused] == [("stem", "stem.0.weight")], unused
    assert "never called" not in unused[0].message, unused[0].message


def test_a_nan_from_a_teacher_run_without_gradients_names_the_teacher() -> None:
    """A frozen teacher loaded from a bad checkpoint (one NaN weight), run under
    `no_grad`: the distillation loss is NaN at step 1 and no module of the student
    made it. The root names the teacher's weight, not a student layer it broke."""
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).requires_grad_(False).eval()
    with torch.no_grad():
        teacher[2].weight[1, 4] = float("nan")
    student = nn.Sequential(nn.Linear(6, 3))
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for _ in range(3):
            x = torch.randn(8, 6)
            with torch.no_grad():
                soft = F.softmax(teacher(x), dim=1)
            opt.zero_grad()
            F.kl_div(F.log_softmax(student(x), dim=1), soft, reduction="batchmean").backward()
            opt.step()
    loss = next(e for e in session.events if e.kind == "nonfinite_loss")
    assert (loss.step, loss.module, loss.param) == (1, "teacher", "teacher.2.weight"), loss


class _Meter:
    """An AverageMeter as training scripts write them."""

    def __init__(self) -> None:
        self.sum, self.count = 0, 0

    def update(self, value: Any, n: int = 1) -> None:
        self.sum += value * n  # the line that feeds a leak
        self.count += n


def test_a_leak_through_a_meter_points_at_the_line_of_its_class_that_feeds_it() -> None:
    """`losses.update(loss)` keeps every step's graph in the meter's `sum`: the event's
    `where` is the line of the meter's class that grows it, not nothing."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        losses = _Meter()
        for _ in range(40):
            opt.zero_grad()
            loss = model(torch.randn(8, 4)).pow(2).mean()
            loss.backward()
            opt.step()
            losses.update(loss)
    leaks = [e for e in session.events if e.kind == "tensor_leak"]
    line = next(n for n, text in enumerate(Path(__file__).read_text().splitlines(), 1) if "the line that feeds a leak" in text)
    assert [e.where.rsplit(":", 1)[-1] for e in leaks] == [str(line)], [(e.message, e.where) for e in leaks]


def test_an_optimizer_built_every_step_does_not_rescan_the_models_every_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new optimizer's first step rescans the live models (a new stage may bring a
    new head), but only for the first few: a script that builds one per step (an
    inner optimization of a latent) is not scanned on every step."""
    from sanitizer.core.naming import ModelIndex

    scans = []
    refresh = ModelIndex.refresh
    monkeypatch.setattr(ModelIndex, "refresh", lambda self, *a: (scans.append(1), refresh(self, *a))[1])
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    with _quiet(report=None):
        for _ in range(40):
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            opt.zero_grad()
            model(torch.randn(8, 4)).pow(2).mean().backward()
            opt.step()
    assert len(scans) <= 10, len(scans)


def test_models_and_optimizers_the_script_drops_are_freed() -> None:
    """k-fold training builds a model and an optimizer per fold and drops them: the
    sanitizer holds none of a past fold's, or memory grows fold after fold. (The
    last fold's may live until the next step is read: the parameters it read, and
    on Python 3.11 the snapshot of the script's locals that naming and the leak
    check take.)"""
    import gc
    import weakref

    held: list[list[Any]] = []
    with _quiet(report=None):
        for _ in range(4):
            model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            for _ in range(3):
                opt.zero_grad()
                model(torch.randn(4, 8)).pow(2).mean().backward()
                opt.step()
            held.append([weakref.ref(model), weakref.ref(opt), weakref.ref(model[0].weight)])
            del model, opt
            gc.collect()
            assert all(ref() is None for fold in held[:-1] for ref in fold), held


def test_a_model_in_eval_mode_that_the_stepping_optimizer_does_not_hold_is_not_reported() -> None:
    """Alternating training: the encoder's optimizer steps while the loss goes through
    a predictor kept in eval mode on purpose; then the predictor trains in train mode.
    Nothing is in eval mode that the stepping optimizer trains."""
    torch.manual_seed(0)
    enc = nn.Linear(6, 8)
    pred = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 1))
    with _quiet(report=None) as session:
        opt_e = torch.optim.SGD(enc.parameters(), lr=0.01)
        opt_p = torch.optim.SGD(pred.parameters(), lr=0.01)
        for phase in range(4):
            pred.train(phase % 2 == 1)
            opt = opt_p if phase % 2 else opt_e
            for _ in range(5):
                opt.zero_grad()
                pred(enc(torch.randn(4, 6))).pow(2).mean().backward()
                opt.step()
    assert [e.kind for e in session.events if e.kind == "train_in_eval_mode"] == []


def _train_epoch(model: nn.Module, opt: torch.optim.Optimizer, history: list[torch.Tensor]) -> None:
    for _ in range(10):
        opt.zero_grad()
        loss = model(torch.randn(8, 4)).pow(2).mean()
        loss.backward()
        opt.step()
        history.append(loss)


def test_one_leak_known_by_two_names_is_reported_once() -> None:
    """The list of losses is `history` in the caller and in `_train_epoch`: the same
    graphs, one leak, one event."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        history: list[torch.Tensor] = []
        for _ in range(4):
            _train_epoch(model, opt, history)
    assert len([e for e in session.events if e.kind == "tensor_leak"]) == 1, session.events


def test_a_nan_a_module_makes_from_an_input_without_history_is_its_own() -> None:
    """A timestep embedding takes `log(t)` of its input (no autograd history) and hands
    it to its projection: at t == 0 the NaN is the embedding's, not the projection's."""

    class Emb(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            return self.proj(torch.log(t).unsqueeze(1).expand(-1, 4).sin())

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = Emb()
            self.head = nn.Linear(4, 1)

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return self.head(x + self.emb(t))

    torch.manual_seed(0)
    model = Net()
    with _quiet(report=None) as session:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for step in range(1, 5):
            t = torch.rand(8) + 0.5
            if step == 3:
                t[0] = -1.0
            opt.zero_grad()
            model(torch.randn(8, 4), t).pow(2).mean().backward()
            opt.step()
    first = next(e for e in session.events if e.kind == "nonfinite_activation")
    assert (first.step, first.module) == (3, "emb"), first


def test_a_leak_held_by_a_model_buffer_is_found() -> None:
    """A MoCo-style queue refilled without `detach()` keeps every step's graph in a
    buffer of the model: found as a leak of `model.queue`, at the line that refills it."""

    class Queued(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Linear(4, 8)
            self.register_buffer("queue", torch.randn(32, 8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q = self.enc(x)
            logits = q @ self.queue.detach().t()
            self.queue = torch.cat([q, self.queue[:-q.size(0)]])  # refilled with its graph
            return logits

    torch.manual_seed(0)
    model = Queued()
    session = _run(model, (4, 4), steps=40, lr=0.01)
    leaks = [e for e in session.events if e.kind == "tensor_leak"]
    line = next(n for n, text in enumerate(Path(__file__).read_text().splitlines(), 1) if "refilled with its graph" in text)
    assert [(e.extra.get("holder"), e.where.rsplit(":", 1)[-1]) for e in leaks] == [
        ("model.queue", str(line))], [(e.message, e.where) for e in leaks]


@pytest.mark.parametrize("fits", [True, False])
def test_a_loss_of_exactly_zero_is_a_fit_not_parameters_that_stopped_learning(fits: bool) -> None:
    """A hinge loss on separable points meets every margin: from then on the loss is
    exactly 0 and so is every gradient, which says nothing of the layers. A layer whose
    gradients go all zero while the loss is not (here a head scaled to zero) did die."""
    torch.manual_seed(10)
    points = torch.randn(64, 5)
    labels = torch.where(points[:, 0] + 0.5 * points[:, 1] > 0, 1.0, -1.0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    with _quiet(report=None) as session:
        for step in range(300):
            scores = model(points).squeeze(1)
            if not fits and step >= 100:
                scores = scores * 0.0  # the loss stays at 1, no gradient reaches the model
            loss = torch.clamp(1 - labels * scores, min=0).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert (loss.item() == 0.0) is fits
    died = [e for e in session.events if e.kind == "unused_parameter"]
    if fits:
        assert died == [], died
    else:
        assert died and all(e.step == 101 for e in died), died


def test_the_forward_stack_anomaly_mode_records_has_no_sanitizer_frame() -> None:
    """Under `detect_anomaly()` torch records, at each node it makes, the stack of the forward
    call, printed when the node's backward fails: the node of a loss function the session
    wraps was made with the wrapper's frames on the stack, and they were recorded."""
    model = nn.Linear(4, 3)
    with (Sanitizer(report=None, stream=io.StringIO(), lint=False),
          pytest.warns(UserWarning, match="Anomaly Detection has been enabled"),
          torch.autograd.detect_anomaly()):
        loss = F.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,)))
        recorded = loss.grad_fn.metadata["traceback_"]
    sanitizer_root = str(Path(hooks.__file__).resolve().parents[1])
    assert recorded and not [entry for entry in recorded if sanitizer_root in entry], recorded
    # the test's line, then torch's own frame of `cross_entropy`
    assert "F.cross_entropy(model(" in recorded[-2] and __file__ in recorded[-2], recorded


class _ScaledSGD(torch.optim.Optimizer):
    """The script's own optimizer: its step() is not known to leave a weight without a
    gradient as it was."""

    def __init__(self, params: Any, lr: float) -> None:
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure: Any = None) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.sub_(group["lr"] * p.grad)


class _FineTuned(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.head = nn.Linear(16, 1)
        self.spare = nn.Linear(16, 1)  # kept for another task: not run here

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def _frozen_backbone_run(make_optimizer: Any, nan_after: int | None,
                         monkeypatch: pytest.MonkeyPatch) -> tuple[Sanitizer, int]:
    """Fine-tuning a head on a frozen backbone that is still handed to the optimizer, for
    five steps, beside a frozen spare head the forward does not run (its weight written NaN
    through `.data` after step `nan_after`). Returns the session and how many magnitudes it
    measured as steps began."""
    from sanitizer.core import session as session_module

    measured = []
    counted = session_module.largest_magnitudes
    monkeypatch.setattr(session_module, "largest_magnitudes",
                        lambda tensors: measured.extend(tensors) or counted(tensors))
    torch.manual_seed(0)
    model = _FineTuned()
    model.backbone.requires_grad_(False)
    model.spare.requires_grad_(False)
    optimizer = make_optimizer(model.parameters())
    x, y = torch.randn(8, 6), torch.randn(8, 1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as running:
        for step in range(1, 6):
            loss = F.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step == nan_after:
                model.spare.weight.data[0, 0] = float("nan")
    return running, len(measured)


@pytest.mark.parametrize("make_optimizer, measured", [
    (lambda params: torch.optim.AdamW(params, lr=1e-3), 0),
    (lambda params: _ScaledSGD(params, lr=1e-3), 4 * 5),  # four frozen tensors, at each of 5 steps
])
def test_a_frozen_backbone_costs_no_measure_as_torchs_optimizer_steps(
        make_optimizer: Any, measured: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frozen backbone handed to AdamW has no gradient at any step: AdamW leaves it as it
    found it, so no magnitude is measured as its step() begins (its norm after the update,
    which every weight gets, tells the same); the script's own optimizer still gets the
    measure. Healthy either way."""
    running, count = _frozen_backbone_run(make_optimizer, None, monkeypatch)
    assert count == measured
    assert running.events == [], running.events


@pytest.mark.parametrize("make_optimizer", [lambda params: torch.optim.AdamW(params, lr=1e-3),
                                            lambda params: _ScaledSGD(params, lr=1e-3)])
def test_a_nan_written_into_a_frozen_backbone_is_named_alike_under_any_optimizer(
        make_optimizer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The NaN written through `.data` after step 2 (no hook sees it) into the head the
    forward does not run is found by step 3's update, which had no gradient for it: named at
    step 2, written outside the optimizer, whether the magnitude as step() began was
    measured (the script's optimizer) or read from the norm after it (AdamW)."""
    running, _ = _frozen_backbone_run(make_optimizer, 2, monkeypatch)
    event = next(e for e in running.events if e.kind == "nonfinite_param")
    assert (event.step, event.param, event.extra["origin"]) == (2, "spare.weight", "outside_optimizer"), event
    assert ("code outside the optimizer changed it before step 3's update, which had no gradient for it and found "
            "it NaN already") in event.message, event.message


def test_a_forward_building_layers_walks_its_module_once_a_step() -> None:
    """A block whose forward builds four layers per call: whether it holds each one is
    asked of one walk of its submodules a step, not one walk per layer (a big outermost
    model building a layer inline was walked whole for each)."""
    walks = []

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Linear(6, 6)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.embed(x)
            for _ in range(4):
                h = torch.tanh(nn.Linear(6, 6)(h))
            return h

        def modules(self) -> Any:
            walks.append(1)
            return super().modules()

    torch.manual_seed(0)
    model = Block()
    session = _run(model, (8, 6), steps=6, lr=0.1)
    assert len(walks) <= 6, len(walks)
    assert [e.extra["layers"] for e in session.events if e.kind == "param_not_in_optimizer"] == [4]
