"""Results of unchanged files, kept between runs.

An entry is keyed by the file's path and the hash of its bytes; the whole
cache is keyed by everything else that can change a result: the trainlint and
libcst versions, the source of the rules and the engine, and the rules
selected for the file. An unchanged file is never parsed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Sequence

from lint.finding import Finding
from lint.manifest import manifest

CACHE_DIR = ".trainlint_cache"
_FORMAT = 1


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
        self.entries: dict[str, list[object]] = {}
        self.dirty = False
        try:
            loaded = json.loads(self.file.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError):
            self.entries = {}

    @staticmethod
    def key(path: str, digest: str, codes: Sequence[str]) -> str:
        return f"{os.path.abspath(path)}\0{digest}\0{','.join(codes)}"

    def get(self, key: str, path: str) -> list[Finding] | None:
        raw = self.entries.get(key)
        if raw is None:
            return None
        return [Finding(path=path, **item) for item in raw]  # type: ignore[arg-type]

    def put(self, key: str, findings: Sequence[Finding]) -> None:
        self.entries[key] = [_without_path(f) for f in findings]
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
                json.dump(self.entries, handle, separators=(",", ":"))
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
