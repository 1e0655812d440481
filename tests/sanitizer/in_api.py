"""`python in_api.py REPORT SCRIPT [ARGS...]`: runs SCRIPT's code inside
`with Sanitizer(report=REPORT)`, as a notebook cell holding that code would run."""
import runpy
import sys

from sanitizer import Sanitizer

report, script, *args = sys.argv[1:]
sys.argv = [script, *args]
with Sanitizer(report=report):
    runpy.run_path(script, run_name="__main__")
