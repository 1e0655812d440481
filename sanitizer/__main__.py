"""`python -m sanitizer [OPTIONS] SCRIPT [ARGS...]`, and the `show` / `merge` subcommands."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Callable

# Subcommand -> module with a `main(argv)`; neither imports torch.
SUBCOMMANDS = {"show": "sanitizer.report.show", "merge": "sanitizer.distributed.merge"}


def main(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS and not os.path.exists(argv[0]):
        return _to_a_reader_that_may_leave(lambda: _subcommand(argv[0], argv[1:]))
    from sanitizer import cli
    try:
        options = cli.parse(argv)
    except cli.UsageError as error:
        print(f"{cli.USAGE}\nsanitizer: error: {error}", file=sys.stderr)
        return 2
    if options.help:
        print(cli.USAGE)
        return 0
    if importlib.util.find_spec("torch") is None:
        print("sanitizer: needs torch, which is not installed", file=sys.stderr)
        return 2
    from sanitizer import runner  # torch is imported when the script imports it
    try:
        return runner.run(options)
    except ValueError as error:  # bad --checks / --halt-on kinds
        print(f"sanitizer: error: {error}", file=sys.stderr)
        return 2


def _to_a_reader_that_may_leave(run: Callable[[], int]) -> int:
    """Run a subcommand whose output may go to `| head`: when the reader closes the
    pipe early, stop quietly (status 1) instead of printing a BrokenPipeError."""
    try:
        status = run()
        sys.stdout.flush()  # inside the try: a late failure would surface at exit
        return status
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush goes nowhere
        return 1


def _subcommand(name: str, args: list[str]) -> int:
    try:
        module = importlib.import_module(SUBCOMMANDS[name])
    except ModuleNotFoundError as error:
        if error.name != SUBCOMMANDS[name]:
            raise
        print(f"sanitizer: the '{name}' subcommand is not available in this installation", file=sys.stderr)
        return 2
    return module.main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
