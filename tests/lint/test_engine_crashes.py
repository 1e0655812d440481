"""A rule that raises, in a visit, in `finish` or in its fix, is a bug in
trainlint: the CLI names the file, the rule and the exception on stderr,
still reports every other finding, leaves a file whose fix raised as it was,
and exits with status 2, with one worker or several. The helpers that run a
rule on its examples fail with the crash too: the engine drops a crashed
rule's findings, so a good example (no findings expected) or a bad example
left unfixed would otherwise pass."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

import trainlint.registry
from trainlint.rule import Fix, Rule
from trainlint.testing import RuleCrashed, findings_of, fixed_source
from tests.lint.cli_runner import DP_BUG, invoke

REAL = trainlint.registry.by_code()
TL202 = REAL["TL202"]
# TL202 (with a safe fix) and TL301 in one file
BOTH = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "model = torch.nn.DataParallel(model)\n"
    "total = 0.0\n"
    "for x, y in loader:\n"
    "    loss = F.cross_entropy(model(x), y)\n"
    "    total += loss  # keeps every graph\n"
    "    optimizer.step()\n"
)


class _CrashInVisit(TL202):  # type: ignore[misc, valid-type]
    def visit_Call(self, node: cst.Call) -> None:
        raise ValueError("boom in visit")


class _CrashInFinish(TL202):  # type: ignore[misc, valid-type]
    def finish(self) -> None:
        super().finish()  # its findings are made, then lost with the crash
        raise ValueError("boom in finish")


class _Exploding(cst.Name):
    def _codegen_impl(self, state: object, default_semicolon: bool = False) -> None:  # type: ignore[override]
        raise ValueError("boom in fix")


class _CrashInFix(TL202):  # type: ignore[misc, valid-type]
    def report(self, node: cst.CSTNode, message: str | None = None, fix: Fix | None = None) -> None:
        if fix is not None:
            fix = Fix({edited: _Exploding("x") for edited in fix.edits}, fix.safety)
        super().report(node, message, fix)


STAGES: dict[str, type[Rule]] = {"visit": _CrashInVisit, "finish": _CrashInFinish, "fix": _CrashInFix}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "crash.py").write_text(BOTH, encoding="utf-8")
    for name in ("a.py", "b.py", "c.py"):  # enough files for a pool of workers
        (tmp_path / name).write_text(DP_BUG, encoding="utf-8")
    return tmp_path


def _crash(monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    """TL202 replaced by a rule that raises; forked workers inherit it."""
    swapped = {**REAL, "TL202": STAGES[stage]}
    monkeypatch.setattr(trainlint.registry, "by_code", lambda: swapped)
    monkeypatch.setattr(trainlint.registry, "rules_for", lambda codes: {c: swapped[c] for c in codes if c in swapped})


def _reported(out: str) -> set[tuple[str, str]]:
    return {(line.split(":")[0], line.split()[1]) for line in out.splitlines() if ".py:" in line}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("stage", ["visit", "finish"])
def test_a_crashing_rule_is_reported_and_the_others_findings_kept(
    project: Path, monkeypatch: pytest.MonkeyPatch, stage: str, jobs: str
) -> None:
    _crash(monkeypatch, stage)
    code, out, err = invoke(".", "--no-cache", "--jobs", jobs, cwd=project)
    assert code == 2
    assert f"TL202 crashed on crash.py: ValueError: boom in {stage}" in err
    assert "please report it" in err
    assert _reported(out) == {("crash.py", "TL301"), ("a.py", "TL301"), ("b.py", "TL301"), ("c.py", "TL301")}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_crashing_fix_leaves_the_file_unchanged_and_its_findings_reported(
    project: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    _crash(monkeypatch, "fix")
    code, out, err = invoke(".", "--no-cache", "--fix", "--jobs", jobs, cwd=project)
    assert code == 2
    assert "TL202 crashed while fixing on crash.py: ValueError: boom in fix" in err
    assert (project / "crash.py").read_text(encoding="utf-8") == BOTH
    assert {("crash.py", "TL202"), ("crash.py", "TL301")} <= _reported(out)


def test_without_a_crash_the_same_run_fixes_and_exits_normally(project: Path) -> None:
    """The fixture is sound: the real TL202 fixes the file."""
    code, _, err = invoke(".", "--no-cache", "--fix", cwd=project)
    assert code == 1 and "crashed" not in err
    assert (project / "crash.py").read_text(encoding="utf-8") != BOTH


def test_a_crash_is_not_cached(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _crash(monkeypatch, "finish")
    assert invoke(".", "--jobs", "1", cwd=project)[0] == 2
    code, _, err = invoke(".", "--jobs", "1", cwd=project)
    assert code == 2 and "TL202 crashed on crash.py" in err


def test_a_crash_on_standard_input(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _crash(monkeypatch, "fix")
    code, out, err = invoke("-", "--stdin-filename", "crash.py", "--fix", cwd=project, stdin=BOTH)
    assert code == 2
    assert "TL202 crashed while fixing on crash.py" in err
    assert out == BOTH  # the code comes back unchanged


def test_an_editor_is_shown_the_crash_once_with_the_other_findings(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygls")
    from pygls.workspace import TextDocument

    from trainlint.lsp.server import TrainlintServer, lint_document

    _crash(monkeypatch, "finish")
    # the documents module the server calls (another test may have imported it afresh)
    monkeypatch.setitem(lint_document.__globals__, "by_code", trainlint.registry.by_code)
    server = TrainlintServer()
    shown: list[object] = []
    monkeypatch.setattr(server, "window_show_message", shown.append)
    uri = (project / "crash.py").as_uri()
    assert [f.code for f in server.findings(TextDocument(uri, BOTH))] == ["TL301"]
    assert [f.code for f in server.findings(TextDocument(uri, BOTH + "\n"))] == ["TL301"]
    assert len(shown) == 1 and "TL202 crashed on" in shown[0].message  # type: ignore[attr-defined]


def test_the_noqa_of_a_crashed_rule_is_not_called_unused(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "crash.py").write_text(BOTH.replace("# keeps every graph", "# noqa: TL202, TL301"), encoding="utf-8")
    _crash(monkeypatch, "finish")
    code, out, _ = invoke("crash.py", "--no-cache", "--select", "TL001,TL202,TL301", cwd=project)
    unused = [line for line in out.splitlines() if " TL001 " in line]
    assert code == 2
    assert len(unused) == 1 and "TL301" in unused[0], "TL301 is unused there; TL202 crashed, so its noqa is not judged"
    assert "TL202" not in unused[0]


def test_a_worker_that_dies_costs_its_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that dies under a file (killed for memory) is replaced: the other
    files it held are analysed again alone, and the file it dies on there is reported as
    an error; the run goes on and reports everything else."""
    from dying_worker import analyse_or_die

    from trainlint import runner
    from trainlint.config import Config, select_rules

    monkeypatch.setattr(runner, "_analyse", analyse_or_die)  # the processes are started after this
    bug = "import torch.nn as nn\nm = nn.DataParallel(net)\n"
    paths = []
    for name in ("a.py", "b.py", "boom.py", "c.py", "d.py", "e.py"):
        (tmp_path / name).write_text(bug)
        paths.append(str(tmp_path / name))
    result = runner.run(paths, select_rules(None, [], []), Config(root=tmp_path), runner.RunOptions(jobs=2))
    assert sorted(Path(f.path).name for f in result.findings) == ["a.py", "b.py", "c.py", "d.py", "e.py"]
    assert len(result.errors) == 1 and "boom.py" in result.errors[0] and "the process analysing it died" in result.errors[0]


def test_a_process_found_dead_when_a_file_is_handed_to_it_is_replaced(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The process died under an earlier file before the run noticed: handing it the next
    file raises at once. That file goes to its replacement; nothing is lost."""
    from concurrent.futures.process import BrokenProcessPool

    from trainlint import runner
    from trainlint.config import Config, select_rules

    class DeadPool:
        def submit(self, *args: object, **kwargs: object) -> None:
            raise BrokenProcessPool("a child process terminated abruptly")

        def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
            pass

    real_new_pool = runner._Workers._new_pool
    made: list[object] = []

    def new_pool(self: object) -> object:
        made.append(None)
        return DeadPool() if len(made) == 1 else real_new_pool(self)  # type: ignore[arg-type]

    monkeypatch.setattr(runner._Workers, "_new_pool", new_pool)
    paths = []
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_text("import torch.nn as nn\nm = nn.DataParallel(net)\n")
        paths.append(str(tmp_path / name))
    result = runner.run(paths, select_rules(None, [], []), Config(root=tmp_path), runner.RunOptions(jobs=2))
    assert sorted(Path(f.path).name for f in result.findings) == ["a.py", "b.py", "c.py", "d.py"]
    assert result.errors == []


def test_a_rule_crashing_on_a_clean_example_fails_with_the_crash() -> None:
    with pytest.raises(RuleCrashed, match="TL202 crashed on example.py: ValueError: boom in visit"):
        findings_of(_CrashInVisit, TL202.good[0])


def test_a_fix_crashing_on_an_example_fails_with_the_crash() -> None:
    flagged = next(example.code for example in TL202.bad_examples() if example.fixed is not None)
    with pytest.raises(RuleCrashed, match="TL202 crashed while fixing on example.py: ValueError: boom in fix"):
        fixed_source(_CrashInFix, flagged)


def test_a_rule_that_does_not_crash_runs_on_its_examples_as_before() -> None:
    flagged = next(example.code for example in TL202.bad_examples() if example.fixed is not None)
    assert findings_of(TL202, TL202.good[0]) == []
    assert findings_of(TL202, flagged)
    assert fixed_source(TL202, flagged) != flagged
