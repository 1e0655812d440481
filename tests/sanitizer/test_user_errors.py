"""The script's own errors read as under plain python: no sanitizer frame in the
traceback, wherever the error passes through a watched call; `show | head` stops
quietly; ratios in messages stay readable."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sanitizer.detectors.spikes import LossSpikeDetector
from sanitizer_harness import FRESH, PRELAUNCH, ROOT, ScriptRuns, environment, run_sanitizer

PLACES = {"dataset": "KeyError: 'sample 17 is missing from the index'",
          "loss": "ValueError: Expected input batch_size (8) to match target batch_size (7).",
          "backward": "ArithmeticError: custom backward cannot handle this batch",
          "closure": "FloatingPointError: closure refused the batch",
          "scaler": "RuntimeError: optimizer state is corrupt",
          "anomaly": "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output."}
PRELAUNCH += [entry for place in PLACES for entry in (("user_errors.py", place), ("plain", "user_errors.py", place))]
WARNINGS = ("default", "module", "error", "compiled")
PRELAUNCH += [entry for way in WARNINGS for entry in (("user_warnings.py", way), ("plain", "user_warnings.py", way))]
FRESH.update({"user_errors.py", "user_warnings.py"})  # tracebacks compared with plain python's, frame by frame


def _traceback(stderr: str, last_line: str) -> str:
    start = stderr.index("Traceback (most recent call last):")
    return stderr[start:stderr.index(last_line, start) + len(last_line)]


@pytest.mark.parametrize("place", sorted(PLACES))
def test_traceback_is_the_plain_one(script_runs: ScriptRuns, place: str) -> None:
    run = script_runs.get("user_errors.py", place)
    plain = script_runs.plain("user_errors.py", place)
    assert run.returncode == plain.returncode == 1, run.stderr
    traceback = _traceback(run.stderr, PLACES[place])
    assert traceback == _traceback(plain.stderr, PLACES[place])
    assert "sanitizer" not in traceback.replace("tests/sanitizer/scripts", "")
    assert run.report is not None and run.report["exit_code"] == 1 and run.report["steps"] == 2


def test_the_forward_stack_of_an_anomaly_is_the_plain_one(script_runs: ScriptRuns) -> None:
    """Under `set_detect_anomaly(True)` torch prints, before the error, the stack of the forward
    call that made the failing node, recorded when the node was made: inside the sanitizer's
    wrapper of `F.cross_entropy`, below its runner's frames. It showed both."""
    run = script_runs.get("user_errors.py", "anomaly")
    plain = script_runs.plain("user_errors.py", "anomaly")
    own = "\n".join(line for line in run.stderr.splitlines() if not line.startswith("sanitizer:"))
    forward = own[:own.index(PLACES["anomaly"])]
    assert "Traceback of forward call that caused the error:" in forward, run.stderr
    assert forward == plain.stderr[:plain.stderr.index(PLACES["anomaly"])], run.stderr
    assert "sanitizer" not in forward.replace("tests/sanitizer/scripts", ""), forward


@pytest.mark.parametrize("way", WARNINGS)
def test_warnings_read_as_the_plain_ones(script_runs: ScriptRuns, way: str) -> None:
    """A warning torch raises inside a call the sanitizer wraps names the script's
    line, is shown once per line, and obeys the script's filters on its module."""
    run = script_runs.get("user_warnings.py", way)
    plain = script_runs.plain("user_warnings.py", way)
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout)
    own = [line for line in run.stderr.splitlines() if not line.startswith("sanitizer:")]
    if way == "compiled":
        # compiling resets the warnings' once-per-line memory a number of times that
        # depends on torch's compile cache (cold or warm), in plain runs too
        assert sorted(set(own)) == sorted(set(plain.stderr.splitlines()))
    else:
        assert own == plain.stderr.splitlines()
    assert ("lr_scheduler.step()" in plain.stderr) == (way != "module")


def test_show_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    report = tmp_path / "spikes.json"
    run_sanitizer(["spikes.py"], report)
    show = subprocess.Popen([sys.executable, "-m", "sanitizer", "show", str(report)], cwd=ROOT,
                            env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert show.stdout is not None and show.stderr is not None
    show.stdout.close()  # the reader leaves before the first line, as `| head -0` does
    stderr = show.stderr.read().decode()
    assert show.wait(timeout=60) == 1
    assert stderr == ""
    head = subprocess.run(f"{sys.executable} -m sanitizer show {report} | head -1", shell=True, cwd=ROOT,
                          env=environment(), capture_output=True, text=True, timeout=60)
    assert len(head.stdout.splitlines()) == 1 and "Error" not in head.stderr


@pytest.mark.parametrize(("value", "median", "ratio"), [(7.959e6, 4.287, "1.86e+6 times"),
                                                       (1.01e28, 1.0, "1.01e+28 times"),
                                                       (12.0, 4.0, "3 times")])
def test_spike_ratio_is_readable(value: float, median: float, ratio: str) -> None:
    messages: list[str] = []

    class Session:
        def emit(self, kind: str, step: int, message: str, **fields: object) -> None:
            messages.append(message)

    class Record:
        step = 40
        loss_sites = ["train.py:18"]
        optimizer_id = None
        lr = None

    detector = LossSpikeDetector()
    detector._report(Record(), Session(), value, median, 0.1, 20)  # type: ignore[arg-type]
    assert f" is {ratio} its median " in messages[0]
