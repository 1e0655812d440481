"""Per-step overhead of the sanitizer against the plain loop and against anomaly mode.

    python bench/sanitizer_overhead.py                     # CPU: MLP and small transformer
    python bench/sanitizer_overhead.py --device cuda       # GPU: transformer in bf16 and fp16+GradScaler

Modes run side by side in one process, on the same model, in interleaved
repetitions (the order shuffled each repetition with a fixed seed); each
repetition times every step of a block after a few untimed warm-up steps
(the sanitizer's one-off model scan happens there) and takes the block's median
step time. Per mode: the median block time over repetitions, and the median
(with quartiles) of its per-repetition ratio to the plain block of the same
repetition.
The sanitizer runs with its default checks and writes no report.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import torch
from torch import nn
from torch.nn.modules import module as module_globals
from torch.optim import optimizer as optimizer_globals

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sanitizer import Sanitizer  # noqa: E402

MODES = ("plain", "sanitizer", "anomaly")
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class Workload:
    name: str
    model: nn.Module
    batch: Callable[[], tuple[torch.Tensor, torch.Tensor]]
    dtype: torch.dtype | None  # autocast dtype, None for fp32
    scaler: torch.amp.GradScaler | None


def mlp(device: str) -> Workload:
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
    return Workload("mlp", model, lambda: (torch.randn(128, 512, device=device),
                                            torch.randint(0, 10, (128,), device=device)), None, None)


def tiny(device: str) -> Workload:
    """A loop so small (20-64-10, batch 32) that the sanitizer's per-step Python shows."""
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
    return Workload("tiny-mlp", model, lambda: (torch.randn(32, 20, device=device),
                                                 torch.randint(0, 10, (32,), device=device)), None, None)


def cnn(device: str) -> Workload:
    """A small CNN on 32x32 images, batch 64 (two conv layers, two linear)."""
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(32 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
    return Workload("cnn", model, lambda: (torch.randn(64, 3, 32, 32, device=device),
                                            torch.randint(0, 10, (64,), device=device)), None, None)


CPU_WORKLOADS: dict[str, Callable[[str], Workload]] = {
    "mlp": mlp, "transformer": lambda device: transformer(device), "tiny": tiny, "cnn": cnn}


class TinyTransformer(nn.Module):
    def __init__(self, vocab: int = 1000, width: int = 128, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerEncoderLayer(width, nhead=4, dim_feedforward=4 * width, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.encoder(self.embed(tokens))))


def transformer(device: str, dtype: torch.dtype | None = None, name: str = "transformer",
                batch: int = 16, seq: int = 64, width: int = 128, layers: int = 2) -> Workload:
    model = TinyTransformer(width=width, layers=layers).to(device)
    scaler = torch.amp.GradScaler(device) if dtype == torch.float16 else None

    def make() -> tuple[torch.Tensor, torch.Tensor]:
        tokens = torch.randint(0, 1000, (batch, seq), device=device)
        return tokens, torch.roll(tokens, -1, dims=1)
    return Workload(name, model, make, dtype, scaler)


def train_step(work: Workload, optimizer: torch.optim.Optimizer, device: str) -> None:
    x, y = work.batch()
    with torch.autocast(device.split(":")[0], dtype=work.dtype, enabled=work.dtype is not None):
        out = work.model(x)
        loss = nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    if work.scaler is not None:
        work.scaler.scale(loss).backward()
        work.scaler.step(optimizer)
        work.scaler.update()
    else:
        loss.backward()
        optimizer.step()


@contextlib.contextmanager
def mode_context(mode: str) -> Iterator[None]:
    if mode == "sanitizer":
        # per-step overhead only: the one-off lint of the script (a background thread
        # after the first step) would land in whichever block it overlaps
        with Sanitizer(report=None, stream=io.StringIO(), lint=False):
            yield
    elif mode == "anomaly":
        with torch.autograd.set_detect_anomaly(True):
            yield
    elif mode == "empty-hooks":  # what torch's hooked call paths cost by themselves
        with contextlib.ExitStack() as stack:
            stack.enter_context(module_globals.register_module_forward_pre_hook(lambda *args: None))
            stack.enter_context(module_globals.register_module_forward_hook(lambda *args: None))
            stack.enter_context(optimizer_globals.register_optimizer_step_pre_hook(lambda *args: None))
            stack.enter_context(optimizer_globals.register_optimizer_step_post_hook(lambda *args: None))
            yield
    else:
        yield


def time_block(work: Workload, optimizer: torch.optim.Optimizer, device: str, mode: str,
               warmup: int, steps: int, clock: Callable[[], float]) -> float:
    """Median step time of one block; on CUDA each step ends with a synchronize in every mode."""
    with mode_context(mode):
        for _ in range(warmup):
            train_step(work, optimizer, device)
        synchronize(device)
        times = []
        for _ in range(steps):
            start = clock()
            train_step(work, optimizer, device)
            synchronize(device)
            times.append(clock() - start)
        return statistics.median(times)


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def measure(work: Workload, device: str, reps: int, warmup: int, steps: int,
            clock: Callable[[], float], modes: tuple[str, ...] = MODES) -> dict[str, list[float]]:
    """Each mode's block medians, one per repetition (index i: repetition i)."""
    optimizer = torch.optim.AdamW(work.model.parameters(), lr=1e-4)
    order = random.Random(0)
    samples: dict[str, list[float]] = {mode: [] for mode in modes}
    time_block(work, optimizer, device, "plain", warmup, steps, clock)  # first-touch allocations
    for _ in range(reps):
        shuffled = list(modes)
        order.shuffle(shuffled)
        for mode in shuffled:
            samples[mode].append(time_block(work, optimizer, device, mode, warmup, steps, clock))
    return samples


def paired_ratios(samples: dict[str, list[float]], mode: str) -> tuple[float, float, float]:
    """Median and quartiles of `mode`'s time over the plain loop's, repetition by
    repetition: a slow minute of a shared machine slows both blocks of a repetition,
    so the paired ratio is steadier than the ratio of two medians."""
    ratios = [run / plain for run, plain in zip(samples[mode], samples["plain"])]
    if len(ratios) < 2:
        return ratios[0], ratios[0], ratios[0]
    low, middle, high = statistics.quantiles(ratios, n=4)
    return middle, low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: elapsed time; cpu: this process's CPU time, which other "
                             "processes on a shared machine do not inflate (use with --threads 1)")
    parser.add_argument("--empty-hooks", action="store_true",
                        help="diagnosis: also time the loop with global module and optimizer hooks "
                             "that do nothing (torch's hooked call paths, none of the sanitizer's work)")
    parser.add_argument("--gpu-bound", action="store_true",
                        help="with --device cuda: also a transformer large enough that the GPU, not "
                             "the launching CPU, sets the step time (width 1024, 8 layers, 16 x 512 tokens)")
    parser.add_argument("--models", default="mlp,transformer",
                        help=f"on CPU, comma-separated, of {', '.join(CPU_WORKLOADS)}")
    parser.add_argument("--without-trail", action="store_true",
                        help="diagnosis only: the sanitizer with its forward tracer doing nothing (no "
                             "magnitude trail, no culprit module), to see what the trail costs")
    args = parser.parse_args()
    if args.without_trail:
        from sanitizer.core.tracing import ForwardTracer

        ForwardTracer.before_forward = lambda self, module, inputs: None  # type: ignore[method-assign]
        ForwardTracer.after_forward = lambda self, module, inputs, output: None  # type: ignore[method-assign]
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.device.startswith("cuda"):
        works = [transformer(args.device, torch.bfloat16, "transformer-bf16", batch=32, seq=256),
                 transformer(args.device, torch.float16, "transformer-fp16-scaler", batch=32, seq=256)]
        if args.gpu_bound:
            works.append(transformer(args.device, torch.bfloat16, "large-transformer-bf16", batch=16, seq=512,
                                     width=1024, layers=8))
    else:
        works = [CPU_WORKLOADS[name](args.device) for name in args.models.split(",")]
    print(f"torch {torch.__version__}, python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cpus, {torch.get_num_threads()} torch threads, device {args.device}"
          + (f" ({torch.cuda.get_device_name()})" if args.device.startswith("cuda") else ""))
    print(f"{args.reps} interleaved repetitions x {args.steps} timed steps (after {args.warmup} warm-up steps), "
          f"medians, {args.clock} clock")
    print("ratio: median of the per-repetition ratios to the plain loop [quartiles]")
    if args.without_trail:
        print("DIAGNOSIS: the sanitizer runs without its forward tracer (not the default)")
    print(f"{'model':<24}{'plain ms':>10}{'sanitizer ms':>14}{'ratio':>22}{'anomaly ms':>12}{'ratio':>22}")
    modes = MODES + (("empty-hooks",) if args.empty_hooks else ())
    for work in works:
        samples = measure(work, args.device, args.reps, args.warmup, args.steps, CLOCKS[args.clock], modes)
        times = {mode: statistics.median(values) * 1e3 for mode, values in samples.items()}
        print(f"{work.name:<24}{times['plain']:>10.2f}{times['sanitizer']:>14.2f}"
              f"{_ratio(paired_ratios(samples, 'sanitizer')):>22}{times['anomaly']:>12.2f}"
              f"{_ratio(paired_ratios(samples, 'anomaly')):>22}")
        if args.empty_hooks:
            print(f"{'  empty hooks':<24}{'':>10}{times['empty-hooks']:>14.2f}"
                  f"{_ratio(paired_ratios(samples, 'empty-hooks')):>22}")


def _ratio(figures: tuple[float, float, float]) -> str:
    middle, low, high = figures
    return f"{middle:.3f} [{low:.3f}, {high:.3f}]"


if __name__ == "__main__":
    main()
