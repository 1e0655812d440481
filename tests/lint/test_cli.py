"""The command line as users and CI systems see it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import CLIP_BUG, DP_BUG, UNSAFE_ONLY, child_env, invoke


def test_text_output_and_exit_one(project: Path) -> None:
    code, out, _ = invoke("src", "--no-cache", cwd=project)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "src/clip.py:6:5: TL101 [*] " + lines[0].split(" [*] ", 1)[1]
    assert lines[1].startswith("src/train.py:2:9: TL301 ")
    assert lines[-1] == "Found 2 findings (1 fixable)."  # the contract's shape, for scripts to read


def test_fixes_that_need_unsafe_fixes_are_counted_before_the_summary(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                                   "for x in loader:\n    opt.zero_grad()\n    model(x).sum().backward()\n"
                                   "    opt.step()\n    torch.cuda.empty_cache()\n")
    code, out, _ = invoke("a.py", "--no-cache", cwd=tmp_path)
    assert code == 1
    assert out.splitlines()[-2:] == ["1 of the fixable findings needs `--fix --unsafe-fixes`.",
                                     "Found 1 findings (1 fixable)."], out


def test_clean_tree_exits_zero(project: Path) -> None:
    code, out, _ = invoke("src/clean.py", "--no-cache", cwd=project)
    assert code == 0 and out.splitlines()[-1] == "Found 0 findings (0 fixable)."


def test_exit_zero(project: Path) -> None:
    assert invoke("src", "--exit-zero", "--no-cache", cwd=project)[0] == 0


def test_json_format_has_the_documented_keys(project: Path) -> None:
    code, out, _ = invoke("src", "--format", "json", "--no-cache", cwd=project)
    data = json.loads(out)
    assert code == 1 and len(data) == 2
    keys = {"path", "line", "column", "end_line", "end_column", "code", "name", "severity", "message", "fixable"}
    for item in data:
        assert keys <= set(item)
        assert isinstance(item["line"], int) and item["line"] >= 1 and item["column"] >= 1
    assert [d["path"] for d in data] == ["src/clip.py", "src/train.py"]
    assert data[0]["fixable"] is True and data[1]["fixable"] is False


def test_sarif_structure(project: Path) -> None:
    _, out, _ = invoke("src", "--format", "sarif", "--no-cache", cwd=project)
    log = json.loads(out)
    assert log["version"] == "2.1.0" and "$schema" in log
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "TL101" in rule_ids and run["tool"]["driver"]["name"] == "trainlint"
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and result["level"] in ("error", "warning", "note")


def test_github_format(project: Path) -> None:
    _, out, _ = invoke("src", "--format", "github", "--no-cache", cwd=project)
    lines = out.splitlines()
    assert lines[0].startswith("::error file=src/clip.py,line=6,col=5,")
    assert "title=TL101::" in lines[0]
    assert lines[1].startswith("::warning file=src/train.py,line=2,col=9,")


def test_select_and_ignore(project: Path) -> None:
    _, out, _ = invoke("src", "--select", "TL3", "--no-cache", "--format", "json", cwd=project)
    assert {d["code"] for d in json.loads(out)} == {"TL301"}
    _, out, _ = invoke("src", "--ignore", "TL301", "--no-cache", "--format", "json", cwd=project)
    assert {d["code"] for d in json.loads(out)} == {"TL101"}


def test_unknown_code_is_a_usage_error(project: Path) -> None:
    code, _, err = invoke("src", "--select", "TL999", cwd=project)
    assert code == 2 and "TL999" in err


def test_config_select_ignore_and_per_file_ignores(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.trainlint]\nignore = ["TL101"]\nper-file-ignores = {"src/train.py" = ["TL301"]}\n'
    )
    code, out, _ = invoke("src", "--no-cache", cwd=project)
    assert code == 0, out


def test_config_exclude(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nextend-exclude = ["clip.py"]\n')
    _, out, _ = invoke("src", "--no-cache", "--format", "json", cwd=project)
    assert {d["path"] for d in json.loads(out)} == {"src/train.py"}


def test_unknown_config_key_names_the_key(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nselct = ["TL1"]\n')
    code, _, err = invoke("src", cwd=project)
    assert code == 2 and "'selct'" in err


def test_a_per_file_ignores_entry_that_is_no_list_is_named_as_such(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint]\nper-file-ignores = {"t.py" = "TL101"}\n')
    code, _, err = invoke("src", cwd=project)
    assert code == 2 and "'per-file-ignores' entry 't.py' must be a list of strings, not 'TL101'" in err, err
    (project / "pyproject.toml").write_text('[tool.trainlint]\nper-file-ignores = {"t.py" = ["TL999"]}\n')
    code, _, err = invoke("src", cwd=project)
    assert code == 2 and "'per-file-ignores' entry 't.py': unknown rule code or prefix 'TL999'" in err, err


@pytest.mark.parametrize("toml", ['[tool]\ntrainlint = 3\n', '[tool]\ntrainlint = ["TL1"]\n'])
def test_a_trainlint_value_that_is_no_table_is_a_configuration_error(project: Path, toml: str) -> None:
    (project / "pyproject.toml").write_text(toml)
    code, _, err = invoke("src", cwd=project)
    assert code == 2 and "'tool.trainlint' must be a table" in err, err


def test_a_tool_value_that_is_no_table_is_not_trainlints_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text("tool = 3\n")
    code, out, err = invoke("src", "--no-cache", "--format", "json", cwd=project)
    assert code == 1 and not err and {d["code"] for d in json.loads(out)} == {"TL101", "TL301"}


def test_a_config_file_of_other_tools_tables_gives_the_defaults_and_says_so(project: Path) -> None:
    """`--config` naming a file shaped like pyproject.toml ([tool.ruff] shared with
    ruff) without a [tool.trainlint] table: the defaults apply, with a warning; a
    dedicated file holds trainlint's keys at its top level."""
    (project / "other.toml").write_text("[tool.ruff]\nline-length = 100\n")
    code, out, err = invoke("src", "--no-cache", "--config", "other.toml", cwd=project)
    assert code == 1 and "TL301" in out
    assert err == "trainlint: warning: other.toml has no [tool.trainlint] table: the default settings apply\n"
    (project / "trainlint.toml").write_text('select = ["TL3"]\n')
    code, out, err = invoke("src", "--no-cache", "--config", "trainlint.toml", cwd=project)
    assert code == 1 and "TL301" in out and "TL101" not in out and err == ""
    (project / "trainlint.toml").write_text('selct = ["TL3"]\n')
    code, _, err = invoke("src", "--no-cache", "--config", "trainlint.toml", cwd=project)
    assert code == 2 and "unknown key 'selct' in the file" in err, err


def test_each_file_gets_its_nearest_configuration_whatever_else_is_linted(tmp_path: Path) -> None:
    """A subproject's own pyproject.toml applies to its files in a run over the whole
    tree and in a pre-commit batch with other files, as when the file is linted alone."""
    for name in ("sub1", "sub2"):
        (tmp_path / name / "gen").mkdir(parents=True)
        (tmp_path / name / "a.py").write_text("import torch.nn as nn\nm = nn.DataParallel(net)\n")
        (tmp_path / name / "gen" / "b.py").write_text("import torch.nn as nn\nm = nn.DataParallel(net)\n")
    (tmp_path / "sub1" / "pyproject.toml").write_text('[tool.trainlint]\nignore = ["TL301"]\nexclude = ["gen/*"]\n')
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nextend-select = ["TL305"]\n')
    expected = {("sub2/a.py", "TL301"), ("sub2/gen/b.py", "TL301")}
    for paths in ([str(Path("sub1") / "a.py")], ["sub1/a.py", "sub2/a.py", "sub2/gen/b.py"], ["."]):
        code, out, _ = invoke(*paths, "--no-cache", "--format", "json", cwd=tmp_path)
        found = {(Path(d["path"]).as_posix(), d["code"]) for d in json.loads(out)}
        assert found == {f for f in expected if f[0] in paths or paths == ["."]}, (paths, found)
    code, out, _ = invoke("sub1/gen/b.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert json.loads(out) == []  # excluded by its own configuration


def test_calls_into_a_subproject_are_followed_in_every_run(tmp_path: Path) -> None:
    """A subproject linted under its own configuration is still code the root's
    files call: a loop that calls its helper once per step is flagged in a run over
    the whole tree as when the file is linted alone."""
    (tmp_path / "pyproject.toml").write_text("[tool.trainlint]\n")
    (tmp_path / "libs").mkdir()
    (tmp_path / "libs" / "pyproject.toml").write_text('[tool.trainlint]\nignore = ["TL301"]\n')
    (tmp_path / "libs" / "__init__.py").write_text("")
    (tmp_path / "libs" / "mem.py").write_text("import torch\n\n\ndef release():\n    torch.cuda.empty_cache()\n")
    (tmp_path / "train.py").write_text(
        "from libs.mem import release\n\n\ndef fit(model, loader, optimizer):\n    for x in loader:\n"
        "        optimizer.zero_grad()\n        model(x).sum().backward()\n        optimizer.step()\n"
        "        release()\n")
    for paths in (["."], ["train.py"], ["train.py", "libs/mem.py"]):
        _, out, _ = invoke(*paths, "--no-cache", "--format", "json", cwd=tmp_path)
        assert {(d["path"], d["line"], d["code"]) for d in json.loads(out)} == {("train.py", 9, "TL201")}, paths


def test_exclusion_is_the_nearest_configurations_in_every_run(tmp_path: Path) -> None:
    """The root excludes `sub/deep/*`, the subproject does not (and excludes `gen/*`):
    the subproject's files are found or left out by its own configuration, whether
    named with others, or found walking the root."""
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nexclude = ["sub/deep/*"]\n')
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "sub" / "gen").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text('[tool.trainlint]\nexclude = ["gen/*"]\n')
    bug = "import torch.nn as nn\nm = nn.DataParallel(net)\n"
    for name in ("b.py", "sub/deep/b.py", "sub/gen/b.py"):
        (tmp_path / name).write_text(bug)
    for paths in (["."], ["b.py", "sub/deep/b.py", "sub/gen/b.py"], ["sub/deep/b.py"], ["sub/gen/b.py", "b.py"]):
        _, out, _ = invoke(*paths, "--no-cache", "--format", "json", cwd=tmp_path)
        found = {Path(d["path"]).as_posix() for d in json.loads(out)}
        assert found == {p for p in ("b.py", "sub/deep/b.py") if paths == ["."] or p in paths}, (paths, found)


def test_toml_error_is_reported(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.trainlint\nselect = [\n')
    code, _, err = invoke("src", cwd=project)
    assert code == 2 and "invalid TOML" in err


def test_noqa_forms(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "import torch.nn as nn\n"
        "a = nn.DataParallel(m)  # noqa: TL301\n"
        "b = nn.DataParallel(m)  # noqa\n"
        "c = nn.DataParallel(m)  # noqa: TL101\n"
        "d = nn.DataParallel(m)  # NOQA:TL101,TL301\n"
    )
    (tmp_path / "b.py").write_text("# trainlint: noqa\nimport torch.nn as nn\nnn.DataParallel(m)\n")
    (tmp_path / "c.py").write_text("import torch.nn as nn\n# trainlint: noqa: TL301\nnn.DataParallel(m)\n")
    (tmp_path / "d.py").write_text('import torch.nn as nn\nDOC = """\n# trainlint: noqa\n"""\nnn.DataParallel(m)\n')
    _, out, _ = invoke(".", "--no-cache", "--format", "json", cwd=tmp_path)
    found = [(d["path"], d["line"], d["code"]) for d in json.loads(out)]
    # TL001: the TL101 of lines 4 and 5 suppresses nothing
    assert found == [("a.py", 4, "TL301"), ("a.py", 4, "TL001"), ("a.py", 5, "TL001"), ("d.py", 5, "TL301")]


def test_noqa_is_read_on_the_line_python_counts(tmp_path: Path) -> None:
    # a form feed and U+2028 do not end a line for Python; str.splitlines breaks at both
    (tmp_path / "a.py").write_text(
        "import torch.nn as nn\n\x0c\nx = '\u2028'\nnn.DataParallel(m)  # noqa: TL301\nnn.DataParallel(m)\n",
        encoding="utf-8",
    )
    _, out, _ = invoke("a.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert [d["line"] for d in json.loads(out)] == [5]


def test_unparsable_and_undecodable_files_are_reported_and_the_rest_linted(tmp_path: Path) -> None:
    (tmp_path / "py2.py").write_text("x = y.cuda(async=True)\n")
    (tmp_path / "latin.py").write_bytes(b"name = '\xe9t\xe9'\n")
    (tmp_path / "utf16.py").write_bytes("x = 1\n".encode("utf-16"))
    (tmp_path / "ok.py").write_text(DP_BUG)
    (tmp_path / "declared.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n" + DP_BUG.encode())
    (tmp_path / "late.py").write_bytes(b"x = 1\n\ndef f():\n    return '\xff'\n")  # a decoding error is at line 1
    code, out, _ = invoke(".", "--no-cache", "--format", "json", cwd=tmp_path)
    found = {(d["path"], d["code"], d["line"]) for d in json.loads(out)}
    assert found == {
        ("py2.py", "TL000", 1),
        ("latin.py", "TL000", 1),
        ("late.py", "TL000", 1),
        ("utf16.py", "TL000", 1),
        ("ok.py", "TL301", 2),
        ("declared.py", "TL301", 4),
    }
    assert "non-UTF-8 byte 0xff on line 4, column 13, and no encoding declared" in next(
        d["message"] for d in json.loads(out) if d["path"] == "late.py")
    assert code == 1


def test_a_tab_after_spaces_that_python_accepts_is_linted_and_never_fixed(tmp_path: Path) -> None:
    """`\\t    y = ...` under a 4-space block is valid Python (a tab counts to column 8) that
    LibCST's tokenizer rejects: the file is linted on its tab-expanded lines, with its
    findings on their own lines, and no fix rewrites it (its tree is not its text)."""
    source = ("import torch\nimport torch.nn as nn\n\ndef f(model, x):\n    if x:\n"
              "\t    scaler = torch.cuda.amp.GradScaler()\n    return nn.DataParallel(model)\n")
    compile(source, "tabs.py", "exec")
    (tmp_path / "tabs.py").write_text(source)
    code, out, _ = invoke("tabs.py", "--no-cache", "--format", "json", cwd=tmp_path)
    found = {(d["code"], d["line"]) for d in json.loads(out)}
    assert found == {("TL102", 6), ("TL301", 7)} and code == 1
    assert all(d["fix"] is None for d in json.loads(out))
    invoke("tabs.py", "--no-cache", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert (tmp_path / "tabs.py").read_text() == source


def test_an_undecodable_byte_is_described_as_python_describes_it(tmp_path: Path) -> None:
    """A non-UTF-8 byte on line 1 without a declaration is that, not an invalid
    declaration; a declaration on a line that is itself not UTF-8 counts, as
    for Python; a byte the declared encoding cannot decode is named with it."""
    (tmp_path / "first.py").write_bytes(b'"""Caf\xe9"""\nx = 1\n')
    (tmp_path / "declared.py").write_bytes(b"# -*- coding: latin-1 -*- caf\xe9\nimport torch.nn as nn\nm = nn.DataParallel(m)\n")
    (tmp_path / "ascii.py").write_bytes(b"# coding: ascii\nx = '\xe9'\n")
    _, out, _ = invoke(".", "--no-cache", "--format", "json", cwd=tmp_path)
    found = {d["path"]: (d["code"], d["message"].removeprefix("file cannot be parsed: ")) for d in json.loads(out)}
    assert found == {
        "first.py": ("TL000", "non-UTF-8 byte 0xe9 on line 1, column 7, and no encoding declared (see PEP 263)"),
        "declared.py": ("TL301", found["declared.py"][1]),
        "ascii.py": ("TL000", "cannot decode as ascii: byte 0xe9 on line 2, column 6 is invalid"),
    }


def test_an_internal_failure_exits_2_with_its_traceback(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not 1, which says that findings remain: a CI job must not read a crash as findings."""
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something inside broke")

    monkeypatch.setattr("trainlint.cli.execute", broken)
    code, out, err = invoke("src", "--no-cache", cwd=project)
    assert code == 2, (out, err)
    assert "RuntimeError: something inside broke" in err and "internal error" in err


def test_a_walk_stays_in_the_tree_as_git_and_ruff_walk_it(tmp_path: Path) -> None:
    """A link to a folder is not followed (it may lead out of the project), a
    link that points nowhere is skipped, and a file reached through a linked
    file too is reported once, under its own path; named explicitly, a linked
    folder is linted and a dangling link is a file that cannot be read."""
    (tmp_path / "proj" / "a").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "proj" / "a" / "x.py").write_text(DP_BUG)
    (tmp_path / "outside" / "o.py").write_text(DP_BUG)
    (tmp_path / "proj" / "a" / "data").symlink_to(Path("..", "..", "outside"))
    (tmp_path / "proj" / "xlink.py").symlink_to(Path("a", "x.py"))
    (tmp_path / "proj" / "dangling.py").symlink_to("missing.py")
    proj = tmp_path / "proj"
    for named in (".", "a"):
        code, out, err = invoke(named, "--no-cache", "--format", "json", cwd=proj)
        assert (code, err) == (1, ""), named
        assert [(f["path"], f["code"]) for f in json.loads(out)] == [("a/x.py", "TL301")], named
    code, out, _ = invoke("a/data", "dangling.py", "--no-cache", "--format", "json", cwd=proj)
    assert code == 1 and [(f["path"], f["code"]) for f in json.loads(out)] == [
        ("a/data/o.py", "TL301"), ("dangling.py", "TL000")]


def test_missing_path_is_an_error_but_the_rest_is_linted(project: Path) -> None:
    code, out, err = invoke("src", "nope.py", "--no-cache", cwd=project)
    assert code == 2
    assert "nope.py: no such file or directory" in err
    assert "TL301" in out


def test_fix_writes_atomically_and_relints_clean(project: Path) -> None:
    code, out, _ = invoke("src/clip.py", "--fix", cwd=project)
    fixed = (project / "src" / "clip.py").read_text()
    assert "scaler.unscale_(opt)\n    torch.nn.utils.clip_grad_norm_" in fixed
    assert code == 0 and "Fixed 1 finding" in out
    assert out.index("Fixed 1 finding") < out.index("Found 0 findings (0 fixable)."), out  # what was fixed, then what remains
    assert not list((project / "src").glob(".*.tmp"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_and_add_noqa_keep_the_owner_group_and_mode_of_the_file(tmp_path: Path) -> None:
    """The fixed file replaces the old one (atomically): it is given the old one's
    owner and group, as its mode, so root fixing a user's file leaves it theirs."""
    for option, source in (("--fix", CLIP_BUG), ("--add-noqa", DP_BUG)):
        path = tmp_path / "a.py"
        path.write_text(source)
        os.chown(path, 65534, 65534)
        path.chmod(0o640)
        code, _, err = invoke("a.py", option, "--no-cache", cwd=tmp_path)
        assert code in (0, 1) and path.read_text() != source, (option, err)
        stat = path.stat()
        assert (stat.st_uid, stat.st_gid, stat.st_mode & 0o7777) == (65534, 65534, 0o640), option


def test_diff_does_not_write(project: Path) -> None:
    code, out, _ = invoke("src/clip.py", "--diff", cwd=project)
    assert "+    scaler.unscale_(opt)" in out
    assert (project / "src" / "clip.py").read_text() == CLIP_BUG


def test_a_diff_of_a_file_without_a_last_newline_applies_with_patch(tmp_path: Path) -> None:
    """The last line of a file without a final newline is marked as `git diff`
    marks it, so the diff is one `patch` applies (not a line run into the next)."""
    import shutil

    (tmp_path / "t.py").write_text("import torch\nwith torch.cuda.amp.autocast():\n    y = 1")
    code, out, _ = invoke("t.py", "--diff", "--select", "TL102", cwd=tmp_path)
    assert code == 1 and out.endswith("     y = 1\n\\ No newline at end of file\n"), out
    if shutil.which("patch") is None:
        pytest.skip("patch is not installed")
    subprocess.run(["patch", "-s", "t.py"], input=out, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "t.py").read_text() == 'import torch\nwith torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    y = 1'


def test_a_diff_of_a_file_named_by_its_absolute_path_names_it_as_git_does(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_text("import torch\nwith torch.cuda.amp.autocast():\n    y = 1\n")
    code, out, _ = invoke(str(path), "--diff", "--select", "TL102", cwd=tmp_path)
    shown = str(path).lstrip("/")
    assert code == 1 and out.startswith(f"--- a/{shown}\n+++ b/{shown}\n"), out


def test_unsafe_fixes_need_the_flag(tmp_path: Path) -> None:
    source = UNSAFE_ONLY
    (tmp_path / "a.py").write_text(source)
    invoke("a.py", "--fix", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == source
    invoke("a.py", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "empty_cache" not in (tmp_path / "a.py").read_text()


def test_rules_and_explain(tmp_path: Path) -> None:
    code, out, _ = invoke("rules", cwd=tmp_path)
    assert code == 0 and "TL101" in out and "clip-before-unscale" in out
    code, out, _ = invoke("explain", "TL101", cwd=tmp_path)
    assert code == 0 and "## Why is this bad?" in out and "## Use instead" in out
    code, out, _ = invoke("explain", "data-parallel", cwd=tmp_path)
    assert code == 0 and "TL301" in out
    assert invoke("explain", "TL999", cwd=tmp_path)[0] == 2


def test_linting_never_imports_torch(project: Path) -> None:
    script = (
        "import sys\n"
        "from trainlint.cli import main\n"
        "try:\n"
        "    main(['src', '--no-cache', '--jobs', '1'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('no torch')\n"
    )
    env = child_env()
    done = subprocess.run([sys.executable, "-c", script], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "no torch" in done.stdout


def test_python_dash_m_lint(project: Path) -> None:
    env = child_env()
    done = subprocess.run(
        [sys.executable, "-m", "trainlint", "src/train.py", "--no-cache"], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1 and "TL301" in done.stdout
