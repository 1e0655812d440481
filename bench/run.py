"""The benchmarks' single entry point.

    python bench/run.py lint [--quick|--full] [--reps N] [...]
    python bench/run.py sanitizer [...]
    python bench/run.py sanitizer-cost [...]
    python bench/run.py sanitizer-fixed [...]
    python bench/run.py realcode [...]
    python bench/run.py analysis FOLDER [...]
    python bench/run.py scaling [...]

`lint` runs bench/lint_bench.py; `sanitizer` runs bench/sanitizer_overhead.py;
`sanitizer-cost` runs bench/sanitizer_cost.py (the sanitizer's own time per step, by hook);
`sanitizer-fixed` runs bench/sanitizer_fixed_cost.py (what a run pays once: its model scans);
`realcode` runs bench/realcode.py (precision and recall on labelled public
training code); `analysis` runs bench/analysis_only.py (the linter's own
code over pre-parsed trees); `scaling` runs bench/scaling.py (lint time against
file size); each with the remaining arguments.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
USAGE = "usage: python bench/run.py {lint,sanitizer,sanitizer-cost,sanitizer-fixed,realcode,analysis,scaling} [options]   (add --help after the name for its options)"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name == "lint":
        sys.path.insert(0, str(BENCH))
        import lint_bench

        return lint_bench.main(rest)
    if name == "realcode":
        sys.path.insert(0, str(BENCH))
        import realcode

        return realcode.main(rest)
    if name == "scaling":
        sys.path.insert(0, str(BENCH))
        import scaling

        return scaling.main(rest)
    if name == "analysis":
        sys.path.insert(0, str(BENCH))
        import analysis_only

        return analysis_only.main(rest)
    scripts = {"sanitizer": "sanitizer_overhead.py", "sanitizer-cost": "sanitizer_cost.py",
               "sanitizer-fixed": "sanitizer_fixed_cost.py"}
    if name in scripts:
        script = BENCH / scripts[name]
        if not script.exists():
            print(f"bench: {script.relative_to(BENCH.parent)} is not in this checkout; the sanitizer "
                  f"benchmark arrives with the sanitizer work", file=sys.stderr)
            return 2
        sys.argv = [str(script), *rest]
        sys.path.insert(0, str(BENCH))
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0
    print(f"bench: unknown benchmark {name!r}\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
