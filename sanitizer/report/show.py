"""`python -m sanitizer show`: the summary of a report, or its HTML / PNG rendering."""

from __future__ import annotations

import argparse
import sys

from sanitizer.report.access import ReportError
from sanitizer.report.atomic_file import write_atomically
from sanitizer.report.html_report import render_html
from sanitizer.report.merged import left_out_warnings, load_reports
from sanitizer.report.png_report import matplotlib_available, render_png
from sanitizer.report.summary_text import format_summary

NO_MATPLOTLIB = (
    "sanitizer show: --png needs matplotlib, which is not installed "
    "(pip install matplotlib); --html needs nothing extra"
)


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, or a usage error already printed
        return int(exit_request.code or 0)
    if options.png and not matplotlib_available():
        print(NO_MATPLOTLIB, file=sys.stderr)
        return 2
    try:
        report = load_reports(options.reports)
    except ReportError as error:
        print(f"sanitizer show: {error}", file=sys.stderr)
        return 2
    for line in left_out_warnings(report):
        print(f"sanitizer show: warning: {line}", file=sys.stderr)
    if not options.html and not options.png:
        print(format_summary(report))
        return 0
    return _write_outputs(report, options.html, options.png)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sanitizer show",
        description="Print a sanitizer report's summary, or render it as HTML or PNG. "
        "Several per-rank reports of one run are shown together, one line per rank.",
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="sanitizer report JSON file(s)")
    parser.add_argument("--html", metavar="OUT.html", help="write a self-contained HTML report")
    parser.add_argument("--png", metavar="OUT.png", help="write the charts as a PNG (needs matplotlib)")
    return parser


def _write_outputs(report: dict, html_path: str | None, png_path: str | None) -> int:
    try:
        if html_path:
            write_atomically(html_path, render_html(report).encode("utf-8"))
            print(f"wrote {html_path}")
        if png_path:
            write_atomically(png_path, render_png(report))
            print(f"wrote {png_path}")
    except OSError as error:
        print(f"sanitizer show: cannot write: {error}", file=sys.stderr)
        return 2
    return 0
