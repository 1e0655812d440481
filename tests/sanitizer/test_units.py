"""Small pieces: command line, report naming, series downsampling, robust statistics, docs."""
from __future__ import annotations

import ast
import math
import random
import re
import os
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanitizer import cli
from sanitizer.core import locations
from sanitizer.core.catalogue import KINDS
from sanitizer.core.memory import MemoryMeter
from sanitizer.core.probe import StepRecord
from sanitizer.core.session import report_path_for
from sanitizer.detectors.spikes import GradSpikeDetector, LossSpikeDetector
from sanitizer.detectors.stats import RollingWindow, upward_outlier
from sanitizer.detectors.vanishing_grad import VanishingGradDetector
from sanitizer.report.json_report import Series

DOC = Path(__file__).resolve().parents[2] / "docs" / "sanitizer.md"


def test_options_stop_at_the_script() -> None:
    options = cli.parse(["--report=r.json", "--strict", "train.py", "--report", "x", "--strict"])
    assert (options.report, options.strict, options.script) == ("r.json", True, "train.py")
    assert options.args == ["--report", "x", "--strict"]


def test_module_mode_and_lists() -> None:
    options = cli.parse(["--checks", "nonfinite_loss, loss_spike", "--halt-on", "nonfinite_loss", "-m", "pkg.train", "-v"])
    assert options.module == "pkg.train" and options.args == ["-v"] and options.script is None
    assert options.checks == ["nonfinite_loss", "loss_spike"] and options.halt_on == ["nonfinite_loss"]


def test_repeated_list_options_add_up() -> None:
    options = cli.parse(["--checks", "nonfinite_loss", "--checks=loss_spike,grad_spike",
                         "--halt-on", "nonfinite_loss", "--halt-on", "nonfinite_grad", "train.py"])
    assert options.checks == ["nonfinite_loss", "loss_spike", "grad_spike"]
    assert options.halt_on == ["nonfinite_loss", "nonfinite_grad"]


def test_a_report_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("")
    for bad, words in ((str(tmp_path), "is a folder"), (str(tmp_path / "a_file" / "r.json"), "is not a folder"),
                       ("", "needs a file name")):
        with pytest.raises(cli.UsageError, match=words):
            cli.parse(["--report", bad, "train.py"])
    assert cli.parse(["--report", str(tmp_path / "new" / "deeper" / "r.json"), "train.py"]).script == "train.py"


@pytest.mark.parametrize("argv", [[], ["--report"], ["--bogus", "x.py"], ["-m"]])
def test_bad_command_lines_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(cli.UsageError):
        cli.parse(argv)


def test_rank_report_names() -> None:
    assert report_path_for("sanitizer-report.json", None) == "sanitizer-report.json"
    assert report_path_for("sanitizer-report.json", 3) == "sanitizer-report.rank3.json"
    assert report_path_for("out/run", 0) == "out/run.rank0.json"


def test_series_stays_bounded_and_regular() -> None:
    series = Series(capacity=8)
    for step in range(1, 101):
        series.add(step=step, loss=float(step))
    steps = series.columns["step"]
    assert len(steps) <= 8 and steps[0] == 1
    assert len({b - a for a, b in zip(steps, steps[1:])}) == 1


def test_a_second_optimizers_gradients_join_the_row_of_its_step() -> None:
    """Two optimizers on one backward pass: one row per step, whose gradient norm
    covers both (3 and 4 give 5), also across the halvings that keep the series bounded."""
    series = Series(capacity=8)
    for step in range(1, 101):
        series.add(step=step, loss=1.0, grad_norm=3.0)
        series.add_to_last(grad_norm=4.0)
    steps, norms = series.columns["step"], series.columns["grad_norm"]
    assert len(steps) <= 8 and len(set(steps)) == len(steps)
    assert norms == [5.0] * len(steps)


def test_outlier_needs_both_sigmas_and_ratio() -> None:
    window = RollingWindow(50)
    for value in [1.0, 1.1, 0.9, 1.05, 0.95] * 5:
        window.add(value)
    centre, sigma = window.baseline()
    assert upward_outlier(20.0, centre, sigma, 12, 5)
    assert not upward_outlier(3.0, centre, sigma, 12, 5)
    assert not upward_outlier(float("nan"), centre, sigma, 12, 5)


def _statm_read_by(meter: MemoryMeter) -> str:
    """Which process's statm the meter's open descriptor reads (`/proc/<pid>/statm`)."""
    assert meter._statm is not None
    return os.readlink(f"/proc/self/fd/{meter._statm[1]}")


@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.exists("/proc/self/fd"), reason="needs fork and /proc")
def test_a_forked_child_reads_its_own_memory() -> None:
    """RSS figures move under the kernel's reclaim, so the test checks what is read, not how much."""
    meter = MemoryMeter()
    assert (meter.sample(5, "cpu") or 0) > 0
    assert _statm_read_by(meter) == f"/proc/{os.getpid()}/statm"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        ok = (meter.sample(5, "cpu") or 0) > 0
        os.write(write, f"{ok} {_statm_read_by(meter)}".encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    ok, child_reads = os.read(read, 256).decode().split()
    os.close(read)
    assert status == 0 and ok == "True"
    assert child_reads == f"/proc/{pid}/statm"  # the child's own, not its parent's
    assert _statm_read_by(meter) == f"/proc/{os.getpid()}/statm"
    meter.close()
    assert meter._statm is None


def test_every_kind_is_documented() -> None:
    text = DOC.read_text()
    missing = [kind for kind in KINDS if f"`{kind}`" not in text]
    assert missing == []


class _Collector:
    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.messages: list[str] = []

    def emit(self, kind: str, step: int, message: str, **fields: object) -> None:
        self.events.append((kind, step))
        self.messages.append(message)

    def common_module_name(self, params: list[object]) -> str | None:
        return None


def _record(step: int, loss: float) -> StepRecord:
    return StepRecord(step=step, skipped=False, partial=False, losses=[loss], loss_sites=[None], trail=[],
                      model_site=None, params=[], grad_norms=[], grad_norm=None, checked_params=[],
                      param_norms=[], param_step=None, scale=None, underflow=None, eval_loss=None,
                      data_wait=0.0, step_time=None, memory_bytes=None, graph_roots=[])


@pytest.mark.parametrize(("losses", "spike_step"), [
    ([2.0 - 0.01 * i for i in range(30)] + [40.0] + [1.6] * 5, 31),  # a corrupt batch
    ([2.0] * 10 + [1e-4, 1.2e-4, 0.9e-4] * 7 + [1.5e-3] + [1e-4] * 5, None),  # blip near zero
])
def test_loss_spike_needs_a_jump_that_matters(losses: list[float], spike_step: int | None) -> None:
    detector, sink = LossSpikeDetector(), _Collector()
    for step, loss in enumerate(losses, start=1):
        detector.on_step(_record(step, loss), sink)
    assert sink.events == ([("loss_spike", spike_step)] if spike_step else [])


@pytest.mark.parametrize(("blip", "spike"), [(0.08, False), (2.0, True)])
def test_a_spike_is_measured_against_where_the_loss_started(blip: float, spike: bool) -> None:
    """A discriminator's loss falls from 1.4 to 0.3 within its first 20 steps (their
    median 0.63), then sits at 0.002: a blip to 0.08 is 40 times its median and an
    eighth of the first 20 steps' median, but a fifteenth of where it started (the
    median of its first 5 values, 1.2): no spike. A jump to 2 is one."""
    detector, sink = LossSpikeDetector(), _Collector()
    losses = [1.4 * 0.92 ** i for i in range(20)] + [0.002 * (1 + 0.1 * math.sin(i)) for i in range(60)]
    for step, loss in enumerate(losses + [blip, 0.002], start=1):
        detector.on_step(_record(step, loss), sink)
    assert sink.events == ([("loss_spike", 81)] if spike else []), sink.events


def test_a_spike_over_a_negative_median_says_how_far_above_it_is() -> None:
    """A WGAN critic's loss hovers below zero: a ratio to its median means nothing,
    the distance does."""
    detector, sink = LossSpikeDetector(), _Collector()
    losses = [-0.5 + 0.01 * (i % 5) for i in range(30)] + [9.0]
    for step, loss in enumerate(losses, start=1):
        detector.on_step(_record(step, loss), sink)
    assert sink.events == [("loss_spike", 31)], sink.events
    assert sink.messages[0].startswith("loss 9 is 9.48 above its median -0.48"), sink.messages


_LOSSES = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | st.sampled_from([float("nan"), float("inf")])


@given(st.lists(_LOSSES, min_size=1, max_size=50), _LOSSES, st.floats(1.0, 20.0), st.floats(1.0, 20.0))
def test_a_value_within_the_ratio_of_the_least_is_never_an_outlier(window_values: list[float], value: float,
                                                                  ratio: float, sigmas: float) -> None:
    window = RollingWindow(50)
    for kept in window_values:
        window.add(kept)
    if len(window) and window.within_ratio(value, ratio):
        centre, sigma = window.baseline()
        assert not upward_outlier(value, centre, sigma, sigmas, ratio)


class _NoShortcut(RollingWindow):
    def within_ratio(self, value: float, ratio: float) -> bool:
        return False


# a loss near 1, and now and then 3 to 60 times that: spikes just above and below the ratio
_STEPS = st.tuples(st.floats(min_value=0.9, max_value=1.1), st.sampled_from([1.0] * 16 + [3.0, 6.0, 12.0, 60.0]))


@given(st.lists(_STEPS, min_size=25, max_size=80))
def test_spike_verdicts_do_not_depend_on_the_shortcut(steps: list[tuple[float, float]]) -> None:
    losses = [level * times for level, times in steps]
    with_shortcut, without = (LossSpikeDetector(), _Collector()), (LossSpikeDetector(), _Collector())
    without[0].window_type = _NoShortcut
    for step, loss in enumerate(losses, start=1):
        for detector, sink in (with_shortcut, without):
            detector.on_step(_record(step, loss), sink)
    assert with_shortcut[1].events == without[1].events


@pytest.mark.parametrize("detector_type", [LossSpikeDetector, GradSpikeDetector])
def test_optimizers_taking_turns_are_judged_each_against_its_own_steps(detector_type: type) -> None:
    """A GAN: the generator's values sit 20 times below the discriminator's. No step
    is a spike of its own optimizer's history, until the discriminator's step 61."""
    detector, sink = detector_type(), _Collector()
    for step in range(1, 81):
        generator_turn = step % 2 == 1
        value = (0.0005 if generator_turn else 0.01) * (1 + 0.05 * math.sin(step))
        if step == 61:
            value *= 300
        record = _record(step, value)
        record.grad_norm = value
        record.optimizer_id = 1 if generator_turn else 2
        detector.on_step(record, sink)
    assert sink.events == [(detector.kind, 61)]
    assert "over the last 30 steps of the same optimizer" in sink.messages[0]


@pytest.mark.parametrize("detector_type", [LossSpikeDetector, GradSpikeDetector])
def test_a_parameter_group_added_starts_the_history_again(detector_type: type) -> None:
    """A second head and its loss term join at step 41 (`add_param_group`): loss and
    gradient norm sit 20 times higher from then on, no spike. A corrupt batch at step 71,
    past the new history's warm-up, still is one; without the new group, so is step 41."""
    for groups_from, expected in ((41, [(detector_type.kind, 71)]), (None, [(detector_type.kind, 41)])):
        detector, sink = detector_type(), _Collector()
        for step in range(1, 81):
            value = (1.0 if step <= 40 else 20.0) * (1 + 0.05 * math.sin(step)) * (30 if step == 71 else 1)
            record = _record(step, value)
            record.grad_norm = value
            record.param_groups = 2 if groups_from is not None and step >= groups_from else 1
            detector.on_step(record, sink)
        assert sink.events[:1] == expected, sink.events


@pytest.mark.parametrize("detector_type", [LossSpikeDetector, GradSpikeDetector])
def test_layers_unfrozen_into_the_same_objective_keep_the_history(detector_type: type) -> None:
    """Gradual unfreezing: a parameter group added every 15 steps, the loss and gradient
    norm going on where they were. The history is kept, so a corrupt batch at step 52
    is a spike (forgetting it at every group would never reach 20 steps of history)."""
    detector, sink = detector_type(), _Collector()
    for step in range(1, 81):
        value = (1 + 0.05 * math.sin(step)) * (30 if step == 52 else 1)
        record = _record(step, value)
        record.grad_norm = value
        record.param_groups = 1 + step // 15
        detector.on_step(record, sink)
    assert sink.events[:1] == [(detector_type.kind, 52)], sink.events


# GaussianNLLLoss with a learned variance: the gradient norm grows as the variance shrinks
_GROWING_NORMS = [2.1, 1.37, 1.24, 1.73, 1.6, 1.53, 1.56, 1.61, 1.96, 1.61, 2.2, 3.48, 3.35, 1.73, 4.69, 6.36,
                  2.82, 6.13, 3.69, 4.44, 8.12, 8.1, 9.13, 6.55, 4.62, 1.95, 9.33, 14.41, 8.03, 3.52, 12.27,
                  15.68, 18.66, 25.44]


@pytest.mark.parametrize(("last", "spike"), [(60.22, False), (300.0, True)])
def test_a_trend_is_no_spike_but_one_batch_far_above_its_neighbours_is(last: float, spike: bool) -> None:
    """Step 35's 60 is 17 times the median of the 34 steps before it, but under 4 times
    that of the last 5: the trend goes on. 300 stands far above those too."""
    detector, sink = GradSpikeDetector(), _Collector()
    for step, value in enumerate(_GROWING_NORMS + [last], start=1):
        record = _record(step, -0.05 * step)
        record.grad_norm = value
        detector.on_step(record, sink)
    assert sink.events == ([("grad_spike", 35)] if spike else []), sink.events


@pytest.mark.parametrize("rising", [True, False])
def test_a_spike_while_the_learning_rate_rose_says_so_and_points_at_the_rate(rising: bool) -> None:
    """A learning-rate range test raises the rate 1.2-fold a step (from 1e-5); a batch 30
    times the gradient norm's level at step 40 is a spike either way, named with the
    rate's rise (0.0122 now, 1,200 times the window's first) only when it rose."""
    from sanitizer.report.diagnosis import diagnose
    detector, sink = GradSpikeDetector(), _Collector()
    for step in range(1, 41):
        record = _record(step, 1.0)
        record.grad_norm = (30.0 if step == 40 else 1.0) * (1 + 0.05 * math.sin(step))
        record.lr = 1e-5 * (1.2 ** (step - 1) if rising else 1.0)
        detector.on_step(record, sink)
    assert sink.events == [("grad_spike", 40)], sink.events
    assert ("while the learning rate rose from 1e-5 to 0.0122 over those steps" in sink.messages[0]) is rising, sink.messages
    event = {"kind": "grad_spike", "step": 40, "message": sink.messages[0], "severity": "warning",
             **({"lr": [1e-5, 1e-5 * 1.2 ** 39]} if rising else {})}
    (problem,) = diagnose({"events": [event]})
    assert problem.advice.startswith("the learning rate rose 10-fold") is rising, problem.advice


def test_a_generators_gradient_vanishing_between_discriminator_steps_is_caught() -> None:
    """The discriminator wins from step 41: the generator's norm falls 2,500-fold while
    its loss stays. Its five collapsed steps are not in a row among all steps."""
    detector, sink = VanishingGradDetector(), _Collector()
    for step in range(1, 81):
        generator_turn = step % 2 == 1
        norm = (0.05 if generator_turn else 2.0) * (1 + 0.05 * math.sin(step))
        if generator_turn and step > 40:
            norm /= 2500
        record = _record(step, 0.7)
        record.grad_norm = norm
        record.optimizer_id = 1 if generator_turn else 2
        detector.on_step(record, sink)
    assert sink.events == [("vanishing_grad", 49)]
    assert sink.messages[0].startswith("global gradient norm of the same optimizer is 1.9e-05 (early steps: 0.0507) "
                                       "for 5 steps in a row"), sink.messages


@pytest.mark.parametrize("plateau", [True, False])
def test_a_gradient_that_shrinks_as_the_loss_settles_is_convergence(plateau: bool) -> None:
    """The gradient halves each step. With the loss falling by a third, its change going to
    0 with the gradient, and settling at its lowest level (full-batch least squares on a
    high noise floor): converged. With the loss flat from the start: stalled."""
    detector, sink = VanishingGradDetector(), _Collector()
    for step in range(1, 61):
        norm = 0.5 ** step
        record = _record(step, 0.887 + 0.42 * 0.25 ** step if plateau else 1.3)
        record.grad_norm = norm
        detector.on_step(record, sink)
    assert (sink.events == []) if plateau else (sink.events == [("vanishing_grad", 20)]), sink.events


def test_a_gradient_zero_from_the_first_step_is_not_compared_with_itself() -> None:
    detector, sink = VanishingGradDetector(), _Collector()
    for step in range(1, 31):
        record = _record(step, 0.7)
        record.grad_norm = 0.0
        detector.on_step(record, sink)
    assert sink.events and "early steps" not in sink.messages[0]
    assert sink.messages[0].startswith("global gradient norm is 0 since its first steps for ")


def test_eval_mode_names_only_what_it_changes() -> None:
    from torch import nn

    from sanitizer.detectors.train_in_eval_mode import _what_changes

    assert _what_changes([nn.Dropout(0.1)]) == "no dropout"
    assert _what_changes([nn.BatchNorm1d(4), nn.Dropout(0.1)]) == "no dropout, frozen normalization statistics"
    assert _what_changes([nn.InstanceNorm2d(4, track_running_stats=True)]) == "frozen normalization statistics"


def test_a_leak_says_whether_tensors_or_only_graph_nodes_pile_up() -> None:
    import torch

    from sanitizer.detectors.tensor_leak import TensorLeakDetector
    weight = torch.ones(64, requires_grad=True)
    for backward in (True, False):
        detector, sink = TensorLeakDetector(), _Collector()
        total = torch.zeros(())
        for step in range(1, 16):
            loss = (weight * step).pow(2).sum()
            if backward:
                loss.backward()  # frees what the graph saved: only its nodes stay
            total = total + loss
            detector.on_step(_record(step, 1.0), sink)
        assert sink.events == [("tensor_leak", 15)]
        if backward:
            assert sink.messages[0].endswith("the nodes themselves piling up (backward freed the tensors they saved)")
        else:
            assert re.search(r"holding \d+ bytes of tensors$", sink.messages[0]), sink.messages[0]


@pytest.mark.parametrize("carried", [True, False])
def test_a_growing_graph_leaks_only_when_it_reaches_past_steps(carried: bool) -> None:
    """An RNN state carried across steps undetached (backward with retain_graph) keeps
    every past step's graph: a leak. An episode's loss whose graph is rebuilt each
    step and grows with the episode's length is the step's own graph: no leak."""
    import torch

    from sanitizer.detectors.tensor_leak import TensorLeakDetector
    weight = torch.full((4,), 0.5, requires_grad=True)
    detector, sink = TensorLeakDetector(), _Collector()
    hidden = torch.zeros(4)
    for step in range(1, 16):
        if carried:
            hidden = torch.tanh(hidden * weight + 1.0)
            loss = hidden.sum()
        else:
            hidden = torch.zeros(4)
            for _ in range(step):  # the episode gets longer
                hidden = torch.tanh(hidden * weight + 1.0)
            loss = hidden.sum()
        loss.backward(retain_graph=carried)
        record = _record(step, float(loss.detach()))
        record.graph_roots = [loss.grad_fn]
        detector.on_step(record, sink)
    assert set(sink.events) == ({("tensor_leak", 15)} if carried else set())  # `hidden` and `loss` hold it


def test_detectors_see_only_their_sink() -> None:
    """Checks reach the run through `Sink` alone: no session, no private fields."""
    folder = Path(__file__).resolve().parents[2] / "sanitizer" / "detectors"
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        private = [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                   and isinstance(node.value, ast.Name) and node.value.id == "sink" and node.attr.startswith("_")]
        assert not {"session", "Sanitizer"} & names and "sanitizer.core.session" not in modules, path.name
        assert private == [], (path.name, private)


def test_the_lint_reads_the_users_entry_file_only(tmp_path: Path) -> None:
    from sanitizer.core.script_lint import entry_file

    script = Path(__file__).resolve().parent / "scripts" / "clip_before_unscale.py"
    assert entry_file(str(script)) == str(script)
    assert entry_file("json.tool") is None  # an installed module is no user code
    assert entry_file("sanitizer") is None  # nor is the sanitizer itself
    (tmp_path / "data.txt").write_text("x")
    assert entry_file(str(tmp_path / "data.txt")) is None


def test_a_package_skipped_later_is_library_code_from_then_on(tmp_path: Path) -> None:
    package = tmp_path / "vendored"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module = types.ModuleType("vendored")
    module.__file__ = str(package / "__init__.py")
    inside = str(package / "train_utils.py")
    assert locations.is_user_file(inside)  # the verdict is remembered...
    locations.skip_package(module)
    assert not locations.is_user_file(inside)  # ...until the skipped packages change


def test_installed_packages_and_the_standard_library_are_not_user_code(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    import multiprocessing.pool

    import hypothesis

    from sanitizer import runner
    assert not locations.is_user_file(multiprocessing.pool.__file__)  # a Pool's workers are nobody's training
    assert not locations.is_user_file(hypothesis.__file__)
    assert locations.is_user_file(__file__)
    # code run from where packages are installed (`-m mytrain.train`) is the user's all the same
    site = tmp_path / "site"
    (site / "mytrain").mkdir(parents=True)
    (site / "mytrain" / "__init__.py").write_text("")
    (site / "mytrain" / "train.py").write_text("")
    (site / "other.py").write_text("")
    monkeypatch.setattr(locations, "_LIBRARY_PREFIXES", [str(site) + os.sep])
    monkeypatch.setattr(locations, "_USER_ROOTS", [])
    monkeypatch.setattr(locations, "_USER_FILE", {})
    monkeypatch.syspath_prepend(str(site))
    assert not locations.is_user_file(str(site / "mytrain" / "train.py"))
    runner._own_code_is_user_code("mytrain.train")
    assert locations.is_user_file(str(site / "mytrain" / "train.py"))
    assert not locations.is_user_file(str(site / "other.py"))
    runner._own_code_is_user_code("other")  # a lone module: that file, not its whole folder
    assert locations.is_user_file(str(site / "other.py"))
    assert not locations.is_user_file(str(site / "mytrain2.py"))


def test_the_users_line_is_the_calls_own_each_time_and_holds_no_frame(tmp_path: Path) -> None:
    """The hooks ask for the script's line on every step; it is remembered per instruction
    of the script's code (finding a line reads the code's line table from its start): each
    call still names its own line, and no frame is kept, nor the objects it holds."""
    script = tmp_path / "loop.py"
    script.write_text("def run():\n"
                      "    held, sites = Held(), []\n"
                      "    for _ in range(3):\n"
                      "        sites.append(user_site())\n"
                      "        sites += [user_site(), user_site()]\n"
                      "    return sites, weakref.ref(held)\n")

    class Held:
        pass

    scope = {"Held": Held, "user_site": locations.user_site, "weakref": __import__("weakref")}
    exec(compile(script.read_text(), str(script), "exec"), scope)
    sites, held = scope["run"]()
    assert sites == [locations.format_site(str(script), line) for line in (4, 5, 5)] * 3
    assert held() is None


@pytest.mark.parametrize("detector_type", [LossSpikeDetector, GradSpikeDetector])
def test_an_epochs_short_last_batch_is_not_judged_against_full_ones(detector_type: type) -> None:
    """Epochs of 29 steps, the last on 4 items where the others have 32 (the default
    `drop_last=False`): its value averages fewer samples and is 12 times the median,
    which on a full batch is a spike (the first; the window then holds it). Batches
    of unknown size are judged as before."""
    def run(short_items: int | None, full_items: int | None) -> list[tuple[str, int]]:
        detector, sink = detector_type(), _Collector()
        for step in range(1, 88):
            last_of_epoch = step % 29 == 0
            value = (12.0 if last_of_epoch else 1.0) * (1 + 0.05 * math.sin(step))
            record = _record(step, value)
            record.grad_norm = value
            record.batch_items = short_items if last_of_epoch else full_items
            detector.on_step(record, sink)
        return sink.events
    assert run(short_items=4, full_items=32) == []
    kind = detector_type.kind
    assert run(short_items=32, full_items=32) == [(kind, 29)]
    assert run(short_items=20, full_items=32) == [(kind, 29)]  # not short enough
    assert run(short_items=None, full_items=None) == [(kind, 29)]


def test_heavy_tailed_per_sample_losses_are_noise_but_a_far_larger_value_is_a_spike() -> None:
    """One sample per step: most losses are small, a hard sample's is 10 to 40 times the
    median every few dozen steps. Those are the run's noise once it has shown a few (the
    first, after a calm window, cannot be told from a spike); a loss 100 times larger
    than any of them still is a spike."""
    rng = random.Random(0)
    losses = [rng.uniform(0.05, 0.3) if rng.random() > 0.06 else rng.uniform(2.0, 9.0) for _ in range(1500)]
    detector, sink = LossSpikeDetector(), _Collector()
    for step, loss in enumerate(losses, start=1):
        detector.on_step(_record(step, loss), sink)
    assert len(sink.events) <= 1 and all(step <= 100 for _, step in sink.events), sink.events
    before = list(sink.events)
    detector.on_step(_record(1501, 900.0), sink)
    assert sink.events == [*before, ("loss_spike", 1501)]


@pytest.mark.parametrize(("fall", "words"), [(0.0, "train loss does not go down"),
                                             (0.06, "train loss fell only 5% over the run")])
def test_underfitting_says_whether_the_loss_is_flat_or_falls_slowly(fall: float, words: str) -> None:
    """A bigram model at a small learning rate falls steadily, 6% in 600 steps: it is
    still underfit (high and validation as high), but its loss does go down (5% from the
    median of its first tenth of steps to that of its last)."""
    from sanitizer.detectors.fitting import FittingDetector
    detector, sink = FittingDetector(), _Collector()
    for step in range(1, 601):
        record = _record(step, 3.3 * (1 - fall * (step - 1) / 599) + 0.01 * math.sin(step))
        record.loss_kinds = ["cross_entropy"]
        if step % 100 == 0:
            record.eval_loss, record.eval_kind = 3.3 * (1 - fall * step / 600), "cross_entropy"
        detector.on_step(record, sink)
    detector.on_end(sink)
    assert [kind for kind, _ in sink.events] == ["underfitting"]
    assert words in sink.messages[0], sink.messages


def _fitting_verdicts(train: list[float], vals: dict[int, float]) -> list[tuple[str, str]]:
    from sanitizer.detectors.fitting import FittingDetector
    detector, sink = FittingDetector(), _Collector()
    for step, loss in enumerate(train, start=1):
        record = _record(step, loss)
        record.loss_kinds = ["cross_entropy"]
        if step in vals:
            record.eval_loss, record.eval_kind = vals[step], "cross_entropy"
        detector.on_step(record, sink)
    detector.on_end(sink)
    return [(kind, message) for (kind, _), message in zip(sink.events, sink.messages)]


def test_a_small_training_set_fitted_fast_is_overfitting_not_a_mismatch() -> None:
    """48 samples and a wide MLP: train loss 1.08 at step 1, 0.19 as the median of the
    first tenth of the run, 1e-4 at the end; validation 0.86 at its best, rising to 1.42.
    The untrained model's loss is that of the first steps (0.97), which validation came near: the
    table's overfitting, not data that differs."""
    train = [1.08 * 0.9 ** i + 1e-4 for i in range(300)]
    vals = {25 * k: min(0.86 + 0.03 * (k - 1), 1.42) for k in range(1, 13)}
    (verdict,) = _fitting_verdicts(train, vals)
    assert verdict[0] == "overfitting", verdict
    # validation far above the untrained model's loss at every evaluation is a mismatch
    (verdict,) = _fitting_verdicts(train, {step: 2.5 + value for step, value in vals.items()})
    assert verdict[0] == "train_val_mismatch" and "untrained model's loss (0.9721)" in verdict[1], verdict


def test_one_parameter_outside_the_optimizer_is_named_in_the_singular() -> None:
    import torch
    from torch import nn

    from sanitizer.core.session import Sanitizer
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1, bias=False))
    optimizer = torch.optim.SGD(model[0].parameters(), lr=0.1)
    with Sanitizer(report=None, checks=["param_not_in_optimizer"], lint=False) as session:
        for _ in range(2):
            model(torch.randn(4, 3)).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
    [event] = [e for e in session.events if e.kind == "param_not_in_optimizer"]
    assert "receives gradients but no optimizer holds it: no optimizer step ever updates it" in event.message, event.message


def test_a_dataloader_workers_error_is_its_own_line_and_the_datasets_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch raises a worker's exception again with the worker's whole traceback in its
    message: the ending keeps the worker's own error and the Dataset's line, not the
    traceback flattened into one line."""
    from sanitizer.core import ending, locations
    monkeypatch.setattr(locations, "is_user_file", lambda path: path.startswith("/proj/"))
    monkeypatch.setattr(locations, "format_site", lambda path, line: f"{path.rsplit('/', 1)[-1]}:{line}")
    message = ("Caught ValueError in DataLoader worker process 1.\n"
               "Original Traceback (most recent call last):\n"
               '  File "/usr/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 374, in _worker_loop\n'
               "    data = fetcher.fetch(index)\n"
               "            ^^^^^^^^^^^^^^^^^^^^\n"
               '  File "/proj/data.py", line 10, in __getitem__\n'
               "    raise ValueError(f'sample {i} is corrupt')\n"
               "ValueError: sample 40 is corrupt\n")
    ended = ending.ending_of(ValueError(message))
    assert ended["detail"] == "ValueError: sample 40 is corrupt (in DataLoader worker process 1)", ended
    assert ended["where"] == "data.py:10"
    plain = ending.ending_of(ValueError("bad value"))
    assert plain["detail"] == "ValueError: bad value"


def _graph_tensors_by_loop(value: object) -> list:
    """`holders._graph_tensors` as it was before its C-level pre-check: every item looked at."""
    import torch
    from collections import deque

    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, (list, tuple, deque)):
        return []
    found: list = []
    for item in list(value)[:10_000]:
        if isinstance(item, torch.Tensor):
            if item.grad_fn is not None:
                found.append(item)
        elif type(item) in (tuple, list):
            found += [part for part in item[:8] if isinstance(part, torch.Tensor) and part.grad_fn is not None]
    return found


@given(st.lists(st.sampled_from(["float", "int", "str", "none", "graph", "leaf", "param", "pair", "pair_leaf",
                                 "list", "set", "subclass", "proxy"]), max_size=30),
       st.sampled_from(["list", "tuple", "deque", "dict"]))
def test_holder_items_found_as_by_a_loop_over_every_item(kinds: list[str], container: str) -> None:
    """The pre-check that skips a history of plain numbers finds the tensors with a
    history that a loop over every item finds, in the same order, whatever the items."""
    from collections import deque

    import torch

    from sanitizer.detectors.holders import _graph_tensors

    class Marked(torch.Tensor):
        pass

    class Proxy:  # a lazy wrapper that says it is a tensor: `isinstance` believes its `__class__`
        grad_fn = "node"
        __class__ = property(lambda self: torch.Tensor)  # type: ignore[assignment]

    base = torch.ones(2, requires_grad=True)

    def make(kind: str) -> object:
        return {"float": 1.5, "int": 3, "str": "x", "none": None, "graph": base * 2, "leaf": torch.zeros(2),
                "param": torch.nn.Parameter(torch.zeros(1)), "pair": (base * 3, 0.5), "pair_leaf": (torch.ones(1), 2),
                "list": [base + 1], "set": {1, 2}, "subclass": (base * 4).as_subclass(Marked),
                "proxy": Proxy()}[kind]

    items = [make(kind) for kind in kinds]
    value: object = {"list": items, "tuple": tuple(items), "deque": deque(items),
                     "dict": {str(i): item for i, item in enumerate(items)}}[container]
    assert [id(t) for t in _graph_tensors(value)] == [id(t) for t in _graph_tensors_by_loop(value)]


def test_a_long_history_of_numbers_holds_no_tensor() -> None:
    import torch

    from sanitizer.detectors.holders import _graph_tensors

    history: list[object] = [float(i) for i in range(20_000)]
    assert _graph_tensors(history) == []
    tail = torch.ones(1, requires_grad=True) * 2
    history[9_999] = tail  # the last item looked at
    assert _graph_tensors(history) == [tail]
    history[9_999], history[10_000] = 0.0, tail  # beyond MAX_ITEMS: not looked at
    assert _graph_tensors(history) == []


class _ParamSink(_Collector):
    """The sink's questions about parameters, for a detector fed records by hand."""

    def named_parameters(self) -> list[tuple[str, object]]:
        return []

    def nonfinite_write_in(self, param: object, step: int) -> None:
        return None

    def param_label(self, param: object) -> str:
        return "layer.weight"

    param_name = param_label

    def param_module_name(self, param: object) -> None:
        return None


def test_a_weight_is_traced_back_over_steps_not_updates_when_many_optimizers_step() -> None:
    """Ten optimizers (one per layer) step every step: a weight that step 2's update left
    finite and step 3's found NaN without a gradient is named at step 2, though ten other
    updates ran since."""
    import torch

    from sanitizer.core.probe import UpdatedParams
    from sanitizer.detectors.nonfinite import NonfiniteDetector

    detector, sink, weights = NonfiniteDetector(), _ParamSink(), [torch.zeros(3) for _ in range(10)]
    for step in (1, 2, 3):
        record = _record(step + 1, 1.0)  # a step's read holds the updates of the step before
        record.grad_norms = [1.0]
        record.updates = [UpdatedParams(step, None, [w], [0.0], [], []) for w in weights]
        if step == 3:  # the first layer had no gradient, and was NaN as the step() began
            record.updates[0] = UpdatedParams(step, None, weights[:1], [math.nan], weights[:1], [math.nan])
        detector.on_step(record, sink)
    assert sink.events == [("nonfinite_param", 2)], sink.messages
    assert "after step 2, whose optimizer step() left it finite" in sink.messages[0], sink.messages


class _BufferSink(_Collector):
    def module_name(self, module: object) -> str:
        return "norm"


@pytest.mark.parametrize(("trail", "losses", "expected"), [
    ([(0, 1.0), (1, math.inf)], [1.0, 1.0], [("nonfinite_buffer", 3)]),  # the forward reading it: its consequence
    ([(0, 1.0), (1, 1.0)], [math.nan, 1.0], []),  # finite outputs, a NaN loss: the loss code's
    ([(0, 1.0), (1, 1.0)], [1.0, math.nan], []),  # finite outputs: dropped, a later NaN is another story
    ([(0, math.nan), (1, math.nan)], [1.0, 1.0], []),  # a NaN batch explains the outputs
])
def test_a_buffer_turned_nan_is_named_only_when_the_forward_reading_it_goes_non_finite(
        trail: list[tuple[int, float]], losses: list[float], expected: list[tuple[str, int]]) -> None:
    """A buffer found NaN as step 4's forward began (finite as step 3's did) is named, at
    step 3, only when step 4's forward gives non-finite module outputs from a finite batch;
    a NaN loss from finite outputs, or a NaN a step later, is not its doing."""
    from torch import nn

    from sanitizer.core.buffers import NonfiniteBuffer
    from sanitizer.core.probe import INPUT_SLOT
    from sanitizer.detectors.nonfinite_buffer import NonfiniteBufferDetector

    detector, sink = NonfiniteBufferDetector(), _BufferSink()
    found = _record(4, losses[0])
    found.trail = [(INPUT_SLOT if slot == 0 else slot, mag) for slot, mag in trail]
    found.nonfinite_buffers = [NonfiniteBuffer(nn.Identity(), "scale", math.nan, 3)]
    detector.on_step(found, sink)
    later = _record(5, losses[1])
    later.trail = [(INPUT_SLOT, 1.0), (1, math.nan if math.isnan(losses[1]) else 1.0)]
    detector.on_step(later, sink)
    assert sink.events == expected, sink.messages
    if expected:
        assert "written after step 3's forward began and before step 4's" in sink.messages[0], sink.messages


@pytest.mark.parametrize(("written_in", "taken_in"), [
    (([(0, 1.0), (1, math.nan)], [math.nan], [math.nan]), "module outputs"),  # an EMA of NaN activations
    (([(0, math.nan), (1, math.nan)], [math.nan], [math.nan]), "batch"),
    (([(0, 1.0), (1, 1.0)], [1.0], [math.inf]), "gradients"),  # copied from them by the script
    (([(0, 1.0), (1, 1.0)], [1.0], [1.0]), None),  # a finite step: the buffer's own update is the root
])
def test_a_buffer_written_in_a_step_already_non_finite_is_its_consequence(
        written_in: tuple[list[tuple[int, float]], list[float], list[float]], taken_in: str | None) -> None:
    """A buffer written during step 3 (found NaN as step 4's forward began) whose forward had
    already made non-finite values: it may have taken them in, and was said to come from an
    overflow or a division by zero of its own; now the message says what the step had already."""
    from torch import nn

    from sanitizer.core.buffers import NonfiniteBuffer
    from sanitizer.core.probe import INPUT_SLOT
    from sanitizer.detectors.nonfinite_buffer import NonfiniteBufferDetector

    detector, sink = NonfiniteBufferDetector(), _BufferSink()
    trail, losses, grads = written_in
    written = _record(3, losses[0])
    written.trail = [(INPUT_SLOT if slot == 0 else slot, mag) for slot, mag in trail]
    written.grad_norms = grads
    detector.on_step(written, sink)
    found = _record(4, math.nan)
    found.trail = [(INPUT_SLOT, 1.0), (1, math.nan)]
    found.nonfinite_buffers = [NonfiniteBuffer(nn.Identity(), "scale", math.nan, 3)]
    detector.on_step(found, sink)
    assert sink.events == [("nonfinite_buffer", 3)], sink.messages
    assert ("may have taken that in" in sink.messages[0]) == (taken_in is not None), sink.messages
    assert ("overflowed or divided by zero" in sink.messages[0]) == (taken_in is None), sink.messages
    if taken_in is not None:
        assert f"a step whose {taken_in} " in sink.messages[0], sink.messages


def test_a_buffer_state_dies_with_its_module() -> None:
    """A module whose buffer was -inf when first measured (by design: never measured again)
    dies, and a new one gets its id: keyed by that id, the new module's buffer inherited the
    old one's state and was never measured, so its NaN went unseen."""
    import gc

    import torch
    from torch import nn

    from sanitizer.core.buffers import BufferWatch

    class Holder(nn.Module):
        def __init__(self, fill: float) -> None:
            super().__init__()
            self.register_buffer("scale", torch.full((4,), fill))

    watch = BufferWatch()
    for _ in range(50):
        old = Holder(-math.inf)
        measure = watch.measure(old, 1)
        assert measure is not None and watch.judge(measure, float(measure.total)) == []
        old_id = id(old)
        del old, measure
        gc.collect()
        born = [Holder(1.0) for _ in range(8)]
        new = next((module for module in born if id(module) == old_id), None)
        if new is not None:
            break
    else:
        pytest.skip("no module got a dead one's id")
    measure = watch.measure(new, 2)
    assert measure is not None and watch.judge(measure, float(measure.total)) == []
    new.scale.fill_(math.nan)
    measure = watch.measure(new, 3)
    assert measure is not None
    found = watch.judge(measure, float(measure.total))
    assert [(item.owner, item.name, item.finite_at) for item in found] == [(new, "scale", 2)], found


def test_a_loss_spike_is_come_back_from_once_three_losses_in_a_row_are_back() -> None:
    """A loss spike of 60 over losses near 1.02: back at step 32 once 1.5, 1.2 and 1.1 are
    all under twice the median. A single 1.5 between the spike and 900, then NaN, is the
    loss swinging on its way to the NaN: not back; nor is a run that ends two losses
    after the spike."""
    from loss_series import EventSink

    def spike(after: list[float]) -> dict[str, object]:
        detector, sink = LossSpikeDetector(), EventSink()
        for step, loss in enumerate([1.0 + 0.01 * (i % 5) for i in range(30)] + [60.0, *after], start=1):
            detector.on_step(_record(step, loss), sink)  # type: ignore[arg-type]
        (event,) = [event for event in sink.events if event.kind == "loss_spike"]
        assert event.step == 31, sink.events
        return event.extra

    assert spike([1.5, 1.2, 1.1, 1.0])["recovered_step"] == 32
    assert "recovered_step" not in spike([1.5, 900.0, math.nan])
    assert "recovered_step" not in spike([1.5, 1.2])
    assert spike([1.5, 5.0, 1.2, 1.1, 1.0])["recovered_step"] == 34


def test_a_jump_that_ends_the_run_is_weighed_as_noise_only_against_few_losses_of_tiny_batches() -> None:
    """A run that ends on a loss 15 times its early level 1, 7.5 times the largest of the
    four losses before it (2, a jump the early level left out): diverged, as the blow-up
    rule alone says from four losses on. The third loss 30 times two losses of 1 is what
    batches of two give once in 496: noise on batches of 4 items or of a size not known,
    a divergence on batches of 256. A second loss 200 times the first is no divergence
    whatever the batch: a single loss is no level."""
    from loss_series import divergence_events

    (event,) = divergence_events([1.0, 2.0, 2.0, 2.0, 15.0])
    assert event.step == 5 and "the run ended there" in event.message, event.message
    assert divergence_events([1.0, 2.0, 2.0, 2.0, 9.0]) == []  # under 10 times the early level
    (event,) = divergence_events([1.0, 1.0, 30.0], batch_items=256)
    assert event.step == 3 and "the run ended there" in event.message, event.message
    assert divergence_events([1.0, 1.0, 30.0], batch_items=4) == []
    assert divergence_events([1.0, 1.0, 30.0]) == []
    assert divergence_events([1.0, 200.0], batch_items=256) == []


def test_a_reported_buffer_is_measured_again_once_finite_and_one_never_reported_is_not() -> None:
    """A buffer reported NaN is measured apart until the script resets it; then it rejoins
    the sum and its next breakage is found, dated from the step that found it finite again.
    One found non-finite and never reported (by design: a mask rebuilt with -inf) is not
    measured again, reset or not: a run with nothing wrong measures nothing more."""
    import torch
    from torch import nn

    from sanitizer.core.buffers import BufferWatch

    class Holder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("scale", torch.ones(4))
            self.register_buffer("mask", torch.zeros(4))

    def judged(step: int) -> list[tuple[str, int]]:
        measure = watch.measure(model, step)
        assert measure is not None
        values = [float(value) for value in measure.values()]
        return [(item.name, item.finite_at) for item in watch.judge_all([measure], values)]

    model, watch = Holder(), BufferWatch()
    assert judged(1) == []
    model.scale.fill_(math.nan)
    model.mask.fill_(-math.inf)
    found = watch.judge_all([watch.measure(model, 2)], [math.nan])
    assert [(item.name, item.finite_at) for item in found] == [("scale", 1), ("mask", 1)]
    found[0].watch_again()  # the scale was reported, the mask was not
    assert watch.measure(model, 3).broken_tensors == [model.scale]
    model.scale.fill_(1.0)
    model.mask.zero_()
    assert judged(4) == [] and judged(5) == []
    measure = watch.measure(model, 6)  # the scale back in the sum; the mask stays out
    assert measure.tensors == [model.scale] and measure.broken == [], measure
    model.scale.fill_(math.inf)
    assert judged(7) == [("scale", 5)]


def test_only_the_scripts_step_hooks_are_named() -> None:
    """A step hook of torch's own (the profiler's) or of another library is not the script's
    and is not named as what may have written a weight; a partial is named by its function."""
    import functools

    import torch.profiler

    from sanitizer.core.locations import is_user_code as _users_hook
    from sanitizer.core.session import _hook_label

    def clip_hook(optimizer, args, kwargs) -> None:
        return None

    library_hook = getattr(torch.profiler, "_optimizer_post_hook")
    assert not _users_hook(library_hook)
    assert _users_hook(clip_hook) and _users_hook(functools.partial(functools.partial(clip_hook)))
    assert _users_hook(lambda optimizer, args, kwargs: None)
    label = _hook_label(functools.partial(clip_hook))
    assert label.startswith("test_only_the_scripts_step_hooks_are_named.<locals>.clip_hook (") and "test_units.py:" in label


def _spike(kind: str, step: int, recovered: int | None = None) -> dict:
    return {"kind": kind, "step": step, "severity": "warning", "message": f"{kind} far above its median",
            **({"recovered_step": recovered} if recovered is not None else {})}


def test_each_episode_of_a_kind_is_judged_and_repeats_are_told_once() -> None:
    """Spikes come back from at steps 40 and 100 are one problem, with how many more; a
    spike at step 200 the loss never came back from is a problem of its own, listed before
    them (what lasted first), not a repeat of the first spike; NaN gradients at every step
    from 300 (30 of them, the report keeping 6) are one problem with 29 more."""
    from sanitizer.report.diagnosis import diagnose
    events = [_spike("loss_spike", 40, 42), _spike("grad_spike", 40, 42), _spike("loss_spike", 100, 101),
              _spike("grad_spike", 100, 101), _spike("loss_spike", 200), _spike("grad_spike", 200)]
    events += [{"kind": "nonfinite_grad", "step": step, "severity": "error", "message": "gradient of w is NaN"}
               for step in range(300, 306)]
    counts = {"loss_spike": 3, "grad_spike": 3, "nonfinite_grad": 30}
    problems = diagnose({"events": events, "summary": {"counts": counts}})
    assert [(problem.kind, problem.step) for problem in problems] == [
        ("loss_spike", 200), ("nonfinite_grad", 300), ("loss_spike", 40)], problems
    unrecovered, nan, came_back = problems
    assert not unrecovered.headline.endswith("more)") and unrecovered.symptoms == [
        "grad_spike at step 200: grad_spike far above its median"], unrecovered
    assert nan.headline.endswith("(+29 more)"), nan.headline
    assert came_back.headline.endswith("(+1 more)") and came_back.symptoms == [
        "grad_spike at step 40: grad_spike far above its median (+1 more)"], came_back


def _overflow(step: int, module: str, where: str = "train.py:52") -> dict:
    return {"kind": "nonfinite_activation", "step": step, "severity": "error", "module": module,
            "where": where, "message": f"output of {module} is inf"}


def test_roots_of_a_kind_at_different_lines_are_distinct_problems() -> None:
    """An fp16 run whose encoder's forward overflowed at step 30 and whose decoder, called
    at another line, overflowed at step 80 (each step skipped by the GradScaler, nothing
    following): two problems, one per line, not the decoder's told as a repeat of the
    encoder's. The same module overflowing at both steps is one problem with one more."""
    from sanitizer.report.diagnosis import diagnose
    apart = diagnose({"events": [_overflow(30, "encoder.layers.0.attn", "train.py:52"),
                                 _overflow(80, "decoder.head", "train.py:57")]})
    assert [(problem.kind, problem.step) for problem in apart] == [
        ("nonfinite_activation", 30), ("nonfinite_activation", 80)], apart
    assert not any(problem.headline.endswith("more)") for problem in apart), apart
    again = diagnose({"events": [_overflow(30, "decoder.head"), _overflow(80, "decoder.head")]})
    assert [(problem.kind, problem.step) for problem in again] == [("nonfinite_activation", 30)], again
    assert again[0].headline.endswith("(+1 more)"), again[0].headline


def test_layers_overflowing_at_one_line_are_one_problem() -> None:
    """Twelve attention layers overflowing one after the other, each at the model's call
    in the loop (one `where`): one problem told once with eleven more, not twelve."""
    from sanitizer.report.diagnosis import diagnose
    problems = diagnose({"events": [_overflow(10 + 5 * layer, f"encoder.layers.{layer}.attn")
                                    for layer in range(12)]})
    assert [(problem.kind, problem.step) for problem in problems] == [("nonfinite_activation", 10)], problems
    assert problems[0].headline.endswith("(+11 more)"), problems[0].headline


def test_a_probe_given_back_keeps_the_latest_eval_mode_call_last():
    """A held step given back to the one before it: a call site both used is the
    latest call again, where the eval-mode location looks for it."""
    from sanitizer.core.backward_steps import absorb
    from sanitizer.core.probe import EvalModeCall, StepProbe

    earlier, later = StepProbe(), StepProbe()
    earlier.eval_mode_calls[("train.py:10", 1)] = EvalModeCall("train.py:10", None)
    earlier.eval_mode_calls[("train.py:12", 1)] = EvalModeCall("train.py:12", None)
    later.eval_mode_calls[("train.py:10", 1)] = renewed = EvalModeCall("train.py:10", None)
    merged = absorb(earlier, later).eval_mode_calls
    assert list(merged) == [("train.py:12", 1), ("train.py:10", 1)]
    assert merged[("train.py:10", 1)] is renewed


def test_a_jump_whose_rise_is_in_the_oldest_block_of_the_climb_is_still_a_jump():
    """The largest rise in the first block of the climb, every later block high: no block
    comes before it to be low, so it is the jump (it was read as a spread rise: None)."""
    from sanitizer.detectors.divergence import DivergenceDetector, _Rise

    detector = DivergenceDetector()
    detector.block_medians = [2.4, 2.5, 2.5, 2.6, 2.6]
    detector._block_rises = [_Rise(300, 0.3, 2.4, 299, 2.4), None, None, None, None]
    assert detector._jump(0.3, 2.6) == (300, 2.4, 299)
    detector.block_medians = [2.4, 1.0, 2.5, 2.6, 2.6]  # a later block back down: spread, no jump
    assert detector._jump(0.3, 2.6) is None


def _saturated_steps(optimizer_ids: list[int]) -> list[str]:
    """The saturation messages of a run whose loss, 1.0 at first, sits at exactly 5.0 with
    zero gradients once each optimizer stepped, the optimizers of `optimizer_ids` in turn."""
    from sanitizer.detectors.saturation import SaturationDetector

    detector, sink = SaturationDetector(), _Collector()
    for step in range(1, 40):
        record = _record(step, 1.0 if step <= len(optimizer_ids) else 5.0)
        record.grad_norms = [1.0] if step <= len(optimizer_ids) else [0.0, 0.0]
        record.optimizer_id = optimizer_ids[step % len(optimizer_ids)]
        detector.on_step(record, sink)
    return sink.messages


def test_a_saturated_plateau_names_the_optimizer_only_when_several_take_turns():
    """A loss clamped at 5.0 with one optimizer: "the loss jumped", not "the loss of the
    same optimizer"; a GAN's two optimizers are told apart."""
    (message,) = _saturated_steps([1])
    assert message.startswith("the loss jumped from 1 to exactly 5 at step 2"), message
    (message,) = _saturated_steps([1, 2])
    assert message.startswith("the loss of the same optimizer jumped from 1 to exactly 5"), message
    assert "; the loss of the same optimizer jumped" in message, message
