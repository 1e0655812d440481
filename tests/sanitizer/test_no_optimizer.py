"""Loops that update parameters by hand, without torch.optim: each backward pass
is a step, events carry the real step and module, and nothing the sanitizer keeps
grows with the steps."""
from __future__ import annotations

import io

import torch
from torch import nn

from sanitizer import Sanitizer
from sanitizer.core.probe import StepRecord
from sanitizer.detectors import Detector
from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("manual_sgd.py",), ("manual_sgd.py", "--nan-batch", "30"), ("plain", "manual_sgd.py"),
              ("bare_tensor_net.py", "--lr", "1e-3")]


def test_manual_sgd_language_model_counts_backward_passes(script_runs: ScriptRuns) -> None:
    run = script_runs.get("manual_sgd.py")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == script_runs.plain("manual_sgd.py").stdout.splitlines()[-1]
    assert run.report["steps"] == 40 and run.events() == []
    assert len(run.report["series"]["loss"]) == 40
    assert any("each backward pass was counted as a step" in note for note in run.report["summary"]["notes"])


def test_nan_in_a_manual_loop_has_its_step_and_module(script_runs: ScriptRuns) -> None:
    run = script_runs.get("manual_sgd.py", "--nan-batch", "30")
    activation = run.first("nonfinite_activation")
    assert (activation["step"], activation["module"]) == (30, "head")
    loss = run.first("nonfinite_loss")
    assert (loss["step"], loss["module"]) == (30, "head")
    assert loss["where"].endswith(f"manual_sgd.py:{line_of('manual_sgd.py', 'loss = F.cross_entropy')}")
    assert run.first("nonfinite_grad")["step"] == 30


def test_bare_tensors_are_named_by_their_variables(script_runs: ScriptRuns) -> None:
    """The weights of a network written with bare tensors are named as the script names
    them, and the blow-up that made them non-finite says the loss went non-finite (the
    run went on)."""
    run = script_runs.get("bare_tensor_net.py", "--lr", "1e-3")
    assert run.returncode == 0, run.stderr
    for kind in ("nonfinite_grad", "nonfinite_param"):
        event = run.first(kind)
        assert event["param"] in ("w1", "w2") and set(event["params"]) == {"w1", "w2"}, event
        assert "None" not in event["message"], event
    divergence = run.first("divergence")
    assert divergence["step"] == 2 and "the loss was non-finite at step 4" in divergence["message"], divergence


def test_the_stand_in_optimizer_costs_no_torch_dynamo_import() -> None:
    """A loop without torch.optim is not made to import torch._dynamo (1.5 s) by the
    sanitizer's stand-in optimizer, which still holds the parameters as one."""
    import subprocess
    import sys
    code = ("import sys, torch\n"
            "from sanitizer.core.manual import ManualUpdate\n"
            "from sanitizer.core.naming import params_of\n"
            "p = torch.zeros(2, requires_grad=True)\n"
            "stand_in = ManualUpdate([p])\n"
            "assert params_of(stand_in) == [p] and isinstance(stand_in, torch.optim.Optimizer)\n"
            "print('torch._dynamo' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_tensor_no_name_reaches_is_labelled_by_its_shape() -> None:
    from sanitizer.core.sink import Sink

    class Session:
        def param_name(self, param: torch.Tensor) -> None:
            return None

    assert Sink(Session()).param_label(torch.zeros(10, 3)) == "<unnamed (10, 3)>"  # type: ignore[arg-type]


def _manual_loop(session: Sanitizer, batches: int, accumulate: int = 1) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    for batch in range(batches):
        loss = nn.functional.cross_entropy(model(torch.randn(8, 6)), torch.randint(0, 2, (8,)))
        loss.backward()
        if (batch + 1) % accumulate:
            continue  # gradients add up over `accumulate` backward passes
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        model.zero_grad()


def test_nothing_kept_grows_with_steps() -> None:
    sizes = []
    for batches in (50, 400):
        with Sanitizer(report=None, stream=io.StringIO()) as session:
            _manual_loop(session, batches)
            sizes.append((len(session.probe.losses), len(session.probe.graph_roots), len(session.probe.trail_values)))
        assert session.steps == batches
    assert sizes[0] == sizes[1] == (0, 0, 0)


def test_modules_built_every_step_are_forgotten_when_freed() -> None:
    """A loss module made anew each step is seen called, then freed: the sanitizer keeps
    nothing of it, and a later module given its address is not taken for it."""
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO()) as session:
        for _ in range(40):
            loss = nn.CrossEntropyLoss()(model(torch.randn(8, 4)), torch.randint(0, 3, (8,)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        unseen = nn.Linear(4, 3)
        assert session.sink.was_called(model) and not session.sink.was_called(unseen)
        assert len(session.tracer.called) == 1


def test_an_optimizer_loop_is_not_counted_twice() -> None:
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO()) as session:
        for _ in range(6):
            for _ in range(3):  # gradient accumulation over three backward passes
                model(torch.randn(8, 4)).pow(2).mean().backward()
            optimizer.step()
            optimizer.zero_grad()
    assert session.steps == 6 and len(session.series.columns["loss"]) == 6


def test_accumulating_backward_passes_before_the_first_manual_update() -> None:
    with Sanitizer(report=None, stream=io.StringIO()) as session:
        _manual_loop(session, 12, accumulate=3)
    assert session.steps == 10  # the first update's three passes make one step; then one per pass


def test_every_step_of_a_manual_loop_is_one_optimizers() -> None:
    """The first backward pass is held until the second shows it was a step: it must count
    as the same stand-in optimizer as the steps after it (spikes are judged per optimizer)."""
    seen: list[int | None] = []

    class Optimizers(Detector):
        def on_step(self, record: StepRecord, sink: object) -> None:
            if not record.partial:
                seen.append(record.optimizer_id)

    with Sanitizer(report=None, stream=io.StringIO()) as session:
        session.detectors.append(Optimizers())
        _manual_loop(session, 12)
    assert len(seen) == 12 and len(set(seen)) == 1 and None not in seen, seen


def test_a_manual_loop_that_never_clears_its_gradients_still_counts_its_updates() -> None:
    """Without zero_grad the next backward pass adds to the same gradients, but the
    update in between (through `.data`, which torch does not count as a change of
    the tensor) makes each pass a step: a NaN batch is placed at its own step."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    with Sanitizer(report=None, stream=io.StringIO()) as session:
        for batch in range(1, 41):
            x = torch.randn(16, 4)
            if batch == 30:
                x[0, 0] = float("nan")
            nn.functional.smooth_l1_loss(model(x), x.sum(1, keepdim=True)).backward()
            for param in model.parameters():
                param.data.add_(-0.01 * param.grad)
    assert session.steps == 40 and len(session.series.columns["loss"]) == 40
    nonfinite = [event for event in session.events if event.kind == "nonfinite_input"]
    assert nonfinite and nonfinite[0].step == 30, nonfinite
