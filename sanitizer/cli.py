"""Command line of `python -m sanitizer`: options, then the script (or -m module) and its args."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

USAGE = """usage: python -m sanitizer [--report PATH] [--checks LIST] [--halt-on KINDS] [--strict]
                           [--no-lint] (SCRIPT | -m MODULE) [ARGS...]
       python -m sanitizer show|merge ...

Runs SCRIPT (or MODULE) exactly as `python SCRIPT ARGS` would, watching the
training for NaN/Inf, spikes, underflow, leaks and misconfiguration.

options:
  --report PATH    where to write the JSON report (default sanitizer-report.json;
                   rank r of a distributed run writes PATH with .rank<r> before the suffix)
  --checks LIST    comma-separated event kinds to check (default: all)
  --halt-on KINDS  stop the run at the first event of these kinds (exit status 3)
  --strict         exit 3 when error-level events were found and the script succeeded
  --no-lint        do not lint the script (by default its trainlint findings are in the
                   report, and runtime events name the findings that explain them)
  -h, --help       show this message"""


class UsageError(Exception):
    """Bad command line: the message is printed with the usage, exit status 2."""


@dataclass
class Options:
    report: str = "sanitizer-report.json"
    checks: list[str] | None = None
    halt_on: list[str] = field(default_factory=list)
    strict: bool = False
    lint: bool = True
    module: str | None = None
    script: str | None = None
    args: list[str] = field(default_factory=list)
    help: bool = False


_VALUED = {"--report": "report", "--checks": "checks", "--halt-on": "halt_on"}


def parse(argv: list[str]) -> Options:
    """Options stop at the first non-option (the script) or at `-m MODULE`."""
    options = Options()
    rest = list(argv)
    while rest:
        token = rest.pop(0)
        if token in ("-h", "--help"):
            options.help = True
            return options
        if token == "--strict":
            options.strict = True
        elif token == "--no-lint":
            options.lint = False
        elif token == "-m":
            if not rest:
                raise UsageError("-m needs a module name")
            options.module, options.args = rest[0], rest[1:]
            return options
        elif token.split("=", 1)[0] in _VALUED:
            name, _, value = token.partition("=")
            if not _:
                if not rest:
                    raise UsageError(f"{name} needs a value")
                value = rest.pop(0)
            _set(options, _VALUED[name], value)
        elif token == "--":
            break
        elif token.startswith("-") and token != "-":
            raise UsageError(f"unknown option {token}")
        else:
            rest.insert(0, token)
            break
    if not rest:
        raise UsageError("no script given")
    options.script, options.args = rest[0], rest[1:]
    return options


def _set(options: Options, attribute: str, value: str) -> None:
    """`--report` names one file (the last given); `--checks` and `--halt-on` add up
    when repeated, as comma-separated lists do."""
    if attribute == "report":
        _check_report_path(value)
        options.report = value
    else:
        items = [item.strip() for item in value.split(",") if item.strip()]
        setattr(options, attribute, [*(getattr(options, attribute) or []), *items])


def _check_report_path(path: str) -> None:
    """A report that could not be written is found before the run, not after it:
    a folder named as the report, or a parent that is a file or not writable."""
    if not path:
        raise UsageError("--report needs a file name")
    if os.path.isdir(path):
        raise UsageError(f"--report {path} is a folder: name a file (such as {os.path.join(path, 'report.json')})")
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent) and os.path.dirname(parent) != parent:
        parent = os.path.dirname(parent)  # the folders missing are created when the report is written
    if not os.path.isdir(parent):
        raise UsageError(f"--report {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--report {path}: cannot write in {parent}")
