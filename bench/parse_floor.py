"""The floor for a LibCST linter: decode and `libcst.parse_module` every
Python file under the given directories, nothing else, with N processes.

    python bench/parse_floor.py --jobs 2 DIR...

Prints the number of files parsed and of files that failed to parse.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def python_files(roots: list[str]) -> list[str]:
    found = []
    for root in roots:
        for directory, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            found.extend(os.path.join(directory, name) for name in sorted(filenames) if name.endswith(".py"))
    return found


def parse_one(path: str) -> bool:
    import libcst

    try:
        libcst.parse_module(Path(path).read_bytes().decode("utf-8"))
    except (libcst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("roots", nargs="+")
    args = parser.parse_args(argv)
    files = python_files(args.roots)
    files.sort(key=lambda p: -os.path.getsize(p))  # biggest first, as trainlint does
    if args.jobs <= 1:
        results = [parse_one(path) for path in files]
    else:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            results = list(pool.map(parse_one, files, chunksize=1))
    print(f"parsed {sum(results)} files, {len(results) - sum(results)} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
