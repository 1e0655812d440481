"""Results of unchanged files, kept between runs.

Everything lives in `.trainlint_cache/`, keyed by what can change any result
(`code_fingerprint`: the trainlint and libcst versions and the linter's own
source), in two stores:

- the index (`index-<fingerprint>.json`), read on every run: for each file,
  the hash of its bytes and the `os.stat` they were read with, the rules it
  was linted with, its findings, the digest of the other modules' summaries
  those were computed with (`inputs`) and the digest of its own facts. A
  file whose stat did not change is not even read again; one whose stat
  changed is hashed, and the hash decides.
- the project store (`project-<fingerprint>/`, `trainlint.project_store`): each
  file's facts and which files each file's inputs were worked out from,
  read only when some file's summaries changed.

Both are written atomically (a temporary file, then `os.replace`); a store
that is missing, stale or corrupt only costs time: what it cannot vouch for
is computed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Sequence

from trainlint.finding import Finding
from trainlint.manifest import manifest

CACHE_DIR = ".trainlint_cache"
_FORMAT = 7  # 6: a notebook's findings carry their `cell`; 7: summaries keep `returned_items`
# a file modified this recently may change again within the same stat
# timestamp: its stat is not trusted next time and its bytes are hashed
_RACY_NS = 2_000_000_000

Stat = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def code_fingerprint() -> str:
    """Identifies the installed versions and the linter's own source, so that a
    change of any rule invalidates every cached result."""
    return f"{_FORMAT}{manifest().fingerprint}"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_stat(path: str) -> Stat:
    """Raises OSError like reading the file would."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class Entry(NamedTuple):
    """What the index knows of one file."""

    digest: str  # of its bytes
    stat: Stat | None  # as read; None when it was too recent to vouch for its content
    codes: str  # the rules it was linted with, comma-separated
    findings: list[dict[str, object]]  # without the path
    inputs: str  # digest of the other modules' summaries the findings were computed with
    facts: str  # digest of its own facts (`trainlint.project.FileFacts`); "" when none, or never computed
    member: bool  # of the project (`trainlint.project.summarizable`)

    def findings_of(self, path: str) -> list[Finding]:
        return [Finding(path=path, **item) for item in self.findings]  # type: ignore[arg-type]


class ResultCache:
    """The index: read whole on every run, written whole when it changed."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.fingerprint = code_fingerprint()
        self.file = directory / f"index-{self.fingerprint}.json"
        self.entries: dict[str, Entry] = {}  # by absolute path
        self.members = ""  # which files had facts last time (see `trainlint.runner`)
        self.project = ""  # the stamp of the project store's reads this index agrees with
        self.started = time.time_ns()
        self.dirty = False
        try:
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
            codes = loaded["codes"]
            self.entries = {path: _entry(raw, codes) for path, raw in loaded["files"].items()}
            self.members, self.project = str(loaded["members"]), str(loaded["project"])
        except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
            self.entries, self.members, self.project = {}, "", ""

    @property
    def project_dir(self) -> Path:
        return self.directory / f"project-{self.fingerprint}"

    def lookup(self, path: str) -> Entry | None:
        return self.entries.get(os.path.abspath(path))

    def digest(self, path: str, stat: Stat) -> str | None:
        """The stored hash of the file when its stat vouches for it."""
        entry = self.lookup(path)
        return entry.digest if entry is not None and entry.stat == stat else None

    def put(self, path: str, entry: Entry) -> None:
        if entry.stat is not None and self.started - entry.stat[1] < _RACY_NS:
            entry = entry._replace(stat=None)
        key = os.path.abspath(path)
        if self.entries.get(key) != entry:
            self.entries[key] = entry
            self.dirty = True

    def set_project(self, members: str, stamp: str) -> None:
        if (members, stamp) != (self.members, self.project):
            self.members, self.project = members, stamp
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            prepare(self.directory, keep={self.file.name, self.project_dir.name})
            # the rules each file was linted with: the same few lists, written once
            codes = sorted({entry.codes for entry in self.entries.values()})
            number = {text: i for i, text in enumerate(codes)}
            files = {path: [*entry[:2], number[entry.codes], *entry[3:]] for path, entry in self.entries.items()}
            write_json(self.file, {"codes": codes, "files": files, "members": self.members, "project": self.project})
        except OSError:
            pass  # a cache that cannot be written only costs time


def _entry(raw: Sequence[object], codes: Sequence[str]) -> Entry:
    """An index entry; TypeError when it is not one (a damaged or foreign index,
    which is then not used)."""
    digest, stat, number, findings, inputs, facts, member = raw
    if not isinstance(findings, list) or not all(_finding_shaped(item) for item in findings):
        raise TypeError("not a cached finding")
    return Entry(
        str(digest),
        tuple(stat) if stat else None,  # type: ignore[arg-type]
        str(codes[number]),  # type: ignore[index]
        findings,
        str(inputs),
        str(facts),
        bool(member),
    )


_FINDING_FIELDS = {"line": int, "column": int, "end_line": int, "end_column": int, "code": str, "name": str,
                   "severity": str, "message": str, "fixable": bool, "fix": (str, type(None))}


def _finding_shaped(item: object) -> bool:
    """A finding as `without_path` writes it: each field, of its type, and no
    other but a notebook finding's `cell`."""
    if not isinstance(item, dict):
        return False
    keys = item.keys() - {"cell"}
    if "cell" in item and not (type(item["cell"]) is int and item["cell"] > 0):
        return False
    return keys == _FINDING_FIELDS.keys() and all(isinstance(item[key], kind) for key, kind in _FINDING_FIELDS.items())


def without_path(finding: Finding) -> dict[str, object]:
    data = finding.to_dict()
    del data["path"]
    return data


def prepare(directory: Path, keep: set[str]) -> None:
    """Create the cache folder (ignored by git) and drop what other versions
    of the linter left in it."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# created by trainlint\n*\n", encoding="utf-8")
    for stale in directory.iterdir():
        if stale.name in keep or stale.name == ".gitignore" or stale.name.startswith("."):
            continue
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


def write_json(path: Path, data: object) -> None:
    """Write `data` to `path` whole or not at all."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def clear(directory: Path) -> bool:
    if not directory.is_dir():
        return False
    shutil.rmtree(directory, ignore_errors=True)
    return True
