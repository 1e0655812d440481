"""The project's own linter run over the script being watched, beside the run.

The entry file is linted in a background thread started before the script runs
(the linter never imports torch, and it mostly runs while the script is still
importing its libraries), with the rules and per-file ignores of the nearest
`[tool.trainlint]` configuration, as `trainlint` itself would lint that file.
The end of the run waits for it at most WAIT_S.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Any

from sanitizer.core import locations

WAIT_S = 10.0  # the end of a short run waits this long, at most, for the lint
MAX_BYTES = 2_000_000  # a generated file this large is not worth a parse during a run


class ScriptLint:
    """Findings of `trainlint --format json` for one file, computed in a daemon thread."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[dict[str, Any]] | None = None
        self.problem: str | None = None  # why there are no findings, when there are none
        self._thread = threading.Thread(target=self._run, name="sanitizer-lint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def result(self, wait: float = WAIT_S) -> list[dict[str, Any]] | None:
        """The findings, or None (with `problem` saying why) when the lint failed or
        did not finish within `wait` seconds."""
        self._thread.join(wait)
        if self._thread.is_alive():
            self.problem = f"the lint of {self.path} did not finish within {wait:g}s"
            return None
        return self.findings

    def _run(self) -> None:
        try:
            self.findings = lint_file(self.path)
        except Exception as exc:  # the linter's failure must never reach the run
            self.problem = f"could not lint {self.path}: {type(exc).__name__}: {exc}"


def lint_file(path: str) -> list[dict[str, Any]]:
    """Findings for `path` as dicts with the keys of `trainlint --format json`."""
    from lint.config import codes_for_file, find_config, load_config, select_rules
    from lint.runner import analyse_bytes

    resolved = Path(path).resolve()
    if resolved.stat().st_size > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES} bytes")
    config = load_config(find_config(resolved.parent), fallback_root=resolved.parent)
    selection = select_rules(config.select, config.extend_select, config.ignore)
    codes = codes_for_file(resolved, selection, config)
    outcome = analyse_bytes(locations.display_path(str(resolved)), resolved.read_bytes(), codes, None)
    return [finding.to_dict() for finding in sorted(outcome.findings)]


def entry_file(script: str | None) -> str | None:
    """The user's file a run starts from: the script, a `-m` module's source, or
    (in-process use) the file of `__main__`."""
    if script and os.path.isfile(script):
        candidate: str | None = script
    elif script:
        candidate = _module_origin(script)
    else:
        candidate = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(candidate, str) or not candidate.endswith(".py"):
        return None
    path = os.path.abspath(candidate)
    installed = tuple(os.path.join(sysconfig.get_path(name), "") for name in ("stdlib", "purelib", "platlib"))
    return candidate if locations.is_user_file(path) and not path.startswith(installed) else None


def _module_origin(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not isinstance(spec.origin, str):
        return None
    if spec.submodule_search_locations is not None:  # a package run with -m: its __main__.py
        return os.path.join(os.path.dirname(spec.origin), "__main__.py")
    return spec.origin
