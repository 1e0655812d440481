"""Command-line options a Ruff user expects: selection that adds up, output
to a file, quiet and verbose, statistics alone, excludes and per-file ignores
on the command line, and the exit statuses of --diff and --fix."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from cli_runner import CLIP_BUG, DP_BUG, invoke

ROOT = Path(__file__).resolve().parents[2]


def _codes(out: str) -> set[str]:
    return {d["code"] for d in json.loads(out)}


def test_repeated_select_adds_up(project: Path) -> None:
    _, out, _ = invoke("src", "--select", "TL1", "--select", "TL3", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL101", "TL301"}
    _, out, _ = invoke("src", "--select", "TL3", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL301"}


def test_select_all_is_every_rule_as_in_ruff(project: Path) -> None:
    everything = invoke("src", "--select", "TL", "--format", "json", "--no-cache", cwd=project)
    assert everything[0] == 1 and _codes(everything[1]) == {"TL101", "TL301"}
    assert invoke("src", "--select", "ALL", "--format", "json", "--no-cache", cwd=project) == everything
    (project / "pyproject.toml").write_text('[tool.trainlint]\nselect = ["all"]\n')
    assert invoke("src", "--format", "json", "--no-cache", cwd=project) == everything
    assert invoke("src", "--select", "ALX", "--no-cache", cwd=project)[0] == 2


def test_a_selection_of_no_rule_is_an_error(project: Path) -> None:
    """`--select "$CODES"` with the variable unset, or `select = []`: no rule would
    run, not even TL000, and a file that does not parse would pass."""
    code, _, err = invoke("src", "--select", "", "--no-cache", cwd=project)
    assert code == 2 and "the selection names no rule" in err
    assert invoke("src", "--select", "", "--extend-select", "TL301", "--no-cache", cwd=project)[0] == 1
    (project / "pyproject.toml").write_text("[tool.trainlint]\nselect = []\n")
    code, _, err = invoke("src", "--no-cache", cwd=project)
    assert code == 2 and "the selection names no rule" in err
    (project / "pyproject.toml").write_text('[tool.trainlint]\nselect = []\nextend-select = ["TL301"]\n')
    assert invoke("src", "--no-cache", cwd=project)[0] == 1


def test_repeated_ignore_and_extend_ignore_add_up(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nignore = ["TL201"]\n')
    code, out, _ = invoke("src", "--ignore", "TL101", "--ignore", "TL301", "--no-cache", cwd=project)
    assert code == 0, out
    _, out, _ = invoke("src", "--extend-ignore", "TL101", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL301"}


def test_output_format_is_an_alias_and_output_file_takes_the_report(project: Path) -> None:
    code, out, _ = invoke("src", "--output-format", "json", "-o", "reports/lint.json", "--no-cache", cwd=project)
    assert code == 1 and out == ""
    assert _codes((project / "reports" / "lint.json").read_text()) == {"TL101", "TL301"}


def test_unwritable_output_file_is_an_error(project: Path) -> None:
    (project / "taken").write_text("")
    code, _, err = invoke("src", "-o", "taken/report.txt", "--no-cache", cwd=project)
    assert code == 2 and "cannot write taken/report.txt" in err


def test_quiet_prints_findings_only(project: Path) -> None:
    _, out, _ = invoke("src", "-q", "--no-cache", cwd=project)
    assert [line.split(":")[0] for line in out.splitlines()] == ["src/clip.py", "src/train.py"]
    code, out, err = invoke("src/clean.py", "--quiet", "--no-cache", cwd=project)
    assert code == 0 and out == "" and err == ""


def test_verbose_tells_what_ran(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nselect = ["TL3"]\n')
    _, out, err = invoke("src", "-v", cwd=project)
    assert "TL301" in out
    assert f"configuration: {project / 'pyproject.toml'}" in err
    assert "rules: TL301, TL302" in err and "3 file(s): 3 linted, 0 from the cache" in err
    _, _, err = invoke("src", "--verbose", cwd=project)
    assert "3 file(s): 0 linted, 3 from the cache" in err


def test_statistics_prints_only_the_table(project: Path) -> None:
    (project / "src" / "more.py").write_text(DP_BUG)
    code, out, _ = invoke("src", "--statistics", "--no-cache", cwd=project)
    assert code == 1
    assert out.splitlines() == ["    2  TL301      data-parallel", "    1  TL101  [*] clip-before-unscale"]
    _, out, _ = invoke("src", "--statistics", "--format", "json", "--no-cache", cwd=project)
    assert json.loads(out)[0] == {"code": "TL301", "name": "data-parallel", "count": 2, "fixable": False}


def test_exclude_and_extend_exclude_on_the_command_line(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nexclude = ["clip.py"]\n')
    _, out, _ = invoke("src", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL301"}
    _, out, _ = invoke("src", "--exclude", "train.py", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL101"}, "--exclude replaces the configured list"
    _, out, _ = invoke("src", "--extend-exclude", "train.py", "--format", "json", "--no-cache", cwd=project)
    assert out.strip() == "[]", "--extend-exclude adds to it"


def test_per_file_ignores_on_the_command_line(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nper-file-ignores = {"src/clip.py" = ["TL101"]}\n')
    _, out, _ = invoke("src", "--format", "json", "--no-cache", cwd=project)
    assert _codes(out) == {"TL301"}
    args = ("src", "--format", "json", "--no-cache")
    _, out, _ = invoke(*args, "--per-file-ignores", "src/train.py:TL301", cwd=project)
    assert _codes(out) == {"TL101"}, "--per-file-ignores replaces the configured table"
    _, out, _ = invoke(*args, "--extend-per-file-ignores", "*/train.py:TL301,TL302", cwd=project)
    assert out.strip() == "[]"
    code, _, err = invoke(*args, "--per-file-ignores", "src/train.py", cwd=project)
    assert code == 2 and "GLOB:CODES" in err
    code, _, err = invoke(*args, "--per-file-ignores", "src/*:TL999", cwd=project)
    assert code == 2 and "TL999" in err


def test_extend_ignore_and_extend_per_file_ignores_are_configuration_keys_as_options(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.trainlint]\nignore = ["TL2"]\nextend-ignore = ["TL101"]\n'
        'per-file-ignores = {"nothing/*" = ["TL1"]}\nextend-per-file-ignores = {"src/train.py" = ["TL301"]}\n')
    code, out, err = invoke("src", "--format", "json", "--no-cache", cwd=project)
    assert (code, out.strip(), err) == (0, "[]", "")
    _, out, _ = invoke("src", "--format", "json", "--no-cache", "--per-file-ignores", "x.py:TL1", cwd=project)
    assert _codes(out) == {"TL301"}, "--per-file-ignores replaces both tables"


def test_a_glob_starting_with_dot_slash_matches_as_the_path_without_it(project: Path) -> None:
    """`./src/train.py`, as the shell completes a path, names `src/train.py`, on the
    command line and in the configuration alike."""
    args = ("src", "--format", "json", "--no-cache")
    _, out, _ = invoke(*args, "--per-file-ignores", "./src/train.py:TL301", cwd=project)
    assert _codes(out) == {"TL101"}
    _, out, _ = invoke(*args, "--extend-exclude", "./src/clip.py", cwd=project)
    assert _codes(out) == {"TL301"}
    (project / "pyproject.toml").write_text('[tool.trainlint]\nper-file-ignores = {"./src/*" = ["TL1", "TL3"]}\n')
    _, out, _ = invoke(*args, cwd=project)
    assert out.strip() == "[]"


def test_every_named_path_excluded_is_said_clearly(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nexclude = ["src/*"]\n')
    code, out, err = invoke("src/train.py", "src/clip.py", cwd=project)
    assert code == 0 and out == ""
    assert "every path given is excluded" in err and "src/train.py, src/clip.py" in err
    assert "pyproject.toml" in err
    (project / "empty").mkdir()
    code, _, err = invoke("empty", cwd=project)
    assert code == 0 and "no Python files found under empty" in err
    code, out, err = invoke("src", cwd=project)  # a folder whose every file is excluded
    assert code == 0 and out == ""
    assert "every Python file under src is excluded by the `exclude` / `extend-exclude` settings" in err, err


def test_diff_exits_one_only_when_it_would_change_something(project: Path) -> None:
    code, out, err = invoke("src/clip.py", "--diff", "--no-cache", cwd=project)
    assert code == 1 and "+    scaler.unscale_(opt)" in out and "Would fix 1 finding" in err
    code, out, _ = invoke("src/train.py", "--diff", "--no-cache", cwd=project)
    assert code == 0 and out == "", "an unfixable finding is no diff"
    assert (project / "src" / "clip.py").read_text() == CLIP_BUG


def test_exit_non_zero_on_fix(project: Path) -> None:
    (project / "src" / "train.py").unlink()
    code, _, _ = invoke("src", "--fix", "--exit-non-zero-on-fix", cwd=project)
    assert code == 1, "a fix was applied"
    code, _, _ = invoke("src", "--fix", "--exit-non-zero-on-fix", cwd=project)
    assert code == 0, "nothing left to fix or report"


def test_numpy_is_in_the_sanitizer_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.split(">")[0].split("=")[0].strip() == "numpy" for req in extras["sanitizer"])
    assert not any("numpy" in dep for dep in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])


def test_show_fixes_lists_what_was_fixed(project: Path) -> None:
    (project / "src" / "twice.py").write_text(CLIP_BUG)
    listing = "finding(s):\n- src/clip.py:\n    1 × TL101 (clip-before-unscale)\n- src/twice.py:\n    1 × TL101 (clip-before-unscale)\n"
    code, out, _ = invoke("src", "--diff", "--show-fixes", "--no-cache", cwd=project)
    assert code == 1 and "Would fix 2 " + listing in out
    code, out, _ = invoke("src", "--fix", "--show-fixes", "--no-cache", cwd=project)
    assert code == 1 and "Fixed 2 " + listing in out and "TL301" in out


def test_fix_options_without_fix_or_diff_are_said_to_do_nothing(project: Path) -> None:
    plain = invoke("src", "--no-cache", cwd=project)
    code, out, err = invoke("src", "--no-cache", "--unsafe-fixes", "--show-fixes", cwd=project)
    assert (code, out) == plain[:2], "a warning, the run is the same"
    assert err == ("trainlint: warning: --unsafe-fixes has no effect without --fix or --diff\n"
                   "trainlint: warning: --show-fixes has no effect without --fix or --diff\n")
    _, _, err = invoke("src/train.py", "--no-cache", "--unsafe-fixes", "--diff", cwd=project)
    assert "no effect" not in err


def test_statistics_in_a_report_format_is_refused(project: Path) -> None:
    """A SARIF upload with --statistics added would get a plain table: refused."""
    for name in ("sarif", "gitlab", "junit", "github"):
        code, out, err = invoke("src", "--statistics", "--format", name, "--no-cache", cwd=project)
        assert code == 2 and "--statistics" in err and out == "", (name, out, err)
    assert invoke("src", "--statistics", "--format", "json", "--no-cache", cwd=project)[0] == 1
