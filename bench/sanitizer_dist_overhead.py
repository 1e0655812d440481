"""Cost of the sanitizer's cross-rank replica check at 2 ranks on CPU (gloo).

    python bench/sanitizer_dist_overhead.py            # launches torchrun itself, prints a table

Each rank builds a DDP MLP and trains it; around each optimizer step the
`rank_divergence` detector's `on_step` is timed on its own (fingerprint, digest,
and every `every` steps a store round), for the default period and for an
exchange at every step. Bytes are what one rank sends to the store per exchange.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS = 200
SIZES = {"small (4 tensors, 8.4k params)": (2, 64, 64), "mlp (16 tensors, 2.1M params)": (8, 512, 512)}


def worker(out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel

    from sanitizer.detectors.rank_divergence import RankDivergenceDetector

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    results = []
    for label, (layers, width, batch) in SIZES.items():
        blocks = [nn.Linear(width, width) if i % 2 == 0 else nn.ReLU() for i in range(2 * layers)]
        ddp = DistributedDataParallel(nn.Sequential(*blocks))
        optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-4)
        for every in (50, 1):
            os.environ["SANITIZER_DIVERGENCE_EVERY"] = str(every)
            os.environ["SANITIZER_DIVERGENCE_END_WAIT"] = "10"
            detector = RankDivergenceDetector()
            sink = _Sink(ddp)
            step_times, check_times = [], []
            for step in range(1, STEPS + 1):
                x = torch.randn(batch, width)
                started = time.perf_counter()
                loss = ddp(x).square().mean()
                optimizer.zero_grad()
                loss.backward()
                checked = time.perf_counter()
                detector.on_step(_Record(step), sink)
                check_times.append(time.perf_counter() - checked)
                optimizer.step()
                step_times.append(time.perf_counter() - started - check_times[-1])
            detector.on_end(sink)
            assert sink.emitted == [] and detector.compared_through == STEPS, (sink.emitted, sink.notes)
            results.append({"model": label, "every": every, "tensors": detector.tensors,
                            "step_median_us": statistics.median(step_times) * 1e6,
                            "check_median_us": statistics.median(check_times) * 1e6,
                            "check_mean_us": statistics.fmean(check_times) * 1e6,
                            "exchanges": detector.exchanges,
                            "bytes_per_exchange": detector.bytes_sent / max(detector.exchanges, 1)})
            dist.barrier()
    if rank == 0:
        Path(out).write_text(json.dumps(results))
    dist.destroy_process_group()


class _Sink:
    def __init__(self, model: object) -> None:
        self.model = model
        self.notes: list[str] = []
        self.emitted: list[object] = []

    def model_roots(self) -> list[tuple[str, object]]:
        return [("", self.model)]

    def emit(self, *args: object, **fields: object) -> None:
        self.emitted.append(args)

    def note(self, line: str) -> None:
        self.notes.append(line)


class _Record:
    partial = False

    def __init__(self, step: int) -> None:
        self.step = step


def main() -> None:
    out = ROOT / "bench" / ".sanitizer_dist_overhead.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               __file__, "--worker", str(out)]
    subprocess.run(command, env=env, check=True, timeout=600)
    results = json.loads(out.read_text())
    out.unlink()
    import torch
    print(f"torch {torch.__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, 2 ranks (gloo), {STEPS} steps")
    print("| model | exchange every | step without check (median) | check per step (median / mean) "
          "| bytes sent per exchange |")
    print("|---|---|---|---|---|")
    for row in results:
        print(f"| {row['model']} | {row['every']} | {row['step_median_us']:.0f} µs | "
              f"{row['check_median_us']:.0f} / {row['check_mean_us']:.0f} µs | "
              f"{row['bytes_per_exchange']:.0f} B |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main()
