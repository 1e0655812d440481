"""The sanitizer on a CUDA device: fp16 autocast with torch's CUDA GradScaler, bf16,
float64, torch.compile with inductor, the GPU allocator's memory counter. Each run
is compared with the same script under plain `python`: the losses of every step and
the final weights must be bit for bit the same.

These run only where torch sees a GPU; the CPU paths of the same detectors are
tested everywhere (test_fp16_autocast, test_optimization, test_resources)."""
from __future__ import annotations

import pytest
import torch

from sanitizer_harness import PRELAUNCH, Run, ScriptRuns, line_of

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

SCRIPT = "cuda_train.py"
STEPS = 30
HEALTHY = {
    "fp16-scaler": ("--precision", "fp16", "--scaler"),
    "bf16": ("--precision", "bf16"),
    "fp64": ("--precision", "fp64"),
    "fp16-scaler-compiled": ("--precision", "fp16", "--scaler", "--compile"),
}
FAULTS = {
    "overflow": ("--precision", "fp16", "--scaler", "--fault", "overflow"),
    "tiny-loss": ("--precision", "fp16", "--fault", "tiny-loss"),
    "nan-fp32": ("--fault", "nan"),
    "nan-fp16-scaler": ("--precision", "fp16", "--scaler", "--fault", "nan"),
    "leak": ("--fault", "leak"),
    "growth": ("--fault", "growth"),
}

if torch.cuda.is_available():
    PRELAUNCH += [(SCRIPT, *args) for args in [*HEALTHY.values(), *FAULTS.values()]]
    PRELAUNCH += [("plain", SCRIPT, *args) for args in HEALTHY.values()]


def _run(script_runs: ScriptRuns, args: tuple[str, ...]) -> Run:
    run = script_runs.get(SCRIPT, *args)
    assert run.returncode == 0, run.stderr
    assert run.report is not None and run.report["device"].startswith("cuda")
    assert not run.events("sanitizer_error"), run.events("sanitizer_error")
    return run


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_gpu_run_is_quiet_and_unchanged(script_runs: ScriptRuns, name: str) -> None:
    run = _run(script_runs, HEALTHY[name])
    plain = script_runs.plain(SCRIPT, *HEALTHY[name])
    assert plain.returncode == 0, plain.stderr
    assert run.events() == []
    assert run.stdout == plain.stdout  # every step's loss and the final weights, as hex floats
    assert run.report["steps"] == STEPS
    memory = run.report["series"]["memory_bytes"]
    assert len(memory) == STEPS and all(value is not None and value > 0 for value in memory)


def test_cuda_grad_scaler_is_read(script_runs: ScriptRuns) -> None:
    run = _run(script_runs, HEALTHY["fp16-scaler"])
    scales = [value for value in run.report["series"]["loss_scale"] if value is not None]
    assert scales and scales[0] == 2.0 ** 16
    underflow = run.report["detectors"]["grad_underflow"]
    assert underflow["samples"] > 0 and underflow["max_share"] < 0.01


def test_forward_overflow_under_the_cuda_scaler(script_runs: ScriptRuns) -> None:
    run = _run(script_runs, FAULTS["overflow"])
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 1 and activation["culprit"] == "blocks.1"
    collapse = run.first("scale_collapse")
    assert collapse["severity"] == "error" and collapse["initial_scale"] == 2.0 ** 16
    assert run.events("nonfinite_grad") == []  # skipped steps are counted, not reported
    assert run.report["skipped_steps"] == STEPS
    problems = run.report["summary"]["problems"]  # the overflow is the cause, the collapse its symptom
    assert [problem["kind"] for problem in problems] == ["nonfinite_activation"]


def test_fp16_without_a_scaler_flushes_on_the_gpu(script_runs: ScriptRuns) -> None:
    run = _run(script_runs, FAULTS["tiny-loss"])
    event = run.first("grad_underflow")
    assert event["value"] > 0.5 and event["loss_scale"] is None
    assert run.report["summary"]["problems"][0]["kind"] == "grad_underflow"


@pytest.mark.parametrize("name", ["nan-fp32", "nan-fp16-scaler"])
def test_nan_culprit_on_the_gpu(script_runs: ScriptRuns, name: str) -> None:
    run = _run(script_runs, FAULTS[name])
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 6 and loss["module"] == "blocks.1.proj"
    assert run.report["summary"]["problems"][0]["step"] == 6


def test_graph_kept_across_steps_on_the_gpu(script_runs: ScriptRuns) -> None:
    run = _run(script_runs, FAULTS["leak"])
    event = run.first("tensor_leak")
    assert event["holder"] == "total"
    assert event["where"] == f"{SCRIPT}:{line_of(SCRIPT, 'total += loss', exact=True)}"


def test_gpu_memory_growth_is_read_from_the_allocator(script_runs: ScriptRuns) -> None:
    run = _run(script_runs, FAULTS["growth"])
    event = run.first("memory_growth")
    assert event["value"] > 16 * 2 ** 20  # the allocator's counter: judged on 16 MiB, not the RSS's 64
    assert run.events("tensor_leak") == []
    memory = run.report["series"]["memory_bytes"]
    assert memory[-1] - memory[0] >= (STEPS - 1) * 16 * 2 ** 20
