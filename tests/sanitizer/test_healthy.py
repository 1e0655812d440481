"""Every fault script has a healthy twin (`healthy` argument) that must raise no error."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns

TWINS = ["nonfinite_culprit.py", "nonfinite_backward.py", "nonfinite_input.py", "nonfinite_param.py",
         "spikes.py", "fp16_scaler.py", "grad_underflow.py", "vanishing_grad.py", "tensor_leak.py",
         "memory_growth.py", "unused_parameter.py", "param_not_in_optimizer.py",
         "dataloader_bound.py", "fitting.py"]
PRELAUNCH += [(script, "healthy") for script in TWINS]


@pytest.mark.parametrize("script", TWINS)
def test_healthy_twin_reports_nothing(script_runs: ScriptRuns, script: str) -> None:
    run = script_runs.get(script, "healthy")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()
    assert run.report["steps"] > 0
    assert "sanitizer: no problems found" in run.stderr
