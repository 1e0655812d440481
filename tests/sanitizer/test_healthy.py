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


PRELAUNCH += [("gan_discriminator_wins.py", mode) for mode in ("gradual", "fast")]


@pytest.mark.parametrize("mode, d_below, g_above", [("gradual", 0.35, 1.6), ("fast", 0.05, 4.5)])
def test_a_discriminator_winning_gradually_is_no_fault(script_runs: ScriptRuns, mode: str, d_below: float,
                                                        g_above: float) -> None:
    """A GAN whose discriminator's loss falls towards 0 while the generator's climbs, step
    after step: no divergence (the generator's loss rises because the other model wins),
    no overfitting (the discriminator scores held-out points as well as its batches), and
    nothing else: from losses and gradients, a discriminator that has won for good looks
    as one that leads for a while, as a healthy GAN's does."""
    run = script_runs.get("gan_discriminator_wins.py", mode)
    assert run.returncode == 0, run.stderr
    last = run.stdout.splitlines()[-1].split()
    assert float(last[2]) < d_below and float(last[4]) > g_above, run.stdout  # the discriminator did win
    assert run.events() == [], run.events()
    assert run.report["detectors"]["fitting"]["verdict"] is None
