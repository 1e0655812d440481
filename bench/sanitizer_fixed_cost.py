"""What a run under `python -m sanitizer` pays once, and per step, on a loop so
small that the fixed costs show: an MLP 20-64-1, batch 32, MSE, SGD.

    python bench/sanitizer_fixed_cost.py                       # this checkout, 5 repetitions
    python bench/sanitizer_fixed_cost.py --tree /other/checkout --tree .   # trees side by side

Each repetition runs, one after the other: the loop under plain python, then
under `python -m sanitizer --no-lint` once per tree (the tree first on
PYTHONPATH). In every sanitized run the CPU time (`time.process_time`) of the
model scans is taken: the session's scan for optimizers alive before the run,
and each rescan of the live models (`_refresh_index`). Printed per run kind, the
median over repetitions of: the process's whole CPU time, the loop's CPU time
per step, and the scans' CPU time. One torch thread (OMP_NUM_THREADS=1).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap

LOOP = textwrap.dedent("""\
    import sys, time
    import torch
    from torch import nn
    torch.manual_seed(0)
    steps = int(sys.argv[1])
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 20), torch.randn(32, 1)
    started = time.process_time()
    for step in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    print("LOOP", (time.process_time() - started) / max(steps, 1))
""")

# runs the sanitizer's command line in this process, timing its model scans
TIMED = textwrap.dedent("""\
    import atexit, runpy, sys, time
    from sanitizer.core import naming, session
    spent = {"scan_before_run": 0.0, "rescans": 0.0, "rescan_count": 0}
    def timed(function, key, count=None):
        def call(*args):
            started = time.process_time()
            result = function(*args)
            spent[key] += time.process_time() - started
            if count and result:
                spent[count] += 1
            return result
        return call
    naming.ModelIndex.__init__ = timed(naming.ModelIndex.__init__, "scan_before_run")
    session.Sanitizer._refresh_index = timed(session.Sanitizer._refresh_index, "rescans", "rescan_count")
    atexit.register(lambda: print("SCANS", spent))
    sys.argv = ["sanitizer", *sys.argv[1:]]
    runpy.run_module("sanitizer", run_name="__main__")
""")


def run(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """The command's output, and the CPU time it took (user + system, its children's included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, out


def field(out: str, tag: str) -> str:
    return next(line.split(" ", 1)[1] for line in out.splitlines() if line.startswith(tag + " "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", help="a checkout to run the sanitizer from (default: this one)")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    trees = [os.path.abspath(tree) for tree in args.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    results: dict[str, list[tuple[float, float, dict[str, float]]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        loop, timed = os.path.join(folder, "loop.py"), os.path.join(folder, "timed.py")
        with open(loop, "w") as handle:
            handle.write(LOOP)
        with open(timed, "w") as handle:
            handle.write(TIMED)
        for _ in range(args.reps):
            cpu, out = run([sys.executable, loop, str(args.steps)], env)
            results.setdefault("plain", []).append((cpu, float(field(out, "LOOP")), {}))
            for tree in trees:
                tree_env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")])))
                report = os.path.join(folder, "report.json")
                cpu, out = run([sys.executable, timed, "--no-lint", "--report", report, loop, str(args.steps)], tree_env)
                scans = json.loads(field(out, "SCANS").replace("'", '"'))
                results.setdefault(tree, []).append((cpu, float(field(out, "LOOP")), scans))
    print(f"{args.steps} steps, {args.reps} repetitions, medians (CPU time)")
    print(f"{'run':<40}{'process s':>10}{'ms/step':>9}{'scan before run ms':>20}{'rescans ms':>12}")
    for name, rows in results.items():
        scans = [row[2] for row in rows]
        before = f"{statistics.median(s['scan_before_run'] for s in scans) * 1e3:.0f}" if scans[0] else "-"
        rescans = (f"{statistics.median(s['rescans'] for s in scans) * 1e3:.0f} ({scans[0]['rescan_count']:.0f})"
                   if scans[0] else "-")
        print(f"{name[-40:]:<40}{statistics.median(r[0] for r in rows):>10.2f}"
              f"{statistics.median(r[1] for r in rows) * 1e3:>9.3f}{before:>20}{rescans:>12}")


if __name__ == "__main__":
    main()
