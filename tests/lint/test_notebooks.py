"""Jupyter notebooks: their code cells linted as one module, findings placed
by cell in every report format, IPython syntax blanked, folders walked for
notebooks only when `extend-include` says so, and notebooks never rewritten."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_runner import CLIP_BUG, DP_BUG, invoke
from test_cli_formats import _schema_errors

from trainlint.finding import Finding
from trainlint.notebook import NotebookError, code_lines, read_notebook

FIXTURE = Path(__file__).parent / "fixtures" / "notebooks" / "train.ipynb"
# the fixture's one finding: `opt.step()` in cell 3 (the second code cell), its line 5
MISSING_ZERO_GRAD = "train.ipynb:cell 3:5:5: TL401 "

SETUP = ["import torch\n", "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"]
LOOP = ["for x, y in data:\n", "    loss = model(x).sum()\n", "    loss.backward()\n", "    opt.step()\n"]


def notebook(*cells: list[str] | str, kind: str = "code", language: str = "python") -> str:
    """A notebook of code cells (a cell given as a string is a markdown cell),
    written as nbformat writes it (one-space indents, sources as lists of lines)."""
    made = []
    for cell in cells:
        if isinstance(cell, str):
            made.append({"cell_type": "markdown", "metadata": {}, "source": [cell]})
        else:
            made.append({"cell_type": kind, "execution_count": None, "metadata": {}, "outputs": [], "source": cell})
    return json.dumps({"cells": made, "metadata": {"kernelspec": {"language": language, "name": "k"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.fixture()
def nb(tmp_path: Path) -> Path:
    shutil.copy(FIXTURE, tmp_path / "train.ipynb")
    return tmp_path


# --- reports -----------------------------------------------------------------


def test_text_names_the_cell_and_the_line_within_it(nb: Path) -> None:
    code, out, _ = invoke("train.ipynb", "--no-cache", cwd=nb)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith(MISSING_ZERO_GRAD), out
    assert "[*]" not in lines[0] and lines[1] == "Found 1 findings (0 fixable)."


def test_json_has_the_cell_and_lines_within_it_and_python_files_are_unchanged(nb: Path) -> None:
    (nb / "dp.py").write_text(DP_BUG)
    code, out, _ = invoke("train.ipynb", "dp.py", "--format", "json", "--no-cache", cwd=nb)
    assert code == 1
    python, cells = json.loads(out)  # sorted by path
    assert "cell" not in python and python["path"] == "dp.py"
    assert {k: cells[k] for k in ("path", "cell", "line", "column", "end_line", "end_column", "code", "fixable", "fix")} \
        == {"path": "train.ipynb", "cell": 3, "line": 5, "column": 5, "end_line": 5, "end_column": 15,
            "code": "TL401", "fixable": False, "fix": None}


def test_sarif_places_a_notebook_finding_on_the_file_and_passes_the_schema(nb: Path) -> None:
    (nb / "dp.py").write_text(DP_BUG)
    code, out, _ = invoke("train.ipynb", "dp.py", "--format", "sarif", "--no-cache", cwd=nb)
    log = json.loads(out)
    assert code == 1 and _schema_errors(log) == []
    results = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in log["runs"][0]["results"]}
    cell = results["train.ipynb"]
    assert cell["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    assert cell["message"]["text"].startswith("cell 3, line 5, column 5: this loop back-propagates")
    assert cell["properties"] == {"cell": 3, "cellStartLine": 5, "cellStartColumn": 5, "cellEndLine": 5,
                                  "cellEndColumn": 15}
    assert "properties" not in results["dp.py"] and results["dp.py"]["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


def test_github_annotates_the_notebook_file_with_the_cell_in_the_message(nb: Path) -> None:
    code, out, _ = invoke("train.ipynb", "--format", "github", "--no-cache", cwd=nb)
    assert code == 1
    assert out.startswith("::error file=train.ipynb,title=TL401::cell 3, line 5, column 5: this loop"), out
    assert "line=" not in out.split("::")[1]


def test_gitlab_and_junit_carry_the_cell(nb: Path) -> None:
    issue, = json.loads(invoke("train.ipynb", "--format", "gitlab", "--no-cache", cwd=nb)[1])
    assert issue["location"] == {"path": "train.ipynb", "lines": {"begin": 1, "end": 1}}
    assert "cell 3, line 5, column 5: " in issue["description"]
    suites = ElementTree.fromstring(invoke("train.ipynb", "--format", "junit", "--no-cache", cwd=nb)[1])
    case = suites.find("testsuite/testcase")
    assert case is not None and case.get("name") == "TL401 missing-zero-grad (cell 3:5:5)" and case.get("line") is None


def test_statistics_count_notebook_findings(nb: Path) -> None:
    code, out, _ = invoke("train.ipynb", "--statistics", "--no-cache", cwd=nb)
    assert code == 1 and "TL401" in out and out.split()[0] == "1"


def test_findings_are_sorted_by_cell_then_line(tmp_path: Path) -> None:
    dp = ["import torch.nn as nn\n", "m = nn.DataParallel(m)\n"]
    text = notebook([*SETUP, *LOOP], ["\n", "\n", "\n", "\n", "\n", "\n", *dp])
    (tmp_path / "n.ipynb").write_text(text)
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1].splitlines()
    assert [line.split(": ")[0] for line in out[:2]] == ["n.ipynb:cell 1:6:5", "n.ipynb:cell 2:8:5"], out


# --- what is linted --------------------------------------------------------------


def test_cells_share_one_namespace_as_the_kernel_runs_them(tmp_path: Path) -> None:
    """The optimizer of one cell, stepped in a later one: one module."""
    (tmp_path / "n.ipynb").write_text(notebook(SETUP, "some *text*", LOOP))
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1]
    assert out.startswith("n.ipynb:cell 3:4:5: TL401 "), out


def test_markdown_raw_cells_and_other_languages_are_not_code(tmp_path: Path) -> None:
    (tmp_path / "md.ipynb").write_text(notebook("import torch\nfor x in data:\n    loss.backward()\n    opt.step()\n"))
    (tmp_path / "raw.ipynb").write_text(notebook([*SETUP, *LOOP], kind="raw"))
    (tmp_path / "r.ipynb").write_text(notebook([*SETUP, *LOOP], language="R"))
    code, out, _ = invoke("md.ipynb", "raw.ipynb", "r.ipynb", "--no-cache", cwd=tmp_path)
    assert code == 0 and out == "Found 0 findings (0 fixable).\n"


def test_cell_sources_given_as_one_string_and_nbformat_3(tmp_path: Path) -> None:
    doc = json.loads(notebook(["x = 1\n"]))
    doc["cells"][0]["source"] = "".join([*SETUP, *LOOP])
    (tmp_path / "s.ipynb").write_text(json.dumps(doc))
    old = {"worksheets": [{"cells": [{"cell_type": "code", "input": [*SETUP, *LOOP]}]}],
           "metadata": {}, "nbformat": 3}
    (tmp_path / "v3.ipynb").write_text(json.dumps(old))
    out = invoke("s.ipynb", "v3.ipynb", "--no-cache", cwd=tmp_path)[1].splitlines()
    assert [line.split(": ")[0] for line in out[:2]] == ["s.ipynb:cell 1:6:5", "v3.ipynb:cell 1:6:5"], out


def test_invalid_json_is_tl000_and_the_other_files_are_still_linted(nb: Path) -> None:
    (nb / "broken.ipynb").write_text('{\n "cells": [\n  {"cell_type": "code",,}\n ]\n}\n')
    (nb / "list.ipynb").write_text("[1, 2]\n")
    (nb / "dp.py").write_text(DP_BUG)
    code, out, _ = invoke("broken.ipynb", "list.ipynb", "train.ipynb", "dp.py", "--no-cache", cwd=nb)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "broken.ipynb:3:24: TL000 file cannot be parsed: notebook is not valid JSON: Expecting property name enclosed in double quotes", lines
    assert lines[1].startswith("dp.py:2:")
    assert lines[2] == "list.ipynb:1:1: TL000 file cannot be parsed: not a Jupyter notebook: the JSON is a list, not an object"
    assert lines[3].startswith(MISSING_ZERO_GRAD) and lines[-1] == "Found 4 findings (0 fixable)."


def test_a_syntax_error_is_placed_in_its_cell(tmp_path: Path) -> None:
    (tmp_path / "n.ipynb").write_text(notebook(["import torch\n"], ["x = 1\n", "def f(:\n"]))
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1]
    assert out.startswith("n.ipynb:cell 2:2:") and " TL000 " in out, out


# --- suppression ---------------------------------------------------------------


def test_noqa_in_a_cell(tmp_path: Path) -> None:
    loop = [*LOOP[:3], "    opt.step()  # noqa: TL401\n"]
    (tmp_path / "line.ipynb").write_text(notebook(SETUP, loop))
    (tmp_path / "file.ipynb").write_text(notebook(SETUP, ["# trainlint: noqa: TL401\n"], LOOP))
    (tmp_path / "unused.ipynb").write_text(notebook(["import torch  # noqa: TL401\n", SETUP[1]], LOOP))
    code, out, _ = invoke("line.ipynb", "file.ipynb", "unused.ipynb", "--no-cache", cwd=tmp_path)
    lines = out.splitlines()
    assert code == 1 and len(lines) == 3, out
    assert lines[0].startswith("unused.ipynb:cell 1:1:") and " TL001 " in lines[0]
    assert lines[1].startswith("unused.ipynb:cell 2:4:5: TL401 ")


# --- IPython syntax ----------------------------------------------------------------


def test_magics_and_shell_lines_are_blanked_without_moving_lines(tmp_path: Path) -> None:
    cell = [
        "%load_ext autoreload\n",
        "!pip install torch \\\n",
        "    torchvision\n",
        "files = !ls *.pt\n",
        "torch.optim?\n",
        *SETUP,
        "for x, y in data:\n",
        "    %time loss = model(x).sum()\n",
        "    loss.backward()\n",
        "    opt.step()\n",
    ]
    (tmp_path / "n.ipynb").write_text(notebook(cell))
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1]
    assert out.startswith("n.ipynb:cell 1:11:5: TL401 "), out


def test_cell_magics(tmp_path: Path) -> None:
    """`%%time` runs its body as Python (linted); `%%bash`'s body is no Python."""
    (tmp_path / "n.ipynb").write_text(notebook(
        SETUP, ["%%bash\n", "for f in *.pt; do echo $f; done\n"], ["%%time\n", *LOOP],
        ["%%writefile train.py\n", "def (broken\n"]))
    code, out, _ = invoke("n.ipynb", "--no-cache", cwd=tmp_path)
    assert out.splitlines()[0].startswith("n.ipynb:cell 3:5:5: TL401 "), out
    assert "TL000" not in out


def test_code_lines_keeps_python_that_looks_like_magic() -> None:
    cell = 'msg = ("%d steps"\n       % steps)\ntext = """\n!not a shell line\n"""\nif ok:\n    !nvidia-smi\n'
    assert code_lines(cell) == ['msg = ("%d steps"', "       % steps)", 'text = """', "!not a shell line", '"""',
                                "if ok:", "    pass"]
    assert code_lines("x = 1 \\\n%  2\n") == ["x = 1 \\", "%  2"]  # a continued line is the same statement
    assert code_lines("t = %timeit -o f()\na, b = !ls\n") == ["t = None", "a, b = None"]
    assert code_lines("%%capture out\nprint(1)\n") == ["", "print(1)"]
    assert code_lines("\n%%html\n<b>x</b>\n") == ["", "", ""]
    assert code_lines("") == []


def test_relocate_clamps_a_range_that_leaves_its_cell() -> None:
    nb = read_notebook(notebook(["x = '''\n", "open\n"], ["still the string'''\n"]).encode())
    assert nb.source == "x = '''\nopen\nstill the string'''\n" and nb.starts == (1, 3)
    found = Finding("n.ipynb", 1, 5, 3, 20, "TL000", "unparsable-file", "error", "m", fixable=True, fix="safe")
    placed = nb.relocate(found)
    assert (placed.cell, placed.line, placed.column, placed.end_line, placed.end_column) == (1, 1, 5, 1, 8)
    assert not placed.fixable and placed.fix is None


def test_read_notebook_errors() -> None:
    with pytest.raises(NotebookError, match="source of cell 1 is not text"):
        read_notebook(b'{"cells": [{"cell_type": "code", "source": 3}]}')
    with pytest.raises(NotebookError, match="no list of 'cells'"):
        read_notebook(b'{"nbformat": 4}')
    with pytest.raises(NotebookError) as caught:
        read_notebook(b"\xff\xfe{")
    assert "JSON" in caught.value.message


# --- folders ------------------------------------------------------------------------


@pytest.fixture()
def tree(nb: Path) -> Path:
    (nb / "dp.py").write_text(DP_BUG)
    (nb / ".ipynb_checkpoints").mkdir()
    shutil.copy(FIXTURE, nb / ".ipynb_checkpoints" / "train-checkpoint.ipynb")
    (nb / "sub").mkdir()
    shutil.copy(FIXTURE, nb / "sub" / "other.ipynb")
    return nb


def _paths(out: str) -> list[str]:
    return [line.split(":")[0] for line in out.splitlines()[:-1]]


def test_a_folder_walk_skips_notebooks_by_default(tree: Path) -> None:
    assert _paths(invoke(".", "--no-cache", cwd=tree)[1]) == ["dp.py"]


def test_a_walk_that_finds_only_notebooks_says_how_to_lint_them(tree: Path) -> None:
    code, out, err = invoke("sub", "--no-cache", cwd=tree)
    assert code == 0 and out == ""
    assert "no Python files found under sub; 1 notebook (.ipynb) left out: name it, or walk" in err, err
    assert 'extend-include = ["*.ipynb"]' in err and "--extend-include '*.ipynb'" in err
    (tree / "dp.py").unlink()
    err = invoke(".", "--no-cache", cwd=tree)[2]
    assert "2 notebooks (.ipynb) left out: name them" in err, err  # not the checkpoint copy
    err = invoke(".ipynb_checkpoints", "--no-cache", cwd=tree)[2]
    assert "no Python files found under .ipynb_checkpoints" in err and "left out" not in err, err


def test_extend_include_in_the_configuration(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.trainlint]\nextend-include = ["*.ipynb"]\n')
    out = invoke(".", "--no-cache", cwd=tree)[1]
    assert _paths(out) == ["dp.py", "sub/other.ipynb", "train.ipynb"], out  # no checkpoint copy


def test_extend_include_option_and_exclude(tree: Path) -> None:
    out = invoke(".", "--no-cache", "--extend-include", "*.ipynb", "--extend-exclude", "sub", cwd=tree)[1]
    assert _paths(out) == ["dp.py", "train.ipynb"], out


def test_extend_include_must_be_a_list_and_unknown_keys_stay_errors(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.trainlint]\nextend-include = "*.ipynb"\n')
    code, _, err = invoke(".", "--no-cache", cwd=tree)
    assert code == 2 and "'extend-include' must be a list of strings" in err
    (tree / "pyproject.toml").write_text('[tool.trainlint]\ninclude = ["*.ipynb"]\n')
    code, _, err = invoke(".", "--no-cache", cwd=tree)
    assert code == 2 and "unknown key 'include'" in err


# --- fixes and the cache -------------------------------------------------------------


def test_fix_never_rewrites_a_notebook_and_says_so(nb: Path) -> None:
    (nb / "clip.py").write_text(CLIP_BUG)
    before = (nb / "train.ipynb").read_bytes()
    code, out, err = invoke("train.ipynb", "clip.py", "--fix", "--no-cache", cwd=nb)
    assert (nb / "train.ipynb").read_bytes() == before
    assert (nb / "clip.py").read_text() != CLIP_BUG  # the Python file beside it is fixed
    assert any(line.startswith(MISSING_ZERO_GRAD) for line in out.splitlines()) and code == 1
    assert "notebooks are not fixed (their findings are never fixable): train.ipynb" in err


def test_diff_and_add_noqa_leave_notebooks_alone(nb: Path) -> None:
    before = (nb / "train.ipynb").read_bytes()
    code, out, _ = invoke("train.ipynb", "--diff", "--no-cache", cwd=nb)
    assert code == 0 and "+++" not in out
    code, _, err = invoke("train.ipynb", "--add-noqa", "--no-cache", cwd=nb)
    assert (nb / "train.ipynb").read_bytes() == before
    assert "no `# noqa` added to notebooks (train.ipynb)" in err


def test_the_cache_keeps_cells_and_sees_edits(nb: Path) -> None:
    first = invoke("train.ipynb", "--format", "json", cwd=nb)[1]
    code, second, err = invoke("train.ipynb", "--format", "json", "-v", cwd=nb)
    assert second == first and "0 linted, 1 from the cache" in err
    doc = json.loads((nb / "train.ipynb").read_text())
    doc["cells"][2]["source"].insert(1, "# a comment moves the loop one line down\n")
    (nb / "train.ipynb").write_text(json.dumps(doc, indent=1))
    found, = json.loads(invoke("train.ipynb", "--format", "json", cwd=nb)[1])
    assert (found["cell"], found["line"]) == (3, 6)


def test_a_notebook_named_alone_reads_the_project_modules_it_imports(tmp_path: Path) -> None:
    """What `utils.step()` does counts, as for a Python file named alone."""
    (tmp_path / "utils.py").write_text("import torch\n\ndef step(model, x, opt):\n"
                                       "    model(x).sum().backward()\n    opt.step()\n")
    (tmp_path / "n.ipynb").write_text(notebook(
        ["import torch\n", "from utils import step\n", SETUP[1]], ["for x in data:\n", "    step(model, x, opt)\n"]))
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1]
    assert out.startswith("n.ipynb:cell 2:2:5: TL401 `step()` back-propagates"), out
