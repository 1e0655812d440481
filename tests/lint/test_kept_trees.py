"""A file analysed again once the project knows what its calls do is not
parsed again: the process that analysed it first kept its tree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from trainlint import engine
from trainlint.config import Config, select_rules
from trainlint.engine import KeptTrees
from trainlint.runner import RunOptions, run

PROJECTS = Path(__file__).parent / "projects"


def _parses(project: str, jobs: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], set[tuple[str, int, str]]]:
    parsed: Counter[str] = Counter()
    parse = cst.parse_module

    def counting(source: str, *args: object, **kwargs: object) -> cst.Module:
        parsed[source] += 1
        return parse(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cst, "parse_module", counting)
    root = PROJECTS / project
    files = sorted(str(p) for p in root.rglob("*.py"))
    result = run(files, select_rules(None, [], []), Config(root=root), RunOptions(jobs=jobs))
    return parsed, {(Path(f.path).name, f.line, f.code) for f in result.findings}


@pytest.mark.parametrize("project", ["deit_layout", "package_layout", "lookalikes"])
def test_each_file_is_parsed_once_and_the_findings_are_those_of_two_parses(
    project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed, found = _parses(project, 1, monkeypatch)
    assert parsed and max(parsed.values()) == 1
    monkeypatch.setattr(engine, "KEPT_TREES", KeptTrees(limit=0))  # nothing kept: callers parsed twice
    reparsed, found_without = _parses(project, 1, monkeypatch)
    assert max(reparsed.values()) == 2
    assert found == found_without


def test_a_kept_tree_is_used_once() -> None:
    kept = KeptTrees()
    module = cst.parse_module("x = 1\n")
    kept.keep("x = 1\n", module)
    assert kept.take("y = 1\n") is None
    assert kept.take("x = 1\n") is module
    assert kept.take("x = 1\n") is None


def test_the_oldest_trees_go_first_when_over_the_limit() -> None:
    kept = KeptTrees(limit=20)
    sources = [f"x{i} = 1\n" for i in range(4)]  # 7 characters each
    for source in sources:
        kept.keep(source, cst.parse_module(source))
    assert [kept.take(s) is not None for s in sources] == [False, False, True, True]
    kept.keep("y = " + "1" * 30 + "\n", cst.parse_module("y = 1\n"))  # bigger than the limit: not kept
    assert kept.take("y = " + "1" * 30 + "\n") is None


def test_parallel_runs_route_the_second_analysis_home_and_find_the_same() -> None:
    root = PROJECTS / "package_layout"
    files = sorted(str(p) for p in root.rglob("*.py"))
    selection = select_rules(None, [], [])
    serial = run(files, selection, Config(root=root), RunOptions(jobs=1)).findings
    parallel = run(files, selection, Config(root=root), RunOptions(jobs=2)).findings
    assert parallel == serial


def test_a_run_leaves_no_tree_kept_in_its_process(tmp_path: Path) -> None:
    """A long-lived process (an editor's server) runs many checks: the
    trees one run kept for its second analyses must not outlive it, also
    those of files that needed none (their calls turned out to do nothing)."""
    (tmp_path / "helpers.py").write_text(
        "def log(value):\n    print(value)\n\n\ndef evaluate(model):\n    model.eval()\n"
    )
    (tmp_path / "main.py").write_text(
        "import torch\nfrom helpers import log\n\n\ndef train(model, loader, optimizer):\n"
        "    for x in loader:\n        loss = model(x).sum()\n        loss.backward()\n"
        "        optimizer.step()\n        optimizer.zero_grad()\n        log(loss.item())\n"
    )
    kept: list[str] = []
    keep = engine.KEPT_TREES.keep

    def recording(source: str, module: cst.Module) -> None:
        kept.append(source)
        keep(source, module)

    files = sorted(str(p) for p in tmp_path.glob("*.py"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine.KEPT_TREES, "keep", recording)
        run(files, select_rules(None, [], []), Config(root=tmp_path), RunOptions(jobs=1))
    assert kept  # main.py calls into helpers.py: its tree was kept
    assert engine.KEPT_TREES._trees == {}
