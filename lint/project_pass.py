"""Which findings still hold when files changed, as far as calls into other
modules of the project go (`trainlint.project`).

A file's findings were computed with the summaries of the functions it calls
in other modules (its inputs, identified by `inputs_digest`). Those can only
change when the facts of a file they were worked out from changed, or when
files with facts came or went. So a run works out the project only when it
must, and only as far as it must:

- nothing changed, or only bytes that leave every file's facts as they were
  (a comment): nothing is worked out, no facts are read;
- some files' facts changed: the inputs of those files and of the files that
  read them last time (`ProjectStore.reads`) are worked out again, loading
  only the facts those questions read;
- files with facts came or went, or the stored reads cannot be trusted: the
  inputs of every file are worked out.

A file linted because its bytes changed is given, up front, the inputs it
had last time, worked out from the facts of last time (`speculate`): when its
own facts did not change, those are its inputs now and one analysis is
enough.

The members of the project are the files whose functions may have
something to summarize, or that may bind `torch` for a file that
star-imports them (`summarizable`, from their text). A member's facts
are computed when they are first needed: by the first analysis when the
file may call into other members (`ImportGraph.imports_members`) or, when it
is parsed anyway, when other files may import it; otherwise only if some
question reads them. Facts the store has lost are computed the same way: a
damaged store costs time, never a finding.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from trainlint.cache import Entry, Stat, content_hash
from trainlint.finding import Finding
from trainlint.imports import ImportGraph, Reach
from trainlint.notebook import is_notebook, notebook_source
from trainlint.project import FileFacts, Project, ProjectView, inputs_digest, summarizable
from trainlint.summaries import Summary
from trainlint.source import SourceError, decode

if TYPE_CHECKING:
    from trainlint.crashes import RuleCrash
    from trainlint.project_store import ProjectStore


@dataclass
class Task:
    """A file to analyse, and what the cache knew of it."""

    path: str
    codes: tuple[str, ...]
    digest: str | None = None  # of the bytes the cache entry is keyed by
    stat: Stat | None = None  # taken before those bytes were read
    previous: Entry | None = None  # the index's entry for the path, whatever its bytes
    view: ProjectView = ProjectView(summarize=True)
    inputs: str = ""  # digest of `view.external`
    member: bool = False  # of the project (see `summarizable`)


@dataclass
class Known:
    """A file's findings and facts, and what they were computed with."""

    task: Task
    findings: list[Finding]
    facts_digest: str  # "" when the file has no facts, or they were never computed
    inputs: str  # digest of the inputs the findings were computed with
    facts: FileFacts | None = None  # computed in this run (those loaded from the store stay in `StoredFacts`)
    crashes: list[RuleCrash] = field(default_factory=list)  # of the rules that raised on it
    cacheable: bool = True  # the findings describe the bytes `task.digest`
    stored: bool = False  # as the index holds it: nothing to write back unless its facts or stat changed

    @property
    def member(self) -> bool:
        return self.task.member


class MissingFacts(Exception):
    """A member whose facts are not at hand: never computed, or lost."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def facts_digest(facts: FileFacts | None) -> str:
    if facts is None:
        return ""
    return content_hash(json.dumps(facts.to_json(), sort_keys=True, separators=(",", ":")).encode())


def members_id(paths: Iterable[str], others: Iterable[str] = ()) -> str:
    """Identifies which files of the run are members of the project, and
    which other files it has (a module path may name one of them)."""
    members = "\0".join(sorted(os.path.abspath(p) for p in paths))
    return content_hash((members + "\1" + "\0".join(sorted(os.path.abspath(p) for p in others))).encode())


class StoredFacts(Mapping[str, FileFacts]):
    """Facts of the members by path, for `Project`: those in memory, else
    loaded from the store on first use (`members` gives, for each, the
    digest of the bytes whose facts to load and that of the facts, "" when
    they were never computed)."""

    def __init__(
        self, members: dict[str, tuple[str, str]], loaded: dict[str, FileFacts], store: ProjectStore | None
    ) -> None:
        self.members = members
        self.loaded = loaded
        self.store = store

    def __getitem__(self, path: str) -> FileFacts:
        found = self.loaded.get(path)
        if found is None:
            digest, facts = self.members[path]
            raw = self.store.facts(path, digest) if self.store is not None and facts else None
            if raw is None:
                raise MissingFacts(path)
            found = self.loaded[path] = FileFacts.from_json(raw)
        return found

    def __contains__(self, path: object) -> bool:
        return path in self.members

    def __iter__(self) -> Iterator[str]:
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def at_hand(self, path: str) -> bool:
        return path in self.loaded or bool(self.members[path][1])


Reanalyse = Callable[[list[str]], dict[str, FileFacts | None]]  # paths: their facts, computed again


class ProjectPass:
    def __init__(
        self,
        root: Path,
        files: list[str],
        known: dict[str, Known],
        store: ProjectStore | None,
        members: str,
        stamp: str,
    ) -> None:
        """`files`: those of the run; `members` and `stamp`: what the index
        recorded last time."""
        self.root = root
        self.files = files
        self.known = known
        self.store = store
        self.last_members = members
        self.stamp = stamp
        self.unverified: set[str] = set()  # linted without knowing their inputs
        self.reads: dict[str, list[str]] | None = None  # to store, when worked out again
        self.importers: dict[str, bool] = {}  # members that may call into other members
        self._graph: ImportGraph | None = None
        self._members: str | None = None

    # -- before the first analysis ---------------------------------------------
    def rejoined(self, tasks: list[Task]) -> list[Task]:
        """Cached files that were no members, taken out of `known` to be analysed
        again, when they may now import a file of the project: files came or went
        since the last run (created, brought back by a branch switch, no longer
        excluded), and a module that imported nothing of the project may now
        import one (`from b import deep` once b.py exists), which makes it a
        member (see `plan`). Its text is read only then."""
        members = [path for path, known in self.known.items() if known.member]
        members += [task.path for task in tasks if task.previous is not None and task.previous.member]
        known_members = set(members)
        others = [path for path in self.files if path not in known_members]
        if members_id(members, others) == self.last_members:
            return []
        graph = ImportGraph(str(self.root), self.files, ())
        found = []
        for path in [path for path, known in self.known.items() if not known.member]:
            text = _text(path)
            if text is not None and graph.imports_project(graph.reach(path, text)):
                found.append(self.known.pop(path).task)
        return found

    def plan(self, tasks: list[Task]) -> None:
        """Whether each task's file is a member, and when its first analysis
        should export its facts: always when it may call into other
        members (its inputs are asked for) or had facts last time (their
        change must be seen); when it is parsed anyway, if another file
        linted here may import it; else only once a question reads them."""
        texts = {task.path: _text(task.path) for task in tasks}
        for task in tasks:
            text = texts[task.path]
            task.member = text is not None and summarizable(task.path, text)
        members = [*self._cached_members(), *(task.path for task in tasks if task.member)]
        graph = self._graph = ImportGraph(str(self.root), self.files, members)
        reaches = {task.path: graph.reach(task.path, text) for task in tasks if (text := texts[task.path]) is not None}
        # a file that imports modules of the project is a member too, whatever its own
        # text (a `main.py` that only calls `train_one_epoch()` and `evaluate()` of
        # engine.py): what those calls do are its inputs, and its functions pass it on.
        # Decided from its own text and the project's files, not from what they hold.
        joined = [task for task in tasks if not task.member and task.path in reaches
                  and graph.imports_project(reaches[task.path])]
        for task in joined:
            task.member = True
        graph.add_members(task.path for task in joined)
        imported = Reach()
        for task in tasks:
            if task.member:
                imported.update(reaches[task.path])
        for task in tasks:
            if not task.member:
                task.view = replace(task.view, summarize=False)
                continue
            importer = self.importers[task.path] = graph.imports_members(reaches[task.path])
            had_facts = task.previous is not None and bool(task.previous.facts)
            task.view = replace(
                task.view,
                summarize=importer or had_facts,
                summarize_if_parsed=imported.covers(os.path.abspath(task.path)),
                keep_tree=importer,  # its calls may get summaries: it may be analysed again
            )

    def graph(self) -> ImportGraph:
        if self._graph is None:
            self._graph = ImportGraph(str(self.root), self.files, self._cached_members())
        return self._graph

    def _cached_members(self) -> list[str]:
        """The members among the files known so far (after the first pass: all)."""
        return [path for path, known in self.known.items() if known.member]

    def speculate(self, tasks: list[Task]) -> None:
        """Give each task whose file had inputs last time those inputs,
        worked out from the facts of last time."""
        guessed = [task for task in tasks if task.previous is not None and task.previous.inputs]
        if not guessed:
            return
        members = {
            path: (known.task.digest or "", known.facts_digest) for path, known in self.known.items() if known.member
        } | {
            task.path: (task.previous.digest, task.previous.facts)
            for task in tasks if task.previous is not None and task.previous.member
        }
        project = Project(self.root, StoredFacts(members, {}, self.store), self.files)
        for task in guessed:
            try:
                inputs = project.inputs(task.path)
            except MissingFacts:
                self.unverified.add(task.path)
                continue
            task.view = replace(task.view, external=inputs)
            task.inputs = inputs_digest(inputs)
    # -- after it ---------------------------------------------------------------
    def stale(self, analysed: Iterable[str], reanalyse: Reanalyse) -> Iterator[tuple[str, ProjectView, str]]:
        """Files whose findings were computed with other inputs than the
        project now gives them: (path, view with the inputs, their digest)."""
        changed = {path for path in analysed if self._facts_changed(path)}
        facts = self._facts()
        questions: set[str] | None = None
        if self.store is not None and self.members() == self.last_members:
            if not changed and not self.unverified:
                return
            reads = self.store.reads(self.stamp) if changed else {}
            if reads is not None:
                questions = self._readers(changed, reads) | self.unverified
                # what a file with unchanged facts reads is what it read last time
                self.reads = dict(reads) if changed else None
        if questions is None:
            questions, self.reads = set(facts), {}
        yield from self._work_out(questions, facts, reanalyse)

    def members(self) -> str:
        """Identifies the members of this run (see `members_id`)."""
        if self._members is None:
            self._members = members_id([path for path, known in self.known.items() if known.member],
                                       [path for path, known in self.known.items() if not known.member])
        return self._members

    def _facts_changed(self, path: str) -> bool:
        previous = self.known[path].task.previous
        return self.known[path].facts_digest != (previous.facts if previous is not None else "")

    def _facts(self) -> StoredFacts:
        members = {
            path: (known.task.digest or "", known.facts_digest) for path, known in self.known.items() if known.member
        }
        loaded = {path: known.facts for path, known in self.known.items() if known.facts is not None and known.member}
        return StoredFacts(members, loaded, self.store)

    def _readers(self, changed: set[str], reads: Mapping[str, list[str]]) -> set[str]:
        """`changed` and the files of this run whose inputs read them."""
        changed_abs = {os.path.abspath(path) for path in changed}
        by_abs = {os.path.abspath(path): path for path in self.known}
        return changed | {
            by_abs[reader] for reader, read in reads.items() if reader in by_abs and changed_abs.intersection(read)
        }

    def _work_out(
        self, questions: set[str], facts: StoredFacts, reanalyse: Reanalyse
    ) -> Iterator[tuple[str, ProjectView, str]]:
        """Answer `questions` (their inputs), computing the facts they read
        that are not at hand, a batch per round."""
        project = Project(self.root, facts, self.files)
        pending = sorted(path for path in questions if self._may_have_inputs(path, facts))
        answers: dict[str, tuple[dict[str, Summary], frozenset[str]]] = {}
        while pending:
            missing: set[str] = set()
            for path in pending:
                try:
                    answers[path] = project.inputs_and_reads(path)
                except MissingFacts as exc:
                    missing.add(exc.path)
            pending = [path for path in pending if path not in answers]
            self._compute(sorted(missing), facts, reanalyse)
        for path in questions:
            inputs, read = answers.get(path, ({}, frozenset()))
            if self.reads is not None:
                self._record(path, read)
            digest = inputs_digest(inputs)
            if digest != self.known[path].inputs:
                yield path, ProjectView(inputs), digest

    def _record(self, path: str, read: frozenset[str]) -> None:
        assert self.reads is not None
        key = os.path.abspath(path)
        others = sorted(os.path.abspath(p) for p in read if p != path)
        self.reads.pop(key, None)
        if others:
            self.reads[key] = others

    def _may_have_inputs(self, path: str, facts: StoredFacts) -> bool:
        """A member whose facts are at hand, or that may call into other members."""
        if path not in facts:
            return False
        if facts.at_hand(path):
            return True
        importer = self.importers.get(path)
        if importer is None:
            text = _text(path)
            importer = text is not None and self.graph().imports_members(self.graph().reach(path, text))
        return importer

    def _compute(self, paths: list[str], facts: StoredFacts, reanalyse: Reanalyse) -> None:
        """Facts of members not at hand, computed by analysing their files; a
        file that now yields none has none to offer (an empty set of facts
        resolves nothing, as a file that is not a member)."""
        for path, computed in reanalyse(paths).items() if paths else ():
            known = self.known[path]
            known.facts = facts.loaded[path] = computed or FileFacts()
            known.facts_digest = facts_digest(known.facts)


def _text(path: str) -> str | None:
    """The Python text of the file `path`: a notebook's is its code cells'."""
    try:
        data = Path(path).read_bytes()
        return notebook_source(data) if is_notebook(path) else decode(data)[0]
    except (OSError, SourceError):
        return None
