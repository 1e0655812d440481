"""`trainlint - --stdin-filename PATH`: standard input linted as if it were
PATH (configuration, per-file ignores, exclusion, noqa); with --fix the code
goes to stdout and the report to stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CLIP_BUG, DP_BUG, invoke, invoke_raw


def test_stdin_is_reported_under_the_given_name(tmp_path: Path) -> None:
    code, out, _ = invoke("-", "--stdin-filename", "src/train.py", "--no-cache", cwd=tmp_path, stdin=DP_BUG)
    assert code == 1 and out.startswith("src/train.py:2:9: TL301 ")
    assert not (tmp_path / ".trainlint_cache").exists() and not (tmp_path / "src").exists()
    code, out, _ = invoke("-", "--format", "json", cwd=tmp_path, stdin=DP_BUG + "x = 1  # noqa\n")
    assert code == 1 and [(d["path"], d["code"]) for d in json.loads(out)] == [("-", "TL301")]


def test_noqa_and_the_configuration_of_that_path_apply(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.trainlint]\nignore = ["TL101"]\nper-file-ignores = {"tests/*" = ["TL301"]}\n'
    )
    args = ("-", "--format", "json", "--stdin-filename")
    _, out, _ = invoke(*args, "project/tests/test_x.py", cwd=tmp_path, stdin=DP_BUG + CLIP_BUG)
    assert json.loads(out) == [], "ignore and per-file-ignores of project/pyproject.toml apply"
    _, out, _ = invoke(*args, "project/train.py", cwd=tmp_path, stdin=DP_BUG + CLIP_BUG)
    assert {d["code"] for d in json.loads(out)} == {"TL301"}
    noqa = DP_BUG.replace("(model)\n", "(model)  # noqa: TL301\n")
    _, out, _ = invoke(*args, "project/train.py", cwd=tmp_path, stdin=noqa)
    assert json.loads(out) == []


def test_an_excluded_name_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nexclude = ["vendor/*"]\n')
    code, out, _ = invoke("-", "--stdin-filename", "vendor/x.py", cwd=tmp_path, stdin=DP_BUG)
    assert code == 0 and "TL301" not in out
    source = CLIP_BUG.encode() + b"\r\n"
    done = invoke_raw("-", "--stdin-filename", "vendor/x.py", "--fix", cwd=tmp_path, stdin=source)
    assert done.exit_code == 0 and done.stdout_bytes == source


def test_fix_writes_the_code_to_stdout_and_the_report_to_stderr(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("on disk\n")
    code, out, err = invoke("-", "--stdin-filename", "train.py", "--fix", cwd=tmp_path, stdin=DP_BUG + CLIP_BUG)
    assert "    scaler.unscale_(opt)\n    torch.nn.utils.clip_grad_norm_" in out
    assert out.startswith(DP_BUG) and "TL301" not in out
    assert "train.py:2:9: TL301" in err and "Fixed 1 finding(s)" in err
    assert code == 1, "a finding remains"
    assert (tmp_path / "train.py").read_text() == "on disk\n"
    code, out, _ = invoke("-", "--fix", cwd=tmp_path, stdin=out)
    assert code == 1 and "TL301" not in out, "fixing again changes nothing"


@pytest.mark.parametrize("output_format", ["json", "sarif", "gitlab"])
def test_fix_with_a_format_for_programs_leaves_stderr_to_the_report(tmp_path: Path, output_format: str) -> None:
    """The report a program reads from stderr is all that is there: no
    "Fixed 1 finding(s)" before it, no warning about the configuration."""
    (tmp_path / "other.toml").write_text("[tool.ruff]\nline-length = 100\n")
    code, out, err = invoke("-", "--stdin-filename", "a.py", "--fix", "--format", output_format,
                            "--config", "other.toml", cwd=tmp_path, stdin=DP_BUG + CLIP_BUG)
    assert code == 1 and "scaler.unscale_(opt)" in out
    json.loads(err)
    code, _, err = invoke("-", "--stdin-filename", "a.py", "--fix", cwd=tmp_path, stdin=DP_BUG + CLIP_BUG)
    assert code == 1 and "Fixed 1 finding(s)" in err, "the text report keeps its messages"


def test_fix_keeps_the_input_encoding(tmp_path: Path) -> None:
    source = b"\xef\xbb\xbf# -*- coding: utf-8 -*-\nname = '\xc3\xa9t\xc3\xa9'\n" + CLIP_BUG.encode()
    fixed = invoke_raw("-", "--fix", "-q", cwd=tmp_path, stdin=source).stdout_bytes
    assert fixed.startswith(source[:40]) and b"scaler.unscale_(opt)" in fixed
    latin = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n" + CLIP_BUG.encode()
    fixed = invoke_raw("-", "--fix", "-q", cwd=tmp_path, stdin=latin).stdout_bytes
    assert fixed.startswith(latin[:40]) and b"scaler.unscale_(opt)" in fixed


def test_diff_of_stdin(tmp_path: Path) -> None:
    code, out, _ = invoke("-", "--stdin-filename", "t.py", "--diff", cwd=tmp_path, stdin=CLIP_BUG)
    assert code == 1 and out.startswith("--- a/t.py\n+++ b/t.py\n") and "+    scaler.unscale_(opt)" in out
    code, out, _ = invoke("-", "--diff", cwd=tmp_path, stdin=DP_BUG)
    assert code == 0 and out == ""


def test_dash_with_other_paths_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = invoke("-", "a.py", cwd=tmp_path, stdin=DP_BUG)
    assert code == 2 and "standard input" in err
    code, _, err = invoke("a.py", "--stdin-filename", "b.py", cwd=tmp_path, stdin=DP_BUG)
    assert code == 2 and "--stdin-filename" in err


PROJECTS = Path(__file__).parent / "projects"
CROSS_FILE = ["clip_helpers", "step_helpers_layout", "scaler_object_layout", "inheritance_layout", "reexport_layout"]


@pytest.mark.parametrize("name", CROSS_FILE)
def test_stdin_gets_the_findings_of_the_file_linted_alone(name: str) -> None:
    """What the modules a file imports do counts for its text piped in, as for the
    file named on the command line: an editor's format-on-save sees the same findings."""
    project = PROJECTS / name
    for path in sorted(project.rglob("*.py")):
        relative = path.relative_to(project).as_posix()
        _, alone, _ = invoke(relative, "--no-cache", "--format", "json", cwd=project)
        _, piped, _ = invoke("-", "--stdin-filename", relative, "--format", "json", cwd=project,
                             stdin=path.read_text(encoding="utf-8"))
        assert json.loads(piped) == json.loads(alone), relative


def test_stdin_text_is_linted_as_piped_with_the_modules_it_imports(tmp_path: Path) -> None:
    """The piped text, not the file on disk, decides which helpers are called."""
    (tmp_path / "helpers.py").write_text("import torch\n\ndef clip(model):\n"
                                         "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n")
    (tmp_path / "train.py").write_text("x = 1\n")
    text = ("import torch\nfrom helpers import clip\n\ndef train(model, loader, opt):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n    for x in loader:\n        opt.zero_grad()\n"
            "        scaler.scale(model(x).sum()).backward()\n        clip(model)\n"
            "        scaler.step(opt)\n        scaler.update()\n")
    _, out, _ = invoke("-", "--stdin-filename", "train.py", "--format", "json", cwd=tmp_path, stdin=text)
    assert [(d["line"], d["code"]) for d in json.loads(out)] == [(9, "TL101")]


def test_stdin_follows_objects_of_imported_classes_in_a_file_that_never_says_backward(tmp_path: Path) -> None:
    """The text itself has no backward or step: all of it is in the helper's class."""
    (tmp_path / "helpers.py").write_text(
        "class Stepper:\n    def __call__(self, loss, optimizer):\n        loss.backward()\n        optimizer.step()\n")
    text = ("import torch\nfrom helpers import Stepper\n\ndef main(model, loader):\n"
            "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n    st = Stepper()\n"
            "    for x in loader:\n        st(model(x).sum(), optimizer)\n")
    (tmp_path / "train.py").write_text(text)
    _, alone, _ = invoke("train.py", "--no-cache", "--format", "json", cwd=tmp_path)
    _, piped, _ = invoke("-", "--stdin-filename", "train.py", "--format", "json", cwd=tmp_path, stdin=text)
    assert [(d["line"], d["code"]) for d in json.loads(alone)] == [(8, "TL401")]
    assert json.loads(piped) == json.loads(alone)


def test_a_notebook_piped_in_reads_the_project_modules_its_cells_import(tmp_path: Path) -> None:
    """`utils.step()` back-propagates and steps: the notebook piped in as
    `n.ipynb` gets the TL401 that `trainlint check n.ipynb` reports, and so does
    its code piped in as a Python file; a look-alike helper that only logs gives none."""
    (tmp_path / "utils.py").write_text("import torch\n\ndef step(model, x, opt):\n"
                                       "    model(x).sum().backward()\n    opt.step()\n")
    cells = [["import torch\n", "from utils import step\n", "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"],
             ["for x in data:\n", "    step(model, x, opt)\n"]]
    notebook = json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                      "source": cell} for cell in cells],
                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    (tmp_path / "n.ipynb").write_text(notebook)
    named = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1]
    piped = invoke("-", "--stdin-filename", "n.ipynb", cwd=tmp_path, stdin=notebook)[1]
    assert piped == named and named.startswith("n.ipynb:cell 2:2:5: TL401 `step()` back-propagates"), piped
    code = "".join(line for cell in cells for line in cell)
    as_python = invoke("-", "--stdin-filename", "t.py", cwd=tmp_path, stdin=code)[1]
    assert as_python.startswith("t.py:5:5: TL401 `step()` back-propagates"), as_python
    (tmp_path / "utils.py").write_text("def step(model, x, opt):\n    print(model, x, opt)\n")
    assert invoke("-", "--stdin-filename", "n.ipynb", cwd=tmp_path, stdin=notebook)[1] == "Found 0 findings (0 fixable).\n"
