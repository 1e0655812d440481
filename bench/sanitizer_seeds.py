"""One sanitizer test script over many seeds: which events each seed gets.

    python bench/sanitizer_seeds.py heavy_tail_sgd.py --seeds 0-99 --out DIR [--root TREE] [-- ARGS...]

Each run is `python -m sanitizer --report DIR/seed-N.json SCRIPT --seed N ARGS...`
in tests/sanitizer/scripts, forked by the test harness's fork server (torch is
imported once for all of them), one at a time. `--root` names the source tree
whose sanitizer and scripts run (default: this one), so that the same seeds can
be run on another checkout for a before/after comparison. Printed: one line per
seed with events (kind@step), then a tally by kind and the seeds with none.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path


def _harness(root: Path):
    """The test harness module of the tree at `root` (its ROOT is that tree)."""
    spec = importlib.util.spec_from_file_location("seeds_harness", root / "tests/sanitizer/sanitizer_harness.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("--seeds", default="0-99", help="e.g. 0-99 or 3,8,11")
    parser.add_argument("--out", type=Path, required=True, help="folder for the reports")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    options, more = parser.parse_known_args()  # the script's own arguments, after --
    options.args = [arg for arg in more if arg != "--"]
    harness = _harness(options.root.resolve())
    options.out.mkdir(parents=True, exist_ok=True)
    streams = Path(tempfile.mkdtemp(prefix="seeds-streams-"))
    server = harness.ForkServer(streams)
    tally: collections.Counter[str] = collections.Counter()
    quiet: list[int] = []
    started = time.perf_counter()
    try:
        for seed in _seeds(options.seeds):
            report = options.out / f"seed-{seed}.json"
            done = server.run(["-m", "sanitizer", "--report", str(report), options.script, "--seed", str(seed),
                               *options.args], harness.SCRIPTS)
            events = json.loads(report.read_text())["events"] if report.exists() else None
            if events is None:
                print(f"seed {seed}: no report (exit {done.returncode}) {done.stderr[-300:]}", flush=True)
                tally["no report"] += 1
                continue
            for event in events:
                tally[event["kind"]] += 1
            if not events:
                quiet.append(seed)
            print(f"seed {seed}: exit {done.returncode} "
                  + " ".join(f"{event['kind']}@{event['step']}" for event in events), flush=True)
    finally:
        server.close()
    print(f"{len(quiet)} seeds without events; events by kind: {dict(sorted(tally.items()))}; "
          f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
