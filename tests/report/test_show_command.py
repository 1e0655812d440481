import importlib.util
import json
import os
import stat

from pathlib import Path

import pytest
from sample_reports import make_report, write_json

from sanitizer.report import show


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "sanitizer-report.json", make_report())


def test_without_options_it_prints_the_summary(report_file, capsys):
    assert show.main([str(report_file)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sanitizer: train.py ")
    assert "  1. the script crashed: RuntimeError: CUDA error" in out


def test_html_is_written_atomically_in_place(report_file, tmp_path, capsys):
    target = tmp_path / "report.html"
    target.write_text("old")
    assert show.main([str(report_file), "--html", str(target)]) == 0
    assert target.read_text().startswith("<!DOCTYPE html>")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "sanitizer-report.json"]
    assert capsys.readouterr().out == f"wrote {target}\n"


def test_several_rank_files_are_shown_together(tmp_path, capsys):
    paths = [str(write_json(tmp_path / f"r{rank}.json", make_report(100, rank, 2))) for rank in (1, 0)]
    out_html = tmp_path / "all.html"
    assert show.main([*paths, "--html", str(out_html)]) == 0
    markup = out_html.read_text()
    assert 'data-label="rank 0 train"' in markup and 'data-label="rank 1 train"' in markup
    assert show.main(paths) == 0
    assert "| 2 ranks" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read"), ("{not json", "is not JSON"), ("[1, 2]", "does not hold a report")],
)
def test_unreadable_reports_exit_2_with_a_message(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert show.main([str(path)]) == 2
    assert message in capsys.readouterr().err


def test_usage_errors_exit_2(capsys):
    assert show.main([]) == 2
    assert "usage: python -m sanitizer show" in capsys.readouterr().err


def test_png_without_matplotlib_is_a_clear_error(report_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(show, "matplotlib_available", lambda: False)
    target = tmp_path / "out.png"
    assert show.main([str(report_file), "--png", str(target)]) == 2
    assert "--png needs matplotlib" in capsys.readouterr().err
    assert not target.exists()


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (optional: pip install matplotlib)",
)
def test_png_is_a_real_image(report_file, tmp_path):
    target = tmp_path / "out.png"
    assert show.main([str(report_file), "--png", str(target)]) == 0
    data = target.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 800 and height >= 4 * 200  # four charts stacked


def test_report_with_nan_written_by_python_json_is_accepted(tmp_path, capsys):
    report = make_report(50)
    report["series"]["loss"][10] = float("nan")
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(report))  # Python writes a bare NaN token
    assert show.main([str(path), "--html", str(tmp_path / "nan.html")]) == 0
