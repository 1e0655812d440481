"""What the project needs of each file, kept between runs beside the index
(`trainlint.cache`), and read only when the project must be worked out.

- `facts/<hash of the path>.json`: one file's facts (`FileFacts` as JSON),
  with the path and the hash of the bytes they describe; a blob that
  describes other bytes is not used.
- `reads.json`: for each file with inputs, the files whose facts those
  inputs were worked out from (`Project.inputs_and_reads`), so that a change
  of one file's summaries re-examines only the files that read it. It
  carries a stamp that the index records when both were written together;
  reads the index does not vouch for are not used.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Mapping

from trainlint.cache import content_hash, write_json


class ProjectStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._pending: dict[str, dict[str, object]] = {}  # blob name: content

    def _blob(self, path: str) -> str:
        return content_hash(os.path.abspath(path).encode()) + ".json"

    def facts(self, path: str, digest: str) -> Mapping[str, object] | None:
        """The stored facts of `path` when they describe the bytes `digest`."""
        name = self._blob(path)
        stored = self._pending.get(name)
        if stored is None:
            try:
                stored = json.loads((self.directory / "facts" / name).read_bytes())
            except (OSError, ValueError):
                return None
        if not isinstance(stored, dict):
            return None
        if stored.get("path") != os.path.abspath(path) or stored.get("digest") != digest:
            return None
        facts = stored.get("facts")
        return facts if isinstance(facts, dict) else None

    def put_facts(self, path: str, digest: str, facts: Mapping[str, object]) -> None:
        self._pending[self._blob(path)] = {"path": os.path.abspath(path), "digest": digest, "facts": facts}

    def reads(self, stamp: str) -> dict[str, list[str]] | None:
        """Which files each file's inputs were read from, when the index's
        `stamp` vouches for them."""
        if not stamp:
            return None
        try:
            stored = json.loads((self.directory / "reads.json").read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("stamp") != stamp or not isinstance(stored.get("reads"), dict):
            return None
        return stored["reads"]

    def save(self, reads: Mapping[str, list[str]] | None, stamp: str) -> str:
        """Write the facts put since the last save and, when given, the reads;
        the stamp the index must record: `stamp` when the reads are not
        rewritten, "" when something could not be written (the next run
        will not trust the reads)."""
        try:
            folder = self.directory / "facts"
            folder.mkdir(parents=True, exist_ok=True)
            for name, content in self._pending.items():
                write_json(folder / name, content)
            self._pending.clear()
            if reads is None:
                return stamp
            stamp = secrets.token_hex(8)
            write_json(self.directory / "reads.json", {"stamp": stamp, "reads": reads})
            return stamp
        except OSError:
            return ""
