"""Results of unchanged files, kept between runs.

An entry is keyed by the file's path and the hash of its bytes; the whole
cache is keyed by everything else that can change a result: the trainlint and
libcst versions, the source of the rules and the engine, and the rules
selected for the file. An unchanged file is never parsed again.

Beside its findings, an entry keeps what the project needs of the file (its
function summaries, `trainlint.project.FileFacts`, as JSON) and the digest of the
other modules' summaries its findings were computed with (`inputs`): when a
module it calls changes what it does, the digest differs and the file is
linted again, although its own bytes did not change.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from trainlint.finding import Finding
from trainlint.manifest import manifest

CACHE_DIR = ".trainlint_cache"
_FORMAT = 3


def code_fingerprint() -> str:
    """Identifies the installed versions and the linter's own source, so that a
    change of any rule invalidates every cached result."""
    return f"{_FORMAT}{manifest().fingerprint}"


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ResultCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.file = directory / f"results-{code_fingerprint()}.json"
        self.entries: dict[str, dict[str, object]] = {}
        self.members = ""  # which files had summaries last time (see `trainlint.runner`)
        self.dirty = False
        try:
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
            if isinstance(loaded, dict) and isinstance(loaded.get("entries"), dict):
                self.entries = loaded["entries"]
                self.members = str(loaded.get("members", ""))
        except (OSError, ValueError):
            self.entries = {}

    @staticmethod
    def key(path: str, digest: str, codes: Sequence[str]) -> str:
        return f"{os.path.abspath(path)}\0{digest}\0{','.join(codes)}"

    def get(self, key: str, path: str) -> list[Finding] | None:
        entry = self.entries.get(key)
        if not isinstance(entry, dict):
            return None
        return [Finding(path=path, **item) for item in entry["findings"]]  # type: ignore[arg-type,union-attr]

    def facts(self, key: str) -> Mapping[str, object] | None:
        """The file's facts for the project, as stored (JSON), if any."""
        return self.entries[key].get("facts")  # type: ignore[return-value]

    def inputs(self, key: str) -> str:
        """Digest of the other modules' summaries the findings were computed with."""
        return str(self.entries[key].get("inputs", ""))

    def set_members(self, members: str) -> None:
        if members != self.members:
            self.members = members
            self.dirty = True

    def facts_by_path(self) -> dict[str, object]:
        """The stored facts of each path, whatever its content: to tell
        whether a file's summaries changed along with its bytes."""
        return {key.split("\0", 1)[0]: entry.get("facts") for key, entry in self.entries.items() if isinstance(entry, dict)}

    def put(
        self, key: str, findings: Sequence[Finding], facts: Mapping[str, object] | None = None, inputs: str = ""
    ) -> None:
        self.entries[key] = {"findings": [_without_path(f) for f in findings], "facts": facts, "inputs": inputs}
        self.dirty = True

    def prune(self, live_keys: set[str]) -> None:
        """Forget entries of the same paths with other contents."""
        live_paths = {k.split("\0", 1)[0] for k in live_keys}
        for key in list(self.entries):
            if key.split("\0", 1)[0] in live_paths and key not in live_keys:
                del self.entries[key]
                self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by trainlint\n*\n", encoding="utf-8")
            for stale in self.directory.glob("results-*.json"):
                if stale != self.file:
                    stale.unlink(missing_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".results-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"entries": self.entries, "members": self.members}, handle, separators=(",", ":"))
            os.replace(tmp, self.file)
        except OSError:
            pass  # a cache that cannot be written only costs time


def _without_path(finding: Finding) -> dict[str, object]:
    data = finding.to_dict()
    del data["path"]
    return data


def clear(directory: Path) -> bool:
    if not directory.is_dir():
        return False
    for entry in directory.iterdir():
        if entry.is_file():
            entry.unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:
        pass
    return True
