"""`--timings`: where the time of a run goes, per file, stage, analysis and
rule; times are exclusive of what a measured step asked for."""

from __future__ import annotations

import time
from pathlib import Path

from trainlint.timing import Timer, report

from cli_runner import invoke


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_nested_time_is_charged_to_the_inner_label_only() -> None:
    timer = Timer()
    with timer.measure("TL101"):
        _spin(0.02)
        with timer.measure("Receivers"):
            _spin(0.05)
    assert timer.seconds["Receivers"] >= 0.05
    assert 0.02 <= timer.seconds["TL101"] < 0.05


def test_timings_list_the_slowest_files_and_each_rule(project: Path) -> None:
    code, out, err = invoke("src", "--timings", "--no-cache", "--jobs", "1", cwd=project)
    assert code == 1 and "TL101" in out and "TL301" in out
    assert "Slowest files (CPU seconds, of 3 analysed):" in err
    slowest = err.split("Time by stage")[0]
    assert "clip.py" in slowest and "train.py" in slowest
    labels = {line.split()[-1] for line in err.split("Time by stage")[1].splitlines()[1:]}
    assert {"parse", "model", "positions", "TL101", "TL301", "total"} <= labels


def test_without_the_flag_nothing_is_timed(project: Path) -> None:
    _, _, err = invoke("src", "--no-cache", cwd=project)
    assert "Slowest files" not in err


def test_a_cached_run_has_nothing_to_time(project: Path) -> None:
    invoke("src", cwd=project)
    _, _, err = invoke("src", "--timings", cwd=project)
    assert "nothing to time" in err


def test_report_orders_files_by_total_time() -> None:
    text = report({"a.py": {"parse": 0.1, "TL101": 0.1}, "b.py": {"parse": 0.5}})
    lines = text.splitlines()
    assert lines[1].endswith("b.py  (most: parse 0.500)") and "a.py" in lines[2]
    assert "0.17x  TL101" in text and text.rstrip().endswith("total")
