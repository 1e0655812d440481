"""What the installed linter is, known without importing its rules.

The manifest holds each rule's code, name, severity and preview flag, and a fingerprint of the linter's code and LibCST's version (the
key of the result cache). Building it imports every rule, and so LibCST, and
reads every source file: a few hundred milliseconds. It is kept in
`lint/__pycache__/`, keyed by the size and modification time of every source
file of `lint` and `rules` and of LibCST's version file, so that a run whose
results all come from the cache imports neither LibCST nor any rule. When that
folder cannot be written, the manifest is simply built on every run.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import trainlint

_FORMAT = 3


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    preview: bool
    module: str  # of the `rules` package: a run imports only the rules it selected


@dataclass(frozen=True)
class Manifest:
    fingerprint: str
    rules: tuple[RuleInfo, ...]  # sorted by code

    def codes(self) -> tuple[str, ...]:
        return tuple(rule.code for rule in self.rules)


@lru_cache(maxsize=1)
def manifest() -> Manifest:
    sources = _source_files()
    stamp = _stamp(sources)
    stored = _load(stamp)
    if stored is not None:
        return stored
    built = _build(sources)
    _save(stamp, built)
    return built


def _package_dirs() -> list[Path]:
    spec = importlib.util.find_spec("trainlint.rules")
    rules_dirs = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return [Path(trainlint.__file__).parent, *rules_dirs]


def _source_files() -> list[Path]:
    return [path for directory in _package_dirs() for path in sorted(directory.rglob("*.py"))]


def _libcst_files() -> list[Path]:
    spec = importlib.util.find_spec("libcst")
    if spec is None or spec.origin is None:
        return []
    folder = Path(spec.origin).parent
    return [folder / "_version.py", *sorted(folder.glob("native*"))]


def _stamp(sources: list[Path]) -> str:
    digest = hashlib.blake2b(f"{_FORMAT}:{trainlint.__version__}".encode(), digest_size=16)
    for path in [*sources, *_libcst_files()]:
        try:
            stat = path.stat()
        except OSError:
            continue
        digest.update(f"{path}\0{stat.st_mtime_ns}\0{stat.st_size}\n".encode())
    return digest.hexdigest()


def _build(sources: list[Path]) -> Manifest:
    from importlib.metadata import PackageNotFoundError, version

    from trainlint.registry import all_rules

    digest = hashlib.sha256(f"{_FORMAT}:{trainlint.__version__}".encode())
    try:
        digest.update(version("libcst").encode())
    except PackageNotFoundError:
        pass
    for path in sources:
        digest.update(path.read_bytes())
    rules = tuple(
        RuleInfo(rule.code, rule.name, rule.severity, rule.preview, rule.__module__.rsplit(".", 1)[-1])
        for rule in all_rules()
    )
    return Manifest(digest.hexdigest()[:20], rules)


def _store() -> Path:
    return Path(trainlint.__file__).parent / "__pycache__"


def _load(stamp: str) -> Manifest | None:
    try:
        data = json.loads((_store() / f"trainlint-manifest-{stamp}.json").read_text(encoding="utf-8"))
        rules = tuple(
            RuleInfo(r["code"], r["name"], r["severity"], bool(r["preview"]), r["module"]) for r in data["rules"]
        )
        return Manifest(data["fingerprint"], rules)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(stamp: str, built: Manifest) -> None:
    store = _store()
    try:
        store.mkdir(exist_ok=True)
        for stale in store.glob("trainlint-manifest-*.json"):
            stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=store, prefix=".manifest-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"fingerprint": built.fingerprint, "rules": [asdict(r) for r in built.rules]}, handle)
        os.replace(tmp, store / f"trainlint-manifest-{stamp}.json")
    except OSError:
        pass  # a read-only install rebuilds it on every run
