"""`python -m sanitizer merge` (and `show` of several files) on per-rank JSON reports:
one verdict, and never a report dropped without a word."""
from __future__ import annotations

import json
from pathlib import Path

from sample_reports import make_report, write_json

from sanitizer.distributed import merge
from sanitizer.report import show


def _ranks(tmp_path: Path, *reports: tuple[str, dict]) -> list[str]:
    return [str(write_json(tmp_path / name, report)) for name, report in reports]


def test_reports_of_different_scripts_are_refused(tmp_path, capsys):
    other = dict(make_report(steps=40, world_size=2), script="other.py")
    paths = _ranks(tmp_path, ("a.rank0.json", make_report(steps=40, world_size=2)), ("b.rank0.json", other))
    assert merge.main([*paths, "--out", str(tmp_path / "m.json")]) == 2
    error = capsys.readouterr().err
    assert "a.rank0.json and" in error and "b.rank0.json are not ranks of one run" in error
    assert "'train.py' vs 'other.py'" in error and not (tmp_path / "m.json").exists()
    assert show.main(paths) == 2


def test_a_rank_given_twice_is_kept_once_with_a_warning(tmp_path, capsys):
    first, second = make_report(steps=40, world_size=2), make_report(steps=40, world_size=2, seed=7)
    paths = _ranks(tmp_path, ("first.rank0.json", first), ("second.rank0.json", second),
                   ("run.rank1.json", make_report(steps=40, rank=1, world_size=2)))
    merge.main([*paths, "--out", str(tmp_path / "m.json")])
    captured = capsys.readouterr()
    assert "warning: rank 0 was given more than once: kept" in captured.err
    assert "second.rank0.json, left out" in captured.err and captured.err.rstrip().endswith(
        "(two launches of the script, or reports that do not know their rank?)")
    assert "left out" in captured.out  # the verdict says it too
    merged = json.loads((tmp_path / "m.json").read_text())
    [entry] = merged["verdict"]["left_out"]
    assert entry["rank"] == 0 and entry["kept"].endswith("second.rank0.json")
    assert [Path(name).name for name in entry["dropped"]] == ["first.rank0.json"]
    show.main(paths)
    assert "warning: rank 0 was given more than once" in capsys.readouterr().err


def test_the_same_report_given_twice_is_one_report(tmp_path, capsys):
    paths = _ranks(tmp_path, ("run.rank0.json", make_report(steps=40, world_size=2)),
                   ("run.rank1.json", make_report(steps=40, rank=1, world_size=2)))
    merge.main([paths[0], *paths, "--out", str(tmp_path / "m.json")])
    assert "warning" not in capsys.readouterr().err
    assert json.loads((tmp_path / "m.json").read_text())["verdict"]["left_out"] == []
