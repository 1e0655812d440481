"""The analysis alone, without the parse: every file of a folder is parsed
once, then the model, every rule, the file's facts and the positions of its
findings are timed over the parsed trees (CPU time, the best of N passes).
The parse is most of a cold run and varies by several percent from one run
to the next; this isolates what the linter's own code costs.

    python bench/run.py analysis FOLDER [--reps N] [--select TL]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from trainlint import engine
from trainlint.analysis.summarize import file_facts
from trainlint.context import FileContext
from trainlint.registry import by_code
from trainlint.rule import Rule
from trainlint.timing import NoTimer


def _parsed(folder: Path) -> list[tuple[str, str, object]]:
    trees = []
    for path in sorted(folder.rglob("*.py")):
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            trees.append((str(path), source, engine._parse(source)))
        except engine._Unparsable:
            continue
    return trees


def _one_pass(trees: list[tuple[str, str, object]], rules: list[type[Rule]]) -> float:
    start = time.process_time()
    for path, source, module in trees:
        with engine.collector_paused():
            active = [rule for rule in rules if rule.may_fire(source)]
            ctx = FileContext(path, source, module)  # type: ignore[arg-type]
            diagnostics = engine._run_rules(ctx, active, NoTimer(), [])
            file_facts(ctx)
            ctx.release()
            engine._positioned(path, module, diagnostics, source, rules, [])  # type: ignore[arg-type]
    return time.process_time() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.py analysis", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--select", default="TL", help="rule code prefix (default: every rule)")
    args = parser.parse_args(argv)
    rules = [rule for code, rule in sorted(by_code().items()) if code.startswith(args.select) and code != engine.UNPARSABLE]
    trees = _parsed(args.folder)
    passes = sorted(_one_pass(trees, rules) for _ in range(args.reps))
    print(f"{len(trees)} files, {len(rules)} rules: analysis {passes[0]:.2f} s CPU (best of {args.reps}: "
          + ", ".join(f"{seconds:.2f}" for seconds in passes) + ")")
    return 0
