"""Where a model left in eval mode is reported: at the call whose output the training loss
read, whichever tensor of that output it read (`_, window_logits = model(x)`, a dataclass
of outputs) and whichever of the calls made from that line (a recurrent cell called once
per hour, the loss reading all but the last), not at a metric's call after it."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

WINDOWS = [("activity_windows.py", "--frame-metric"), ("activity_windows.py", "--frame-metric", "--dataclass")]
PRELAUNCH += [*WINDOWS, ("activity_windows.py", "--frame-metric", "--fixed"),
              ("load_forecast_cell.py", "--probe"), ("load_forecast_cell.py", "--probe", "--fixed"),
              ("plain", "load_forecast_cell.py", "--probe")]


@pytest.mark.parametrize(("args", "training_call"), zip(WINDOWS, ["_, window_logits = model(x)",
                                                                 "window_logits = model(x).window_logits"]))
def test_the_call_is_found_by_the_output_the_loss_read(script_runs: ScriptRuns, args: tuple[str, ...],
                                                       training_call: str) -> None:
    """The model returns `(frame_logits, window_logits)` (or a dataclass of both) and the loss
    reads the second; a metric calls the model again, with gradients on, after the loss."""
    run = script_runs.get(*args)
    assert run.returncode == 0, run.stderr
    events = run.events("train_in_eval_mode")
    assert [(e["step"], e["where"], e["modules"]) for e in events] == [
        (1, f"activity_windows.py:{line_of('activity_windows.py', training_call)}", ["embed.2"])], events


def test_a_cell_called_each_hour_is_found_by_the_calls_the_loss_read(script_runs: ScriptRuns) -> None:
    """The loss reads the forecasts of the line's first 23 calls, none of its last; a probe
    day's forecasts, hour by hour from another line, come after it."""
    run = script_runs.get("load_forecast_cell.py", "--probe")
    assert run.returncode == 0, run.stderr
    assert run.stdout == script_runs.plain("load_forecast_cell.py", "--probe").stdout  # the run's numbers, unchanged
    events = run.events("train_in_eval_mode")
    training_call = line_of("load_forecast_cell.py", "forecast, state = model(day[:, hour], state)")
    assert [(e["step"], e["where"]) for e in events] == [(1, f"load_forecast_cell.py:{training_call}")], events


@pytest.mark.parametrize("script", ["activity_windows.py", "load_forecast_cell.py"])
def test_a_model_put_back_in_train_mode_is_quiet(script_runs: ScriptRuns, script: str) -> None:
    run = script_runs.get(script, "--frame-metric" if script == "activity_windows.py" else "--probe", "--fixed")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()
