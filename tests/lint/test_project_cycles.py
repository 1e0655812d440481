"""What the project answers about a file does not depend on what it was
asked before: an answer cut short by a cycle of calls across files is not
kept for other questions (an incremental run asks fewer questions than a
full one and must get the same answers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainlint.project import FileFacts, Project
from trainlint.summaries import NN_MODULE, STEP, TORCH_KIND, Call, Summary


def _facts(root: Path) -> dict[str, FileFacts]:
    def module(name: str, key: str, *events: object) -> tuple[str, FileFacts]:
        calls = frozenset(e.callee for e in events if isinstance(e, Call))
        return str(root / name), FileFacts({key: Summary(events=tuple(events))}, calls)  # type: ignore[arg-type]

    return dict(
        [
            module("a.py", "f", STEP, Call(".b.g")),  # a.f steps, then calls b.g
            module("b.py", "g", Call(".a.f")),  # b.g only calls a.f back
            module("uses_a.py", "run", Call(".a.f")),
            module("uses_b.py", "run", Call(".b.g")),
        ]
    )


def test_an_answer_does_not_depend_on_the_questions_asked_before(tmp_path: Path) -> None:
    facts = _facts(tmp_path)
    alone = Project(tmp_path, facts).inputs(str(tmp_path / "uses_b.py"))
    project = Project(tmp_path, facts)
    project.inputs(str(tmp_path / "uses_a.py"))  # closes b.g while a.f is still open
    after = project.inputs(str(tmp_path / "uses_b.py"))
    assert alone == after
    assert after[".b.g"].does(STEP)  # b.g calls a.f, which steps


def test_the_reads_of_an_answer_include_every_file_of_the_cycle(tmp_path: Path) -> None:
    facts = _facts(tmp_path)
    project = Project(tmp_path, facts)
    project.inputs(str(tmp_path / "uses_a.py"))
    _, read = project.inputs_and_reads(str(tmp_path / "uses_b.py"))
    assert {Path(p).name for p in read} == {"uses_b.py", "a.py", "b.py"}


def test_a_large_cycle_of_files_is_closed_in_a_few_rounds(tmp_path: Path, monkeypatch) -> None:
    """Each file calls the next and the previous one (a ring of 200 modules, as
    dense import cycles of a large package are): every function is found to
    step, and each file is closed a few times, not once per path through the ring."""
    import trainlint.project as project_module

    count = 200
    facts = {}
    for i in range(count):
        events: list[object] = [Call(f".m{(i + 1) % count}.f"), Call(f".m{(i - 1) % count}.f")]
        if i == count // 2:
            events.append(STEP)
        calls = frozenset(e.callee for e in events if isinstance(e, Call))  # type: ignore[union-attr]
        facts[str(tmp_path / f"m{i}.py")] = FileFacts({"f": Summary(events=tuple(events))}, calls)  # type: ignore[arg-type]
    facts[str(tmp_path / "train.py")] = FileFacts({"run": Summary(events=(Call(".m0.f"),))}, frozenset({".m0.f"}))
    closes = 0
    real_close = project_module.close

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal closes
        closes += 1
        return real_close(*args, **kwargs)

    monkeypatch.setattr(project_module, "close", counting)
    project = Project(tmp_path, facts)
    inputs, reads = project.inputs_and_reads(str(tmp_path / "train.py"))
    assert inputs[".m0.f"].does(STEP)
    assert all(project.summary(str(tmp_path / f"m{i}.py"), "f").does(STEP) for i in range(count))  # type: ignore[union-attr]
    assert len(reads) == count + 1
    assert closes <= 4 * count


@pytest.mark.parametrize("fact", [NN_MODULE, TORCH_KIND])
def test_a_class_many_files_build_is_followed_once_and_each_is_told_its_files(
        tmp_path: Path, monkeypatch, fact: str) -> None:
    """Forty scripts build `nets.Net`, whose base `Backbone` of base.py derives from
    `nn.Module` (or from torch's scheduler class): its lineage is walked once for the run,
    and each script is still told that its answer was read from nets.py and base.py (a
    cached run follows them)."""
    told = Summary(returns_kind="scheduler" if fact == TORCH_KIND else "")
    facts = {str(tmp_path / "base.py"): FileFacts({f"Backbone.{fact}": told}, bases={"Backbone": ()}),
             str(tmp_path / "nets.py"): FileFacts(bases={"Net": ("base.Backbone",), "Plain": ()})}
    scripts = [str(tmp_path / f"train{i}.py") for i in range(40)]
    for script in scripts:
        facts[script] = FileFacts(calls=frozenset({f"nets.Net.{fact}", f"nets.Plain.{fact}"}))
    walks = 0
    real_graph = Project._class_graph

    def counting(self, path: str, cls: str):  # type: ignore[no-untyped-def]
        nonlocal walks
        walks += 1
        return real_graph(self, path, cls)

    monkeypatch.setattr(Project, "_class_graph", counting)
    project = Project(tmp_path, facts)
    for script in scripts:
        inputs, reads = project.inputs_and_reads(script)
        assert inputs == {f"nets.Net.{fact}": told}
        assert {Path(p).name for p in reads} == {Path(script).name, "nets.py", "base.py"}
    assert walks == 2  # Net and Plain, once each
