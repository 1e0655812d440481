"""Where the sanitizer's own time goes in a step, measured inside a real run.

    python bench/sanitizer_cost.py                 # MLP, 400 steps, one torch thread
    python bench/sanitizer_cost.py --model transformer
    python bench/sanitizer_cost.py --device cuda --precision bf16   # the transformer, 32 x 256 tokens

The ratio that `sanitizer_overhead.py` prints moves by several percent between
runs of the same code on a shared machine; the sanitizer's own share of a step
is much smaller than that spread. This bench times the sanitizer's entry points
themselves (the forward hooks, the loss and backward observers, the optimizer's
pre- and post-step hooks) during an ordinary training run, step by step, and
prints the median per step of each. Those calls run between the step's big
kernels, with cold caches, so they cost several times what the same code costs
in a tight loop: only measuring them in place gives the real figure. It does not
see what the hooks cost torch outside them (a module call with global hooks takes
torch's slower path) nor any cache effect on the user's own kernels.
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections import defaultdict
from typing import Any, Callable

import torch
from torch.nn.modules import module as module_globals
from torch.optim import optimizer as optimizer_globals

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sanitizer import Sanitizer  # noqa: E402
from sanitizer.core import probe, session  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sanitizer_overhead as workloads  # noqa: E402

# (owner, attribute, label) of what the session calls; labels starting with spaces
# are parts of the line above them. The hooks themselves are timed as registered
# (see `_time_hooks`), wrappers included.
ENTRY_POINTS: list[tuple[Any, str, str]] = [
    (probe.StepProbe, "add_trail", "  of which the trail (both hooks)"),
    (session.Sanitizer, "on_loss_value", "functional loss observer"),
    (session.Sanitizer, "on_backward", "backward observer (before)"),
    (session.Sanitizer, "after_backward", "backward observer (after)"),
    (session, "squared_norms", "  of which the gradient read"),
    (session.Sanitizer, "_dispatch", "  of which the detectors"),
]
HOOKS: list[tuple[dict[int, Any], str]] = [
    (module_globals._global_forward_pre_hooks, "forward pre-hook"),
    (module_globals._global_forward_hooks, "forward hook"),
    (optimizer_globals._global_optimizer_pre_hooks, "optimizer pre-step hook"),
    (optimizer_globals._global_optimizer_post_hooks, "optimizer post-step hook"),
]
ORDER = ["forward pre-hook", "forward hook", "  of which the trail (both hooks)", "functional loss observer",
         "backward observer (before)", "backward observer (after)", "optimizer pre-step hook",
         "  of which the gradient read", "  of which the detectors", "optimizer post-step hook"]


def _time_hooks(spent: dict[str, float]) -> None:
    """Wrap the global hooks the session registered (the only ones in this process)."""
    for hooks, label in HOOKS:
        for key, hook in list(hooks.items()):
            hooks[key] = _timed(hook, label, spent)


def _timed(function: Callable[..., Any], label: str, spent: dict[str, float]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - start
    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=("mlp", "transformer"), default="mlp")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    parser.add_argument("--device", default="cpu",
                        help="cuda: the transformer on the GPU, timed with a synchronize after each step; "
                             "the hooks' figures are then the CPU time they take to launch their work")
    parser.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="fp32",
                        help="autocast dtype on the GPU (fp16 with a GradScaler)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = args.device
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    if device.startswith("cuda"):
        work = workloads.transformer(device, dtype, f"transformer-{args.precision}", batch=32, seq=256)
    else:
        work = workloads.mlp("cpu") if args.model == "mlp" else workloads.transformer("cpu", dtype)
    optimizer = torch.optim.AdamW(work.model.parameters(), lr=1e-4)
    spent: dict[str, float] = defaultdict(float)
    for owner, name, label in ENTRY_POINTS:
        setattr(owner, name, _timed(getattr(owner, name), label, spent))
    per_step: dict[str, list[float]] = defaultdict(list)
    step_times: list[float] = []
    with Sanitizer(report=None, stream=io.StringIO(), lint=False):
        _time_hooks(spent)
        for index in range(args.warmup + args.steps):
            spent.clear()
            start = time.perf_counter()
            workloads.train_step(work, optimizer, device)
            workloads.synchronize(device)
            elapsed = time.perf_counter() - start
            if index >= args.warmup:
                step_times.append(elapsed)
                for label in ORDER:
                    per_step[label].append(spent[label])
    step = statistics.median(step_times) * 1e6
    print(f"torch {torch.__version__}, {torch.get_num_threads()} torch threads, {work.name} on {device}, "
          f"{args.steps} steps after {args.warmup}: medians per step (wall clock)")
    total = 0.0
    for label in ORDER:
        value = statistics.median(per_step[label]) * 1e6
        total += 0.0 if label.startswith(" ") else value
        print(f"{label:<38}{value:>9.1f} us")
    print(f"{'the sanitizer, all entry points':<38}{total:>9.1f} us  ({100 * total / step:.1f}% of a "
          f"{step / 1e3:.2f} ms step under the sanitizer)")


if __name__ == "__main__":
    main()
