"""`python -m sanitizer merge REPORTS... [--out merged.json]`: one verdict for a multi-rank run.

The per-rank reports are merged by `sanitizer.report.merged` (the same merge
`show` does with several files) and written as one report; the verdict printed
on stdout says which rank failed first (its own exception, not the collective that
failed on the others because it stopped), the first event of the run, then each
kind's first rank and step, and the ranks that left no report or stopped early.

Exit status: 0 when no rank failed and no error-level event was found, 1 when a
rank crashed, halted or exited with an error status, or error events were found, 2 when a
report cannot be read or the reports are not ranks of one run. A rank given twice
(different reports) keeps the last report given, with a warning naming the others.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from sanitizer.report import access
from sanitizer.report.json_report import write_atomic
from sanitizer.report.merged import left_out_warnings, merge_reports


class MergeError(Exception):
    """A file that is not a readable sanitizer report."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m sanitizer merge",
                                     description="Merge the per-rank reports of one run and print one verdict.")
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="per-rank report JSON files")
    parser.add_argument("--out", metavar="PATH",
                        help="where the merged JSON goes (default: the reports' name with .merged, "
                             "e.g. sanitizer-report.merged.json next to the first report)")
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_request:
        return int(exit_request.code or 0)
    try:
        reports = [read_report(path) for path in options.reports]
        merged = merge_reports(reports, options.reports)
    except (MergeError, access.ReportError) as error:
        print(f"sanitizer merge: {error}", file=sys.stderr)
        return 2
    for line in left_out_warnings(merged):
        print(f"sanitizer merge: warning: {line}", file=sys.stderr)
    out = options.out or default_output(options.reports[0])
    try:
        write_atomic(out, merged)
    except OSError as error:
        print(f"sanitizer merge: cannot write {out}: {error}", file=sys.stderr)
        return 2
    print("\n".join(merged["verdict"]["lines"]))
    print(f"merged report: {out}")
    return 1 if merged["verdict"]["errors"] or merged["verdict"]["failure"] else 0


def read_report(path: str) -> dict[str, Any]:
    data = access.read_report(path)
    if data.get("tool") != "sanitizer":
        raise MergeError(f"{path} is not a sanitizer report")
    return data


def default_output(first_report: str) -> str:
    """`out/run.rank0.json` -> `out/run.merged.json`."""
    directory, name = os.path.split(first_report)
    stem = re.sub(r"\.rank\d+$", "", os.path.splitext(name)[0])
    return os.path.join(directory, f"{stem}.merged.json")
