"""fp16 autocast: tiny gradient values are no underflow, zeros that an fp32 run
would not have are. The census is checked against a real fp32 run of the same
model and batch, and a healthy fp16 run (no GradScaler, as on CPU) is quiet."""
from __future__ import annotations

import importlib.util

import pytest
import torch
import torch.nn.functional as F

from sanitizer.core.underflow import flush_census
from sanitizer_harness import PRELAUNCH, SCRIPTS, ScriptRuns

PRELAUNCH += [("amp_fp16_lm.py",), ("amp_fp16_lm.py", "--loss-scale", "1e-3"), ("fp16_overflow.py",),
              ("fp16_overflow.py", "--dtype", "bfloat16")]


def _lm_module():
    spec = importlib.util.spec_from_file_location("amp_fp16_lm", SCRIPTS / "amp_fp16_lm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _grads(fp16: bool, loss_scale: float) -> list[torch.Tensor]:
    """Gradients of one step of the LM (embeddings left out, as the session does)."""
    torch.manual_seed(0)
    vocab = 8192
    model = _lm_module().TinyLM(vocab)
    idx = torch.randint(0, vocab, (8, 33))
    with torch.autocast("cpu", dtype=torch.float16, enabled=fp16):
        loss = F.cross_entropy(model(idx[:, :-1]).float().view(-1, vocab), idx[:, 1:].reshape(-1))
    (loss * loss_scale).backward()
    return [p.grad for name, p in model.named_parameters() if name not in ("tokens.weight", "positions.weight")]


@pytest.mark.parametrize("loss_scale", [1.0, 1e-2, 1e-5, 1e-12])  # 1e-12: fp16 flushes every value
def test_census_counts_what_fp32_keeps_and_fp16_lost(loss_scale: float) -> None:
    reference, half = _grads(False, loss_scale), _grads(True, loss_scale)
    total = sum(g.numel() for g in half)
    truly_flushed = sum(int(((h == 0) & (r != 0)).sum()) for r, h in zip(reference, half))
    flushed, tiny = (int(value) for value in flush_census(half))
    assert abs(flushed - truly_flushed) <= total // 1000  # a stray flushed value in a normal tensor is missed
    assert tiny / total > 0.8  # most values are tiny at every scale, in fp32 too:
    assert sum(int((r.abs() < 2.0 ** -14).sum()) for r in reference) / total > 0.8  # tiny is no symptom


def test_structural_zeros_of_a_gradient_far_from_the_flush_point_do_not_count() -> None:
    relu_rows = torch.randn(64, 64)
    relu_rows[::4] = 0.0  # units no sample activated
    relu_rows[1, ::3] = 0.0  # scattered zeros of a sparse batch
    assert int(flush_census([relu_rows])[0]) == 0
    tiny = relu_rows * 2.0 ** -20  # the same gradient where fp16 flushes
    assert int(flush_census([tiny])[0]) == int((tiny == 0).sum())


def test_healthy_fp16_autocast_is_quiet(script_runs: ScriptRuns) -> None:
    run = script_runs.get("amp_fp16_lm.py")
    assert run.returncode == 0, run.stderr
    assert run.events() == []
    state = run.report["detectors"]["grad_underflow"]
    assert state["samples"] == 3 and state["max_share"] < 0.01 and state["max_tiny_share"] > 0.5


def test_a_tiny_loss_under_fp16_flushes(script_runs: ScriptRuns) -> None:
    run = script_runs.get("amp_fp16_lm.py", "--loss-scale", "1e-3")
    event = run.first("grad_underflow")
    assert event["step"] == 6 and event["value"] > 0.5 and event["loss_scale"] is None
    assert "no loss scaling" in event["message"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_an_activation_that_overflows_float16_says_so(script_runs: ScriptRuns, dtype: str) -> None:
    """A batch 1e5 times too large: in float16 the first Linear's output overflows, and the
    event names it as float16 with the overflow's advice; bfloat16's range holds it."""
    run = script_runs.get("fp16_overflow.py", *(["--dtype", dtype] if dtype != "float16" else []))
    assert run.returncode == 0, run.stderr
    activations = run.events("nonfinite_activation")
    if dtype == "bfloat16":
        assert activations == [], activations
        return
    event = activations[0]
    assert (event["step"], event["module"], event.get("dtype")) == (5, "enc.0", "float16"), event
    assert "whose largest value is 65504" in event["message"], event
    problem = run.report["summary"]["problems"][0]
    assert problem["kind"] == "nonfinite_activation" and "float16" in problem["advice"], problem
