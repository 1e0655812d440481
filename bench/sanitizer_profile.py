"""What the sanitizer adds to a GPU step, counted by torch's profiler: kernel
launches, host-device synchronizations and device-to-host copies per step, plain
loop against the same loop under the sanitizer, and the sanitizer run's costliest
operators by their own CPU time.

    python bench/sanitizer_profile.py --device cuda --precision bf16
    python bench/sanitizer_profile.py --device cuda --precision fp16   # with a GradScaler

On a GPU the hooks' cost is the CPU time they take to launch their work, plus
every synchronization that makes the CPU wait for the GPU instead of queueing
the next kernels. Runs on CPU too (no launches, no synchronizations to count).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import statistics
import sys
import time
from collections import Counter

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sanitizer import Sanitizer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sanitizer_overhead as workloads  # noqa: E402

LAUNCH = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx")
SYNC = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")
COPY = ("cudaMemcpyAsync", "cudaMemcpy")


def profiled(work: workloads.Workload, device: str, steps: int, sanitized: bool) -> tuple[Counter[str], str]:
    optimizer = torch.optim.AdamW(work.model.parameters(), lr=1e-4)
    session = Sanitizer(report=None, stream=io.StringIO(), lint=False) if sanitized else contextlib.nullcontext()
    with session:
        for _ in range(5):
            workloads.train_step(work, optimizer, device)
        workloads.synchronize(device)
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.startswith("cuda") else [])
        with profile(activities=activities) as prof:
            for _ in range(steps):
                workloads.train_step(work, optimizer, device)
                workloads.synchronize(device)
    counts: Counter[str] = Counter()
    for event in prof.key_averages():
        for label, names in (("launches", LAUNCH), ("synchronizations", SYNC), ("copies", COPY)):
            if event.key in names:
                counts[label] += event.count
    counts["operators"] = sum(event.count for event in prof.key_averages() if event.key.startswith("aten::"))
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
    return counts, table


def launch_costs(device: str, dtype: torch.dtype | None) -> None:
    """Host time per call of the reductions the sanitizer may use (no synchronize
    inside the timed loop: what the CPU spends to queue each)."""
    activation = torch.randn(32, 256, 128, device=device, dtype=dtype or torch.float32)
    grads = [torch.randn(shape, device=device) for shape in [(512, 128), (128,)] * 15]
    candidates = {
        "aminmax (trail, CPU)": lambda: torch.aminmax(activation),
        "vector_norm inf (trail, GPU)": lambda: torch.linalg.vector_norm(activation, math.inf),
        "_foreach_norm, 30 grads": lambda: torch._foreach_norm(grads, 2),
        "_foreach_norm, 30 grads, dtype=": lambda: torch._foreach_norm(grads, 2, dtype=torch.float32),
    }
    print("\nhost time per call (median of 5 x 200 calls):")
    for label, call in candidates.items():
        times = []
        for _ in range(5):
            workloads.synchronize(device)
            start = time.perf_counter()
            for _ in range(200):
                call()
            times.append((time.perf_counter() - start) / 200)
            workloads.synchronize(device)
        print(f"  {label:<34}{statistics.median(times) * 1e6:8.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="bf16")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.manual_seed(0)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    results = {}
    for sanitized in (False, True):
        work = workloads.transformer(args.device, dtype, f"transformer-{args.precision}", batch=32, seq=256)
        results[sanitized] = profiled(work, args.device, args.steps, sanitized)
    print(f"torch {torch.__version__}, transformer-{args.precision} on {args.device}, {args.steps} profiled steps")
    print(f"{'per step':<20}{'plain':>10}{'sanitizer':>12}")
    for label in ("operators", "launches", "synchronizations", "copies"):
        plain, sanitized = (results[flag][0][label] / args.steps for flag in (False, True))
        print(f"{label:<20}{plain:>10.1f}{sanitized:>12.1f}")
    launch_costs(args.device, dtype)
    print("\nunder the sanitizer, by self CPU time:")
    print(results[True][1])


if __name__ == "__main__":
    main()
