"""Jupyter notebooks: their code cells linted as one module, findings placed
by cell in every report format, IPython syntax blanked, folders walked for
notebooks only when `extend-include` says so, and fixes written into the cells
they change, every other byte of the JSON kept."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
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


def test_the_reports_by_file_lines_lead_with_the_place_in_the_notebook() -> None:
    from trainlint.finding import placed_message

    found = Finding("n.ipynb", 5, 9, 5, 12, "TL401", "missing-zero-grad", "error", "no zero_grad", cell=3)
    assert placed_message(found) == "cell 3, line 5, column 9: no zero_grad"
    assert placed_message(replace(found, path="n.py", cell=None)) == "no zero_grad"


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


def test_a_cell_that_is_no_python_alone_is_tl000_and_the_other_cells_are_linted_and_fixed(tmp_path: Path) -> None:
    """The kernel compiles each cell by itself: a shell command without its `!`
    (IPython's automagic) or a half-written cell fails alone, the rest still runs."""
    cells = (SETUP, ["ls -l data/\n"], LOOP, ["scaler = torch.cuda.amp.GradScaler()\n"], ["def f(:\n", "    pass"])
    before = notebook(*cells)
    (tmp_path / "n.ipynb").write_text(before)
    out = invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1].splitlines()
    assert out[0] == "n.ipynb:cell 2:1:7: TL000 cell cannot be parsed: syntax error: invalid syntax (the other cells are linted)"
    assert out[1].startswith("n.ipynb:cell 3:4:5: TL401 ") and out[2].startswith("n.ipynb:cell 4:1:10: TL102 [*] ")
    assert out[3].startswith("n.ipynb:cell 5:1:7: TL000 ") and out[-1] == "Found 4 findings (1 fixable)."
    assert invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)[0] == 1
    after = json.loads((tmp_path / "n.ipynb").read_text())["cells"]
    assert [cell["source"] for cell in after] == [*cells[:3], ['scaler = torch.amp.GradScaler("cuda")\n'], cells[4]]


def test_from_cells_names_the_cells_that_are_no_python_alone() -> None:
    from trainlint.notebook import from_cells

    assert from_cells(["x = 1\n", None, "y = (\n"]).broken == ((1, "syntax error: '(' was never closed", 2, 5),)
    assert from_cells(["x = 1\n", "y = 2\n"]).broken == ()


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


def test_findings_sort_by_path_cell_line_column_and_code() -> None:
    def at(path: str, line: int, code: str = "TL101", cell: int | None = None) -> Finding:
        return Finding(path, line, 1, line, 2, code, "name", "error", "message", cell=cell)

    ordered = [at("a.py", 2), at("a.py", 2, "TL102"), at("a.py", 10), at("b.ipynb", 9, cell=1), at("b.ipynb", 1, cell=2)]
    assert sorted(reversed(ordered)) == ordered
    first, second = ordered[:2]
    assert first < second and first <= second and second > first and second >= first
    assert not second < first and not second <= first and not first > second and not first >= second
    same_place = Finding("a.py", 2, 1, 2, 2, "TL101", "other", "warning", "said otherwise")
    assert first <= same_place and first >= same_place and not first < same_place and not first > same_place


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


def test_folders_inside_an_autosave_folder_are_autosaved_copies_too(tree: Path) -> None:
    inner = tree / ".ipynb_checkpoints" / "old"
    inner.mkdir()
    shutil.copy(FIXTURE, inner / "train-checkpoint.ipynb")
    (tree / "pyproject.toml").write_text('[tool.trainlint]\nextend-include = ["*.ipynb"]\n')
    out = invoke(".", "--no-cache", cwd=tree)[1]
    assert _paths(out) == ["dp.py", "sub/other.ipynb", "train.ipynb"], out
    (tree / "pyproject.toml").unlink()
    (tree / "dp.py").unlink()
    err = invoke(".", "--no-cache", cwd=tree)[2]
    assert "2 notebooks (.ipynb) left out: name them" in err, err


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


# a loop cell whose one finding (TL101) has a safe fix: `scaler.unscale_(opt)` before the clip
SCALER = ["import torch\n", "scaler = torch.amp.GradScaler('cuda')"]
CLIP = ["for x in loader:\n", "    opt.zero_grad()\n", "    scaler.scale(model(x)).backward()\n",
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n", "    scaler.step(opt)\n", "    scaler.update()"]
UNSCALE = "    scaler.unscale_(opt)\n"


def with_unscale(notebook_text: str) -> str:
    """The text of a `rich_notebook(CLIP)` as fixed: one item added to the loop
    cell's list of lines, in its layout, and no other byte changed."""
    clip = '    "    torch.nn.utils.clip_grad_norm_'
    return notebook_text.replace(clip, f'    {json.dumps(UNSCALE)},\n{clip}', 1)


def rich_notebook(loop: list[str] | str, setup: list[str] = SCALER) -> str:
    """A notebook as Jupyter saves it, with what a fix must keep: outputs,
    metadata, ids, text beyond ASCII written as is, a markdown cell between."""
    cells = [
        {"cell_type": "code", "execution_count": 1, "id": "a1", "metadata": {"tags": ["setup"]},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ready ✓\n"]}], "source": setup},
        {"cell_type": "markdown", "id": "b2", "metadata": {}, "source": ["## Entraînement"]},
        {"cell_type": "code", "execution_count": 2, "id": "c3", "metadata": {"scrolled": True},
         "outputs": [{"data": {"text/plain": ["0.5"]}, "execution_count": 2, "metadata": {},
                      "output_type": "execute_result"}], "source": loop},
    ]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1, ensure_ascii=False) + "\n"


def test_fix_writes_the_changed_cell_and_keeps_every_other_byte(tmp_path: Path) -> None:
    before = rich_notebook(CLIP)
    (tmp_path / "n.ipynb").write_text(before, encoding="utf-8")
    code, out, _ = invoke("n.ipynb", "--no-cache", cwd=tmp_path)
    assert out.startswith("n.ipynb:cell 3:4:5: TL101 [*] ") and "(1 fixable)" in out and code == 1
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    after = (tmp_path / "n.ipynb").read_text(encoding="utf-8")
    assert after == with_unscale(before) != before
    assert json.loads(after)["cells"][2]["source"] == [*CLIP[:3], UNSCALE, *CLIP[3:]]
    assert code == 0 and out == "Fixed 1 finding(s) in 1 file(s).\nFound 0 findings (0 fixable).\n"
    assert invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1] == "Found 0 findings (0 fixable).\n"


def test_a_fix_in_a_cell_with_ipython_syntax_is_not_made(tmp_path: Path) -> None:
    """The cell's code is not the module's lines there: it is neither fixable nor fixed."""
    before = rich_notebook(["%time\n", *CLIP])
    (tmp_path / "n.ipynb").write_text(before, encoding="utf-8")
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == before
    assert out.startswith("n.ipynb:cell 3:5:5: TL101 gradients") and "(0 fixable)" in out and code == 1
    assert "+++" not in invoke("n.ipynb", "--diff", "--no-cache", cwd=tmp_path)[1]


def test_ipython_syntax_in_another_cell_does_not_stop_the_fix(tmp_path: Path) -> None:
    (tmp_path / "n.ipynb").write_text(rich_notebook(CLIP, ["!pip install torch\n", "%matplotlib inline\n", *SCALER]))
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    cells = json.loads((tmp_path / "n.ipynb").read_text())["cells"]
    assert cells[0]["source"][:2] == ["!pip install torch\n", "%matplotlib inline\n"] and UNSCALE in cells[2]["source"]
    assert code == 0


def test_an_import_a_fix_adds_goes_to_the_cell_of_the_imports(tmp_path: Path) -> None:
    """TL102's fix adds `import torch` above the import in cell 1, for the finding
    in cell 3: with a magic in cell 1 that fix cannot be written, so the finding is not fixable."""
    setup = ["from torch.cuda.amp import GradScaler"]
    loop = ["scaler = GradScaler()"]
    (tmp_path / "n.ipynb").write_text(rich_notebook(loop, setup))
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    cells = json.loads((tmp_path / "n.ipynb").read_text())["cells"]
    assert cells[0]["source"] == ["import torch\n", "from torch.cuda.amp import GradScaler"], cells[0]["source"]
    assert cells[2]["source"] == ['scaler = torch.amp.GradScaler("cuda")'] and code == 0
    magic = rich_notebook(loop, ["%load_ext autoreload\n", *setup])
    (tmp_path / "n.ipynb").write_text(magic)
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_text() == magic
    assert out.startswith("n.ipynb:cell 3:1:10: TL102 ") and "(0 fixable)" in out


def test_a_cell_source_given_as_one_string_stays_one_string(tmp_path: Path) -> None:
    before = rich_notebook("".join(CLIP))
    (tmp_path / "n.ipynb").write_text(before)
    code, _, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    source = json.loads((tmp_path / "n.ipynb").read_text())["cells"][2]["source"]
    assert source == "".join([*CLIP[:3], UNSCALE, *CLIP[3:]]) and code == 0
    assert (tmp_path / "n.ipynb").read_text() == before.replace(json.dumps("".join(CLIP)),
                                                                 json.dumps(source))


def test_diff_shows_the_change_and_writes_nothing(tmp_path: Path) -> None:
    before = rich_notebook(CLIP)
    (tmp_path / "n.ipynb").write_text(before, encoding="utf-8")
    code, out, err = invoke("n.ipynb", "--diff", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == before
    assert "--- a/n.ipynb\n+++ b/n.ipynb\n" in out and f"\n+    {json.dumps(UNSCALE)},\n" in out
    assert code == 1 and "Would fix 1 finding(s)" in err


def test_unsafe_fixes_in_a_notebook(tmp_path: Path) -> None:
    from cli_runner import UNSAFE_ONLY

    lines = UNSAFE_ONLY.splitlines(keepends=True)
    (tmp_path / "n.ipynb").write_text(rich_notebook(lines[1:], ["import torch"]))
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert "TL201 [*]" in out and "1 of the fixable findings needs `--fix --unsafe-fixes`" in out and code == 1
    code, out, _ = invoke("n.ipynb", "--fix", "--unsafe-fixes", "--no-cache", cwd=tmp_path)
    assert "    torch.cuda.empty_cache()" not in json.loads((tmp_path / "n.ipynb").read_text())["cells"][2]["source"]
    assert code == 0, out


def test_a_crash_while_writing_the_notebook_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    before = rich_notebook(CLIP)
    (tmp_path / "n.ipynb").write_text(before, encoding="utf-8")

    def power_cut(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", power_cut)
    code, out, err = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.ipynb"]  # no half-written copy left
    assert "n.ipynb: cannot write fixes: Input/output error" in err and code == 2
    assert "TL101 [*]" in out  # the findings of the notebook as it stays


def test_a_layout_that_cannot_be_written_back_exactly_is_not_fixed(tmp_path: Path) -> None:
    """A list whose items are not the cell's lines, as nbformat writes them."""
    before = rich_notebook(["".join(CLIP[:3]), *CLIP[3:]])
    (tmp_path / "n.ipynb").write_text(before)
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_text() == before and "(0 fixable)" in out and code == 1


def test_the_fixture_fixes_nothing_and_add_noqa_writes_into_the_cell(nb: Path) -> None:
    """Its finding, TL401, has no fix; `--add-noqa` puts the comment on the
    finding's line in its cell (one under `%%time`: a line changed in place),
    every other byte of the JSON kept."""
    before = (nb / "train.ipynb").read_text(encoding="utf-8")
    code, out, _ = invoke("train.ipynb", "--diff", "--no-cache", cwd=nb)
    assert code == 0 and "+++" not in out
    (nb / "dp.py").write_text(DP_BUG)
    code, _, err = invoke("train.ipynb", "dp.py", "--add-noqa", "--no-cache", cwd=nb)
    step = '    "    opt.step()\\n",'
    assert before.count(step) == 1
    assert (nb / "train.ipynb").read_text(encoding="utf-8") == before.replace(step, step.replace("()", "()  # noqa: TL401"))
    assert code == 0 and "to 2 file(s)" in err, err
    assert invoke("train.ipynb", "dp.py", "--no-cache", cwd=nb)[1] == "Found 0 findings (0 fixable).\n"


def test_add_noqa_in_a_notebook_whose_cells_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    old = {"worksheets": [{"cells": [{"cell_type": "code", "input": [*SETUP, *LOOP]}]}], "metadata": {}, "nbformat": 3}
    (tmp_path / "v3.ipynb").write_text(json.dumps(old))
    (tmp_path / "dp.py").write_text(DP_BUG)
    code, _, err = invoke("v3.ipynb", "dp.py", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert json.loads((tmp_path / "v3.ipynb").read_text()) == old and "# noqa: " in (tmp_path / "dp.py").read_text()
    assert "v3.ipynb: cannot add noqa comments: its cells cannot be written back exactly" in err and code == 2


def test_a_fix_of_a_line_in_place_is_made_in_a_cell_with_ipython_syntax() -> None:
    """Lines changed one for one, none of them IPython's, keep the cell's
    magic and its line ends; a change of the magic's own line is refused."""
    from trainlint.notebook import rewrite

    data = notebook(["%time\r\n", "x = 1\r\n", "y = 2"]).encode()
    read = read_notebook(data)
    changed = rewrite(read, "\nx = 1  # noqa\ny = 2\n")
    assert changed is not None and json.loads(changed.text or "")["cells"][0]["source"] == [
        "%time\r\n", "x = 1  # noqa\r\n", "y = 2"]
    assert rewrite(read, "z = 0\nx = 1\ny = 2\n") is None
    assert rewrite(read, "\nx = 1\nw = 0\ny = 2\n") is None  # a line added


def test_a_cached_finding_is_fixed_by_a_later_fix(tmp_path: Path) -> None:
    (tmp_path / "n.ipynb").write_text(rich_notebook(CLIP))
    assert "TL101 [*]" in invoke("n.ipynb", cwd=tmp_path)[1]
    code, _, err = invoke("n.ipynb", "--fix", "-v", cwd=tmp_path)
    assert UNSCALE in json.loads((tmp_path / "n.ipynb").read_text())["cells"][2]["source"] and code == 0
    assert invoke("n.ipynb", cwd=tmp_path)[1] == "Found 0 findings (0 fixable).\n"


def test_fix_of_a_notebook_on_standard_input_writes_its_json(tmp_path: Path) -> None:
    before = rich_notebook(CLIP)
    code, out, err = invoke("-", "--stdin-filename", "n.ipynb", "--fix", cwd=tmp_path, stdin=before.encode())
    assert out == with_unscale(before) != before
    assert code == 0 and "Fixed 1 finding(s)" in err


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


def test_rewrite_refuses_a_change_across_two_cells_and_keeps_an_unchanged_text() -> None:
    from trainlint.notebook import rewrite

    data = notebook(["a = 1\n", "b = 2"], ["c = 3\n", "d = 4"]).encode()
    read = read_notebook(data)
    assert (unchanged := rewrite(read, read.source)) is not None and unchanged.text == data.decode()
    assert rewrite(read, "a = 1\nB = C = 3\nd = 4\n") is None  # one hunk over cells 1 and 2
    one_cell = rewrite(read, "a = 1\nb = 2\nc = 3\nd = 5\n")
    assert one_cell is not None and json.loads(one_cell.text or "")["cells"][1]["source"] == ["c = 3\n", "d = 5"]


def test_lines_changed_in_place_on_both_sides_of_a_cell_end_stay_in_their_cells() -> None:
    from trainlint.notebook import rewrite

    data = notebook(["a = 1\n", "b = 2"], ["c = 3\n", "d = 4"]).encode()
    read = read_notebook(data)
    both = rewrite(read, "a = 1\nb = 20\nc = 30\nd = 4\n")
    assert both is not None
    assert [cell["source"] for cell in json.loads(both.text or "")["cells"]] == [["a = 1\n", "b = 20"],
                                                                                ["c = 30\n", "d = 4"]]
    assert rewrite(read, "a = 1\nb = 20\nx = 0\nc = 30\nd = 4\n") is None  # a line added: whose cell is it?


def test_fixes_at_the_end_of_one_cell_and_the_start_of_the_next_are_both_made(tmp_path: Path) -> None:
    cells = (["import torch\n", "scaler = torch.cuda.amp.GradScaler()\n"],
             "## then",
             ["with torch.cuda.amp.autocast():\n", "    pass"])
    (tmp_path / "n.ipynb").write_text(notebook(*cells), encoding="utf-8")
    assert invoke("n.ipynb", "--no-cache", cwd=tmp_path)[1].endswith("Found 2 findings (2 fixable).\n")
    assert invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)[0] == 0
    sources = [cell["source"] for cell in json.loads((tmp_path / "n.ipynb").read_text())["cells"]]
    assert sources[0] == ["import torch\n", 'scaler = torch.amp.GradScaler("cuda")\n']
    assert sources[2][0].startswith('with torch.amp.autocast("cuda"') and sources[2][1] == "    pass"


def test_unsafe_fixes_that_cannot_be_written_leave_the_safe_ones_to_be_made(tmp_path: Path) -> None:
    """TL201's unsafe fix falls in a cell with a magic; TL101's safe fix in a plain cell is still made."""
    from cli_runner import UNSAFE_ONLY

    lines = UNSAFE_ONLY.splitlines(keepends=True)
    text = notebook(["import torch\n", "scaler = torch.amp.GradScaler('cuda')\n"], ["%time\n", *lines[1:]], CLIP)
    (tmp_path / "n.ipynb").write_text(text)
    code, out, _ = invoke("n.ipynb", "--no-cache", cwd=tmp_path)
    assert "TL101 [*]" in out and "TL201 `" in out
    code, out, _ = invoke("n.ipynb", "--fix", "--unsafe-fixes", "--no-cache", cwd=tmp_path)
    cells = json.loads((tmp_path / "n.ipynb").read_text())["cells"]
    assert UNSCALE in cells[2]["source"] and cells[1]["source"] == ["%time\n", *lines[1:]]
    assert "TL201 `" in out and code == 1


# --- one lint, one reading of the JSON -------------------------------------------------


def _count_analyses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from trainlint import engine

    analysed: list[str] = []
    analyse = engine._analyse

    def counted(path: str, source: str, *args: object, **kwargs: object) -> object:
        analysed.append(source)
        return analyse(path, source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_analyse", counted)
    return analysed


def test_a_notebook_is_linted_once_and_its_fixable_findings_are_marked_from_that_lint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`[*]` comes from the fixes of the one lint, made on its tree and written
    into the cells: no second lint of the module per kind of fix."""
    from cli_runner import UNSAFE_ONLY
    from trainlint.engine import lint_notebook
    from trainlint.registry import all_rules

    analysed = _count_analyses(monkeypatch)
    outcome = lint_notebook("n.ipynb", rich_notebook(CLIP).encode(), all_rules())
    assert [(f.code, f.cell, f.fixable) for f in outcome.findings] == [("TL101", 3, True)] and len(analysed) == 1
    lines = UNSAFE_ONLY.splitlines(keepends=True)
    text = notebook(["import torch\n", "scaler = torch.amp.GradScaler('cuda')\n"], ["%time\n", *lines[1:]], CLIP)
    analysed.clear()
    outcome = lint_notebook("n.ipynb", text.encode(), all_rules())
    marks = {(f.code, f.fixable) for f in outcome.findings if f.code in ("TL101", "TL201")}
    assert marks == {("TL101", True), ("TL201", False)}
    assert len(analysed) == 1
    analysed.clear()
    outcome = lint_notebook("n.ipynb", rich_notebook(CLIP).encode(), all_rules(), fix="safe")
    assert outcome.fixed_source == with_unscale(rich_notebook(CLIP)) and outcome.findings == []
    assert len(analysed) == 2  # the notebook as read, and as fixed


def test_the_notebook_json_is_read_once_also_to_write_fixes(monkeypatch: pytest.MonkeyPatch) -> None:
    import trainlint.notebook as notebook_module
    from trainlint.engine import lint_notebook
    from trainlint.registry import all_rules

    data = rich_notebook(CLIP).encode()
    loads, whole = json.loads, []

    def loads_counted(text: str | bytes, *args: object, **kwargs: object) -> object:
        whole.append(len(text) >= len(data) // 2)
        return loads(text, *args, **kwargs)

    read = notebook_module._read_with_spans
    reads: list[int] = []
    monkeypatch.setattr(notebook_module.json, "loads", loads_counted)
    monkeypatch.setattr(notebook_module, "_read_with_spans", lambda text: reads.append(len(text)) or read(text))
    notebook_module.read_notebook.cache_clear()
    outcome = lint_notebook("n.ipynb", data, all_rules(), fix="safe")
    assert outcome.fixed_source == with_unscale(data.decode()) and reads == [len(data.decode())]
    assert not any(whole)  # only the new cell's source is read back


def test_a_byte_order_mark_is_kept_by_a_fix(tmp_path: Path) -> None:
    before = b"\xef\xbb\xbf" + rich_notebook(CLIP).encode()
    (tmp_path / "n.ipynb").write_bytes(before)
    code, out, _ = invoke("n.ipynb", "--no-cache", cwd=tmp_path)
    assert out.startswith("n.ipynb:cell 3:4:5: TL101 [*] ") and code == 1
    code, out, _ = invoke("n.ipynb", "--fix", "--no-cache", cwd=tmp_path)
    assert (tmp_path / "n.ipynb").read_bytes() == b"\xef\xbb\xbf" + with_unscale(rich_notebook(CLIP)).encode()
    assert code == 0, out


def test_malformed_worksheets_and_deep_json_are_tl000_and_the_other_files_are_still_linted(nb: Path) -> None:
    (nb / "v3.ipynb").write_text(json.dumps({"worksheets": [{"cells": 5}], "metadata": {}, "nbformat": 3}))
    (nb / "deep.ipynb").write_text('{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, _ = invoke("v3.ipynb", "deep.ipynb", "train.ipynb", "--no-cache", cwd=nb)
    lines = out.splitlines()
    assert lines[0] == "deep.ipynb:1:1: TL000 file cannot be parsed: notebook is not readable JSON: it nests too deep"
    assert lines[1].startswith(MISSING_ZERO_GRAD)
    assert lines[2] == "v3.ipynb:1:1: TL000 file cannot be parsed: not a Jupyter notebook: worksheet 1 has no list of 'cells'"
    assert code == 1 and lines[-1] == "Found 3 findings (0 fixable)."


def test_the_import_screen_takes_a_notebook_buffer_as_its_python(tmp_path: Path) -> None:
    """An editor's notebook buffer is the module of its cells: no JSON to read."""
    from trainlint.imports import imported_files

    (tmp_path / "utils.py").write_text("def step():\n    pass\n")
    (tmp_path / "n.ipynb").write_text(notebook(["import os\n"]))
    found = imported_files([str(tmp_path / "n.ipynb")], [str(tmp_path / "utils.py")], str(tmp_path),
                           texts={str(tmp_path / "n.ipynb"): b"from utils import step\n"})
    assert found == [str(tmp_path / "utils.py")]
    assert imported_files([str(tmp_path / "n.ipynb")], [str(tmp_path / "utils.py")], str(tmp_path)) == []


class _Renames:
    """A rule whose fix of `a` gives `b`, whose fix gives `c`: two rounds of fixes."""

    @staticmethod
    def rule() -> type:
        import libcst as cst

        from trainlint.rule import Fix, Rule

        class Renames(Rule):
            code, name, severity, message, fix_safety = "TL998", "renames", "warning", "renamed", "safe"

            def visit_Name(self, node: cst.Name) -> None:
                after = {"a": "b", "b": "c"}.get(node.value)
                if after is not None:
                    self.report(node, fix=Fix({node: node.with_changes(value=after)}))

        return Renames


def test_a_round_of_fixes_that_does_not_fit_ends_the_fixes_and_what_fitted_is_kept() -> None:
    """In a notebook, the cells written after the first round of fixes (`b`)
    stand even where the round it brings about (`c`) cannot be written."""
    from trainlint.engine import Fitting, lint_text

    rule = _Renames.rule()
    fitting = Fitting(lambda text: "c" not in text)
    outcome = lint_text("n.ipynb", "x = a\n", [rule], "safe", fitting=fitting)
    assert outcome.fixed_source == "x = b\n" and [f.code for f in outcome.findings] == ["TL998"]
    assert fitting.kinds == frozenset()  # the finding left is not fixable there
    free = Fitting(lambda text: True)
    assert lint_text("n.ipynb", "x = a\n", [rule], "safe", fitting=free).fixed_source == "x = c\n"
    assert free.kinds == frozenset()  # nothing left to fix
    marks = Fitting(lambda text: True)
    assert lint_text("n.ipynb", "x = a\n", [rule], None, fitting=marks).fixed_source is None
    assert marks.kinds == {"safe"}
