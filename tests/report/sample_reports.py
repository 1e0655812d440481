"""Sample reports for the report viewer tests, generated rather than stored."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

HOSTILE = '<script>alert("pwned")</script><img src="https://evil.example/x.png">'


def make_report(steps: int = 1200, rank: int = 0, world_size: int = 1, seed: int = 0) -> dict:
    """A realistic faulty run: a gradient spike, a loss spike, a leak, then NaN."""
    rng = random.Random(seed + rank)
    nan_step = steps - steps // 20
    spike_step = steps * 2 // 5
    series: dict[str, list] = {"step": [], "loss": [], "grad_norm": [], "loss_scale": [], "memory_bytes": []}
    scale = 2.0**16
    for step in range(1, steps + 1):
        loss = 2.5 * math.exp(-step / (steps / 4)) + 0.4 + rng.gauss(0, 0.03) + 0.02 * rank
        grad = 1.2 * math.exp(-step / steps) + abs(rng.gauss(0, 0.05))
        if step == spike_step:
            loss, grad = loss * 6, grad * 40
        if step % max(steps // 8, 1) == 0:
            scale /= 2
        series["step"].append(step)
        series["loss"].append(None if step >= nan_step else round(loss, 5))
        series["grad_norm"].append(None if step >= nan_step else round(grad, 5))
        series["loss_scale"].append(scale)
        series["memory_bytes"].append(int(1.5e9 + 4e5 * step + rng.random() * 2e7))
    eval_every = max(steps // 12, 1)
    series["eval_step"] = list(range(eval_every, nan_step, eval_every))
    series["eval_loss"] = [round(0.5 + 2.5 * math.exp(-s / (steps / 4)) + 0.1, 4) for s in series["eval_step"]]
    events = [
        {"kind": "grad_spike", "severity": "warning", "step": spike_step, "rank": rank,
         "message": "gradient norm 40x its running median", "module": "encoder.layers.3.attn",
         "param": None, "value": 48.1, "where": "train.py:57", "baseline": 1.2},
        {"kind": "loss_spike", "severity": "warning", "step": spike_step, "rank": rank,
         "message": "loss 6x its running median", "module": None, "param": None, "value": 9.3,
         "where": "train.py:55"},
        {"kind": "memory_growth", "severity": "warning", "step": steps // 2, "rank": rank,
         "message": "memory grows 400 KB per step", "value": None, "where": "train.py:60"},
        {"kind": "nonfinite_loss", "severity": "error", "step": nan_step, "rank": rank,
         "message": HOSTILE, "module": "encoder.layers.3.attn", "param": None, "value": "nan",
         "where": "train.py:55", "culprit": "encoder.layers.3.attn.softmax"},
        {"kind": "unused_parameter", "severity": "info", "step": None, "rank": rank,
         "message": "head.bias never received a gradient", "param": "head.bias"},
    ]
    return {
        "schema": 1, "tool": "sanitizer", "version": "0.1.0", "script": "train.py",
        "argv": ["train.py", "--lr", "3e-4", "--note", "<b>bold</b>"], "rank": rank,
        "world_size": world_size, "device": "cpu", "exit_code": 1, "steps": steps,
        "ending": {"how": "exception", "where": "train.py:58",
                   "detail": "RuntimeError: CUDA error: an illegal memory access was encountered"},
        "duration_s": steps * 0.07, "events": events, "series": series,
        "summary": {"counts": {"grad_spike": 1, "loss_spike": 1, "memory_growth": 1,
                               "nonfinite_loss": 1, "unused_parameter": 1}},
    }


def make_merged(world_size: int = 4, steps: int = 600) -> dict:
    ranks = [make_report(steps, rank, world_size) for rank in range(world_size)]
    events = [event for rank in ranks for event in rank["events"]]
    return {"schema": 1, "tool": "sanitizer", "merged": True, "ranks": ranks, "events": events}


def write_json(path: Path, report: dict) -> Path:
    path.write_text(json.dumps(report), encoding="utf-8")
    return path
