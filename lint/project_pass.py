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
enough. Facts the store has lost are computed again by analysing their file:
a damaged store costs time, never a finding.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from trainlint.cache import Entry, Stat, content_hash
from trainlint.finding import Finding
from trainlint.project import FileFacts, Project, ProjectView, inputs_digest

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


@dataclass
class Known:
    """A file's findings and facts, and what they were computed with."""

    task: Task
    findings: list[Finding]
    facts_digest: str  # "" when the file has no facts
    inputs: str  # digest of the inputs the findings were computed with
    facts: FileFacts | None = None  # computed in this run (those loaded from the store stay in `StoredFacts`)
    crashes: list[RuleCrash] = field(default_factory=list)  # of the rules that raised on it
    cacheable: bool = True  # the findings describe the bytes `task.digest`


class MissingFacts(Exception):
    """The store has no facts for a file that has some."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def facts_digest(facts: FileFacts | None) -> str:
    if facts is None:
        return ""
    return content_hash(json.dumps(facts.to_json(), sort_keys=True, separators=(",", ":")).encode())


def members_id(paths: Iterable[str]) -> str:
    """Identifies which files of the run have facts."""
    return content_hash("\0".join(sorted(os.path.abspath(p) for p in paths)).encode())


class StoredFacts(Mapping[str, FileFacts]):
    """Facts by path for `Project`: those in memory, else loaded from the
    store on first use (`members` gives the bytes whose facts to load)."""

    def __init__(self, members: dict[str, str], loaded: dict[str, FileFacts], store: ProjectStore | None) -> None:
        self.members = members
        self.loaded = loaded
        self.store = store

    def __getitem__(self, path: str) -> FileFacts:
        found = self.loaded.get(path)
        if found is None:
            if path not in self.members:
                raise KeyError(path)
            raw = self.store.facts(path, self.members[path]) if self.store is not None else None
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

    def missing(self) -> list[str]:
        """Load every member's facts; the paths the store has none for."""
        lost = []
        for path in self.members:
            try:
                self[path]
            except MissingFacts:
                lost.append(path)
        return lost


Reanalyse = Callable[[list[str]], dict[str, FileFacts | None]]  # paths: their facts, computed again


class ProjectPass:
    def __init__(
        self, root: Path, known: dict[str, Known], store: ProjectStore | None, members: str, stamp: str
    ) -> None:
        """`members` and `stamp`: what the index recorded last time."""
        self.root = root
        self.known = known
        self.store = store
        self.last_members = members
        self.stamp = stamp
        self.unverified: set[str] = set()  # linted without knowing their inputs
        self.reads: dict[str, list[str]] | None = None  # to store, when worked out again

    # -- before the first analysis ---------------------------------------------
    def speculate(self, tasks: list[Task]) -> None:
        """Give each task whose file had inputs last time those inputs,
        worked out from the facts of last time."""
        guessed = [task for task in tasks if task.previous is not None and task.previous.inputs]
        if not guessed:
            return
        previous = {task.path: task.previous for task in tasks if task.previous is not None}
        members = {
            path: entry.digest for path, entry in previous.items() if entry.facts
        } | {path: known.task.digest or "" for path, known in self.known.items() if known.facts_digest}
        project = Project(self.root, StoredFacts(members, {}, self.store))
        for task in guessed:
            try:
                inputs = project.inputs(task.path)
            except MissingFacts:
                self.unverified.add(task.path)
                continue
            task.view = ProjectView(inputs, summarize=True)
            task.inputs = inputs_digest(inputs)

    # -- after it ---------------------------------------------------------------
    def stale(self, analysed: Iterable[str], reanalyse: Reanalyse) -> Iterator[tuple[str, ProjectView, str]]:
        """Files whose findings were computed with other inputs than the
        project now gives them: (path, view with the inputs, their digest)."""
        changed = {path for path in analysed if self._facts_changed(path)}
        facts = self._facts()
        if self.store is not None and members_id(facts) == self.last_members:
            if not changed and not self.unverified:
                return
            reads = self.store.reads(self.stamp) if changed else {}
            if reads is not None:
                try:
                    yield from self._work_out(self._readers(changed, reads) | self.unverified, facts, dict(reads))
                    return
                except MissingFacts:
                    pass  # the store lost some facts: work everything out, after computing them again
        self._recover(facts, reanalyse)
        yield from self._work_out(set(facts), facts, {})

    def _facts_changed(self, path: str) -> bool:
        previous = self.known[path].task.previous
        return self.known[path].facts_digest != (previous.facts if previous is not None else "")

    def _facts(self) -> StoredFacts:
        members = {path: known.task.digest or "" for path, known in self.known.items() if known.facts_digest}
        loaded = {path: known.facts for path, known in self.known.items() if known.facts is not None}
        return StoredFacts(members, loaded, self.store)

    def _readers(self, changed: set[str], reads: Mapping[str, list[str]]) -> set[str]:
        """`changed` and the files of this run whose inputs read them."""
        changed_abs = {os.path.abspath(path) for path in changed}
        by_abs = {os.path.abspath(path): path for path in self.known}
        return changed | {
            by_abs[reader] for reader, read in reads.items() if reader in by_abs and changed_abs.intersection(read)
        }

    def _recover(self, facts: StoredFacts, reanalyse: Reanalyse) -> None:
        """Compute again the facts the store lost."""
        lost = facts.missing()
        for path, computed in reanalyse(lost).items() if lost else ():
            known = self.known[path]
            if facts_digest(computed) != known.facts_digest:
                # not the facts its findings were computed with: lint it again
                known.facts_digest, known.inputs = facts_digest(computed), "\0stale"
            known.facts = computed
            if computed is None:
                del facts.members[path]
            else:
                facts.loaded[path] = computed

    def _work_out(
        self, questions: set[str], facts: StoredFacts, reads: dict[str, list[str]]
    ) -> Iterator[tuple[str, ProjectView, str]]:
        project = Project(self.root, facts)
        answers = []
        for path in sorted(questions):
            inputs, read = project.inputs_and_reads(path) if path in facts else ({}, frozenset())
            key = os.path.abspath(path)
            others = sorted(os.path.abspath(p) for p in read if p != path)
            reads.pop(key, None)
            if others:
                reads[key] = others
            answers.append((path, inputs))
        self.reads = reads
        for path, inputs in answers:
            digest = inputs_digest(inputs)
            if digest != self.known[path].inputs:
                yield path, ProjectView(inputs), digest
