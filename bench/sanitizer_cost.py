"""Where the sanitizer's own time goes in a step, measured inside a real run.

    python bench/sanitizer_cost.py                 # MLP, 400 steps, one torch thread
    python bench/sanitizer_cost.py --model transformer
    python bench/sanitizer_cost.py --device cuda --precision bf16   # the transformer, 32 x 256 tokens
    python bench/sanitizer_cost.py --model tiny --steps 1000 --count-reads  # a 20-64-10 MLP; reads per step
    python bench/sanitizer_cost.py --model tiny --top-level-lines 3000  # the step at the end of a long script
    python bench/sanitizer_cost.py --frozen 0.5    # fine-tuning: the first half of the weights frozen
    python bench/sanitizer_cost.py --buffers 16    # 16 buffers of 1024 values (EMAs), measured each step

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
import inspect
import io
import os
import statistics
import sys
import textwrap
import time
from collections import defaultdict
from typing import Any, Callable

import torch
from torch.nn.modules import module as module_globals
from torch.optim import optimizer as optimizer_globals

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sanitizer import Sanitizer  # noqa: E402
from sanitizer.core import locations, probe, session  # noqa: E402

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
    (locations, "user_site", "  of which the user's line (all hooks)"),
]
HOOKS: list[tuple[dict[int, Any], str]] = [
    (module_globals._global_forward_pre_hooks, "forward pre-hook"),
    (module_globals._global_forward_hooks, "forward hook"),
    (optimizer_globals._global_optimizer_pre_hooks, "optimizer pre-step hook"),
    (optimizer_globals._global_optimizer_post_hooks, "optimizer post-step hook"),
]
ORDER = ["forward pre-hook", "forward hook", "  of which the trail (both hooks)", "functional loss observer",
         "backward observer (before)", "backward observer (after)", "optimizer pre-step hook",
         "  of which the gradient read", "  of which the detectors", "optimizer post-step hook",
         "  of which the user's line (all hooks)"]


# wall: elapsed time; cpu: this thread's CPU time, which a shared machine's other
# processes do not inflate (a hook preempted half-way counts only what it ran)
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
CLOCK = [time.perf_counter]


def _time_hooks(spent: dict[str, float]) -> None:
    """Wrap the global hooks the session registered (the only ones in this process)."""
    for hooks, label in HOOKS:
        for key, hook in list(hooks.items()):
            hooks[key] = _timed(hook, label, spent)


def _timed(function: Callable[..., Any], label: str, spent: dict[str, float]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        start = CLOCK[0]()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += CLOCK[0]() - start
    # not the script's code: the sanitizer looks past the timer for the script's line
    call.__code__ = call.__code__.replace(co_filename="<timer>")
    # and the session's own hook still: it tells its hooks from the script's by their module
    call.__module__ = getattr(function, "__module__", call.__module__)
    return call


def top_level_step(lines: int) -> Callable[[workloads.Workload, torch.optim.Optimizer, str], None]:
    """`workloads.train_step` as the code of a script's top level that `lines` lines (which
    do not run) precede: Python finds the line a frame is at by reading its code's line
    table from the start, so where the script's lines are looked up, a long script costs more."""
    body = textwrap.dedent("".join(inspect.getsource(workloads.train_step).splitlines(True)[1:]))
    unrun = "".join(f"    _line_{index} = {index}\n" for index in range(lines))
    code = compile(f"if not run:\n{unrun}{body}", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "long_script.py"), "exec")
    scope: dict[str, Any] = {"torch": torch, "nn": torch.nn, "run": True}

    def step(work: workloads.Workload, optimizer: torch.optim.Optimizer, device: str) -> None:
        scope.update(work=work, optimizer=optimizer, device=device)
        exec(code, scope)
    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=tuple(workloads.CPU_WORKLOADS), default="mlp")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    parser.add_argument("--device", default="cpu",
                        help="cuda: the transformer on the GPU, timed with a synchronize after each step; "
                             "the hooks' figures are then the CPU time they take to launch their work")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="cpu: the thread's CPU time (steadier on a loaded machine; one thread)")
    parser.add_argument("--history", type=int, default=0,
                        help="a list of this many floats held in the bench's frame, as a script's loss history")
    parser.add_argument("--top-level-lines", type=int, default=0,
                        help="run the step's code as a script's top level, after this many lines (not run): "
                             "the code whose lines the hooks look up each step is then as long as a script's")
    parser.add_argument("--count-reads", action="store_true",
                        help="after the timed steps, count the tensor-to-host reads per step (see `ReadCounter`)")
    parser.add_argument("--frozen", type=float, default=0.0,
                        help="share of the parameter tensors, the first ones, set requires_grad=False and still "
                             "handed to the optimizer (a frozen backbone): they get no gradient at any step")
    parser.add_argument("--buffers", type=int, default=0,
                        help="buffers of 1024 floats registered on the model (running statistics of its own), "
                             "which the sanitizer measures as each step's forward begins")
    parser.add_argument("--precision", choices=("fp32", "bf16", "fp16"), default="fp32",
                        help="autocast dtype on the GPU (fp16 with a GradScaler)")
    args = parser.parse_args()
    CLOCK[0] = CLOCKS[args.clock]
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = args.device
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    if device.startswith("cuda"):
        work = workloads.transformer(device, dtype, f"transformer-{args.precision}", batch=32, seq=256)
    else:
        work = workloads.CPU_WORKLOADS[args.model]("cpu")
    for index in range(args.buffers):
        work.model.register_buffer(f"statistic{index}", torch.ones(1024, device=device))
    params = list(work.model.parameters())
    for param in params[:round(args.frozen * len(params))]:
        param.requires_grad_(False)
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    spent: dict[str, float] = defaultdict(float)
    for owner, name, label in ENTRY_POINTS:
        setattr(owner, name, _timed(getattr(owner, name), label, spent))
    per_step: dict[str, list[float]] = defaultdict(list)
    step_times: list[float] = []
    history = [0.0] * args.history  # a script's `losses.append(loss.item())`, in a frame the leak check scans
    train_step = top_level_step(args.top_level_lines) if args.top_level_lines else workloads.train_step
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as running:
        _time_hooks(spent)
        for index in range(args.warmup + args.steps):
            spent.clear()
            start = CLOCK[0]()
            train_step(work, optimizer, device)
            workloads.synchronize(device)
            elapsed = CLOCK[0]() - start
            if index == args.warmup - 1:
                leak = next(d for d in running.detectors if d.name == "tensor_leak")
                scans, scan_seconds = leak.scans, leak.scan_seconds
            if index >= args.warmup:
                step_times.append(elapsed)
                for label in ORDER:
                    per_step[label].append(spent[label])
        if args.count_reads:
            with ReadCounter() as counter:
                for _ in range(50):
                    workloads.train_step(work, optimizer, device)
            workloads.synchronize(device)
    step = statistics.median(step_times) * 1e6
    mean_step = statistics.fmean(step_times) * 1e6
    print(f"torch {torch.__version__}, {torch.get_num_threads()} torch threads, {work.name} on {device}"
          f"{f' ({args.frozen:.0%} of its parameter tensors frozen)' if args.frozen else ''}, "
          f"{args.steps} steps after {args.warmup}: median and mean per step ({args.clock} clock; the mean also "
          f"counts work done every few steps, such as the leak check's scan every 5th)")
    print(f"{'':<38}{'median':>9}   {'mean':>9}")
    total = total_mean = 0.0
    for label in ORDER:
        value = statistics.median(per_step[label]) * 1e6
        mean = statistics.fmean(per_step[label]) * 1e6
        if not label.startswith(" "):
            total += value
            total_mean += mean
        print(f"{label:<38}{value:>9.1f} us{mean:>9.1f} us")
    print(f"{'the sanitizer, all entry points':<38}{total:>9.1f} us{total_mean:>9.1f} us  "
          f"({100 * total / step:.1f}% of a {step / 1e3:.2f} ms median step under the sanitizer, "
          f"{100 * total_mean / mean_step:.1f}% of its {mean_step / 1e3:.2f} ms mean)")
    scans, scan_seconds = leak.scans - scans, leak.scan_seconds - scan_seconds
    if scans:
        print(f"leak check: {scans} scans of the script's frames, {scan_seconds / scans * 1e6:.0f} us each "
              f"({len(history)} floats held in a list beside the bench's own per-step lists)")
    if args.count_reads:
        counter.print(50)


READS = ("item", "tolist", "numpy", "__float__", "__int__", "__bool__", "__index__")
SANITIZER_ROOT = os.path.dirname(os.path.abspath(probe.__file__)).rsplit(os.sep, 1)[0] + os.sep


class ReadCounter:
    """Counts the calls that copy a tensor's values to the host (`.item()`, `float(t)`,
    `bool(t)`, `.tolist()`...: each a host-device synchronization when the tensor is on
    a GPU), by who made them: the sanitizer's step read (`probe._read_floats`, which on
    a GPU stacks its values and reads them with one `tolist`; on CPU it calls `float()`
    on each, no synchronization to save), the sanitizer elsewhere, or the script and
    torch. Nested reads (a `tolist` calling `__float__`) count once."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = defaultdict(int)
        self.step_reads = 0
        self._saved: dict[str, Any] = {}
        self._depth = 0

    def __enter__(self) -> "ReadCounter":
        for name in READS:
            original = self._saved[name] = getattr(torch.Tensor, name)
            setattr(torch.Tensor, name, self._counting(original, name))
        original_read = self._saved["_read_floats"] = probe._read_floats

        def read_floats(tensors: Any) -> Any:
            self.step_reads += bool(tensors)
            return original_read(tensors)
        probe._read_floats = read_floats
        return self

    def __exit__(self, *exc: Any) -> None:
        probe._read_floats = self._saved.pop("_read_floats")
        for name, original in self._saved.items():
            setattr(torch.Tensor, name, original)

    def _counting(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        def read(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if self._depth == 0:
                self.counts[f"{self._caller()}: {name}"] += 1
            self._depth += 1
            try:
                return original(tensor, *args, **kwargs)
            finally:
                self._depth -= 1
        return read

    @staticmethod
    def _caller() -> str:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_name == "_read_floats":
                return "sanitizer, the step read"
            if frame.f_code.co_filename.startswith(SANITIZER_ROOT + "sanitizer" + os.sep):
                where = frame.f_code.co_filename[len(SANITIZER_ROOT):]
                return f"sanitizer, {where}:{frame.f_code.co_name}"
            frame = frame.f_back
        return "script and torch"

    def print(self, steps: int) -> None:
        print(f"tensor reads to the host per step ({steps} steps):")
        print(f"{'  step reads (probe._read_floats calls)':<60}{self.step_reads / steps:>8.2f}")
        for label, count in sorted(self.counts.items()):
            print(f"  {label:<58}{count / steps:>8.2f}")


if __name__ == "__main__":
    main()
