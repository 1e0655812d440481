"""`HookRun`s: a file's overrides as the loops of their base classes run them (see
`trainlint.analysis.hook_runs`)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import libcst as cst
import pytest

from trainlint import mro
from trainlint.analysis import summarize
from trainlint.analysis.hook_runs import hook_runs
from trainlint.context import FileContext
from trainlint.project import FileFacts, Project


def _chain(classes: int, hooks: int) -> str:
    """A trainer whose loop calls `hooks` hooks, and a chain of `classes` subclasses,
    each overriding one hook more."""
    lines = ["class Trainer:\n"]
    lines += [f"    def h{i}(self, loss):\n        pass\n" for i in range(hooks)]
    lines += ["    def fit(self, loader):\n        for x in loader:\n            loss = self.model(x).mean()\n"
              "            loss.backward()\n            self.optimizer.step()\n"]
    lines += [f"            self.h{i}(loss)\n" for i in range(hooks)]
    for i in range(classes):
        base = f"C{i - 1}" if i else "Trainer"
        lines += [f"class C{i}({base}):\n    def h{i % hooks}(self, loss):\n        self.history.append(loss)\n"]
    return "".join(lines)


def test_a_chain_of_subclasses_works_out_each_lineage_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each class of a long chain asks for what its instances run for every hook of the
    loop: its lineage is worked out once, not once per hook and per question."""
    classes, hooks = 120, 30
    source = _chain(classes, hooks)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    assert ctx.summaries.closed  # worked out before counting
    walks = 0
    lineage = summarize.CallTargets._lineage

    def counted(self: summarize.CallTargets, cls: str) -> Iterator[str]:
        nonlocal walks
        walks += 1
        return lineage(self, cls)

    monkeypatch.setattr(summarize.CallTargets, "_lineage", counted)
    runs = hook_runs(ctx)
    assert len({id(run.function) for run in runs}) == classes  # each override, in the loop of `Trainer.fit`
    # once for its own class and once for each subclass up to the one overriding the same hook:
    # each of them runs it with other hooks (one more of its own)
    assert len(runs) == sum(min(hooks, classes - i) for i in range(classes))
    assert walks <= classes + 1


def _wide(hooks: int) -> str:
    """A trainer whose loop calls `hooks` hooks, each handed the loss and the batch, with a
    name bound between each two, and a subclass overriding the first (the trainer's own
    does nothing: the file's reading of the loop runs that one, the override is a hook run)."""
    lines = ["class Trainer:\n    def h0(self, loss, x):\n        pass\n    def fit(self, loader):\n        for x in loader:\n"
             "            loss = self.model(x).mean()\n            loss.backward()\n"]
    lines += [f"            self.h{i}(loss, x)\n            y{i} = x + {i}\n" for i in range(hooks)]
    lines += ["class Logged(Trainer):\n    def h0(self, loss, x):\n        self.history.append(loss)\n"]
    return "".join(lines)


def test_a_loop_calling_many_hooks_reads_its_body_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """What each hook of a loop is handed (`loss@1`) is told from where the body binds each
    name, indexed once per loop, not by reading the body again for every call and name."""
    hooks = 200
    source = _wide(hooks)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = 0
    own_nodes = summarize.own_nodes

    def counted(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
        nonlocal read
        for node in own_nodes(root):
            read += 1
            yield node

    monkeypatch.setattr(summarize, "own_nodes", counted)
    runs = hook_runs(ctx)
    assert [run.call.handed for run in runs] == [(("#0", "loss@1"), ("#1", "x@0"))]
    assert read <= 2 * sum(1 for _ in summarize.iter_nodes(ctx.module))  # the body, once or twice


def _count_merges(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the C3 merges from now on, in the one item of the list returned."""
    merges = [0]
    merge = mro.c3_merge

    def counted(sequences: list[tuple[str, ...]]) -> list[str] | None:
        merges[0] += 1
        return merge(sequences)

    monkeypatch.setattr(mro, "c3_merge", counted)
    return merges


def test_a_chain_of_subclasses_each_adding_a_mixin_merges_each_order_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each class's C3 order is merged from its bases' orders, kept once worked out, not
    merged again for every ancestor of every class of the chain; the order is Python's."""
    classes = 60
    lines = ["class Mixin:\n    def log(self):\n        pass\n",
             "class C0:\n    def on_step_end(self):\n        pass\n    def fit(self, loader):\n"
             "        for x in loader:\n            self.model(x).mean().backward()\n            self.on_step_end()\n"]
    lines += [f"class C{i}(C{i - 1}, Mixin):\n    def on_step_end(self):\n        pass\n" for i in range(1, classes)]
    source = "".join(lines)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    targets = ctx.summaries.targets
    merges = _count_merges(monkeypatch)
    lineages = {name: targets.lineage(name) for name in reversed(targets.classes)}
    assert merges[0] <= classes + 1
    namespace: dict[str, object] = {}
    exec(source, namespace)
    assert all(lineage == tuple(c.__name__ for c in namespace[name].__mro__[:-1])  # type: ignore[attr-defined]
               for name, lineage in lineages.items())


def _module_chain(root: Path, classes: int) -> tuple[Project, str]:
    """A chain of `classes` modules, each class deriving from the previous module's and
    adding a mixin of its own module (a diamond at each step through `Base`), as the
    project sees them, with the same classes as Python source."""
    facts = {str(root / "base.py"): FileFacts(bases={"Base": (), "Root": ()})}
    source = ["class Base:\n    pass\nclass Root:\n    pass\n"]
    for i in range(classes):
        previous = f"m{i - 1}.C{i - 1}" if i else "base.Root"
        facts[str(root / f"m{i}.py")] = FileFacts(bases={f"Mixin{i}": ("base.Base",), f"C{i}": (previous, f"Mixin{i}")})
        source.append(f"class Mixin{i}(Base):\n    pass\nclass C{i}({previous.rpartition('.')[2]}, Mixin{i}):\n    pass\n")
    return Project(root, facts), "".join(source)


def test_a_chain_of_subclasses_across_modules_merges_each_order_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Across modules too, each class's C3 order is merged from its bases' orders, kept
    once worked out, however many of its subclasses ask; the order is Python's."""
    classes = 5  # with their mixins, `Base` and `Root`, as many as a lineage followed holds
    project, source = _module_chain(tmp_path, classes)
    merges = _count_merges(monkeypatch)
    lineages = {i: project._lineage(str(tmp_path / f"m{i}.py"), f"C{i}") for i in reversed(range(classes))}
    assert merges[0] <= 2 * classes + 2  # each class and each mixin once, `Base` and `Root`
    namespace: dict[str, object] = {}
    exec(source, namespace)
    assert all(whole and [name for _, name in lineage] == [c.__name__ for c in namespace[f"C{i}"].__mro__[:-1]]  # type: ignore[attr-defined]
               for i, (lineage, whole) in lineages.items())


def test_a_class_python_refuses_across_modules_is_looked_up_depth_first(tmp_path: Path) -> None:
    """No consistent order (`class Z(X, Y)` of `X(A, B)` and `Y(B, A)`): Python refuses the
    class; the project follows it depth first, as it does a lineage too long to merge."""
    facts = {str(tmp_path / "ab.py"): FileFacts(bases={"A": (), "B": (), "X": ("A", "B"), "Y": ("B", "A")}),
             str(tmp_path / "z.py"): FileFacts(bases={"Z": ("ab.X", "ab.Y")})}
    lineage, whole = Project(tmp_path, facts)._lineage(str(tmp_path / "z.py"), "Z")
    assert [name for _, name in lineage] == ["Z", "X", "A", "B", "Y"] and whole


def test_a_library_base_across_modules_ends_the_lineage_where_python_reaches_it(tmp_path: Path) -> None:
    """`class Z(X, lib.Callback)`: Python looks in `X` and its bases before the library's
    class; what comes after that class is not known."""
    facts = {str(tmp_path / "ab.py"): FileFacts(bases={"A": (), "X": ("A",)}),
             str(tmp_path / "z.py"): FileFacts(bases={"Z": ("ab.X", "lib.Callback")})}
    lineage, whole = Project(tmp_path, facts)._lineage(str(tmp_path / "z.py"), "Z")
    assert [name for _, name in lineage] == ["Z", "X", "A"] and not whole
