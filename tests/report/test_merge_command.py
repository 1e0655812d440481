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


def test_reports_of_two_launches_with_other_arguments_are_refused(tmp_path, capsys):
    """Two launches of one script (`--lr 3e-4`, then `--lr 1e-3`) are two runs; the
    `--local_rank=N` the old launcher gives each rank is no difference."""
    first = make_report(steps=40, world_size=2)
    second = dict(make_report(steps=40, rank=1, world_size=2), argv=["train.py", "--lr", "1e-3"])
    paths = _ranks(tmp_path, ("a.rank0.json", first), ("b.rank1.json", second))
    assert merge.main([*paths, "--out", str(tmp_path / "m.json")]) == 2
    assert "are not ranks of one run: argv" in capsys.readouterr().err
    local = [dict(make_report(steps=40, rank=rank, world_size=2),
                  argv=["train.py", f"--local_rank={rank}", "--lr", "3e-4"]) for rank in (0, 1)]
    paths = _ranks(tmp_path, ("run.rank0.json", local[0]), ("run.rank1.json", local[1]))
    assert merge.main([*paths, "--out", str(tmp_path / "m.json")]) in (0, 1)
    assert (tmp_path / "m.json").exists()


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


PEER_CLOSED = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
               "[127.0.0.1]:10650. This is typically caused by a remote worker crashing.")


def _crashed_rank(rank: int, detail: str, where: str) -> dict:
    report = make_report(steps=4, rank=rank, world_size=2)
    report.update(events=[], summary={"counts": {}}, exit_code=1,
                  ending={"how": "exception", "detail": detail, "where": where, "step": 5})
    return report


def test_the_rank_that_crashed_first_is_the_verdict_not_the_peer_it_took_down(tmp_path, capsys):
    paths = _ranks(tmp_path, ("run.rank0.json", _crashed_rank(0, PEER_CLOSED, "train.py:16")),
                   ("run.rank1.json", _crashed_rank(1, "RuntimeError: boom on rank 1", "train.py:11")))
    out = tmp_path / "run.merged.json"
    assert merge.main([*paths, "--out", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "verdict: rank 1 crashed in step 5: RuntimeError: boom on rank 1 (train.py:11)"
    assert lines[2].startswith("rank 0 ended early: exit 1 after 4 steps: failed in step 5 when rank 1 stopped")
    assert not any("no problems found" in line or "others reached" in line for line in lines)
    merged = json.loads(out.read_text())
    assert merged["verdict"]["failure"]["rank"] == 1 and merged["ending"]["detail"] == "RuntimeError: boom on rank 1"
    assert show.main([str(out)]) == 0
    shown = capsys.readouterr().out
    assert "  1. the script crashed on rank 1: RuntimeError: boom on rank 1 (train.py:11)" in shown


def test_ranks_that_all_returned_have_no_failure(tmp_path, capsys):
    reports = [make_report(steps=4, rank=rank, world_size=2) for rank in (0, 1)]
    for report in reports:
        report.update(events=[], summary={"counts": {}}, exit_code=0, ending={"how": "returned"})
    paths = _ranks(tmp_path, ("run.rank0.json", reports[0]), ("run.rank1.json", reports[1]))
    assert merge.main([*paths, "--out", str(tmp_path / "m.json")]) == 0
    assert "verdict: no problems found on any rank" in capsys.readouterr().out
