"""The project's own linter run over the script being watched, beside the run.

After the first step (the script's imports are done by then, and the first step
is never slowed), the entry file and the project files it imported are linted
with trainlint's cross-file analysis and the rules, excludes and per-file
ignores of the nearest `[tool.trainlint]` configuration, as `trainlint` run
from the launch directory would lint them. The lint runs in a child process at
low priority (this module run with `-m`, which imports neither torch nor the
training's modules): the training keeps its interpreter lock, and on a busy
machine the scheduler favours it. Once the run has ended there is no training
left to give way to: a lint still held back after HELD_BACK_S (on a machine
whose other processes keep it from running) starts again at normal priority.
The end of the run waits for the lint at most WAIT_S in all, then stops it.

With SANITIZER_LINT_CACHE naming a folder, the lint reads and writes trainlint's
result cache there (`trainlint.cache`): a run of a script that did not change
since a run before takes its findings from the cache instead of linting again.
Without it (the default) nothing is written.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path
from typing import Any

from sanitizer.core import locations

WAIT_S = 10.0  # the end of a short run waits this long, at most, for the lint
HELD_BACK_S = 1.0  # after this much of the wait, a lint still at low priority starts again at normal
LOW_PRIORITY = "--low-priority"  # the child's first argument when it is to give way to the training
MAX_FILES = 200  # project files linted besides the entry file
MAX_BYTES = 2_000_000  # a generated file this large is not worth a parse during a run
CACHE_ENV = "SANITIZER_LINT_CACHE"  # a folder for trainlint's result cache; unset: no cache


class ScriptLint:
    """Findings of `trainlint --format json` for the run's files, computed in a daemon thread."""

    def __init__(self, entry: str) -> None:
        self.entry = os.path.abspath(entry)
        self.findings: list[dict[str, Any]] | None = None
        self.problem: str | None = None  # why there are no findings, when there are none
        self._launch_dir = os.getcwd()  # paths read as trainlint run from here prints them
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._files: list[str] = []
        self._low_priority = True
        import trainlint  # the linter's own files are never the user's project modules
        locations.skip_package(trainlint)

    def start(self) -> None:
        """Lint the entry file and the project modules imported so far (once)."""
        if self._thread is not None or self.problem is not None:
            return
        try:
            self._files = [self.entry, *project_modules(self.entry)]
        except Exception:  # e.g. a broken configuration: the lint itself will say so
            self._files = [self.entry]
        self._launch()

    def _launch(self) -> None:
        priority = [LOW_PRIORITY] if self._low_priority else []
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, *priority, *self._files], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self._launch_dir, env=_child_env())
        except OSError as exc:
            self.problem = f"could not start the lint of {self._shown(self.entry)}: {exc}"
            return
        # waits for the child (without the interpreter lock) so that the run's end need not
        self._thread = threading.Thread(target=self._collect, name="sanitizer-lint", daemon=True)
        self._thread.start()

    def result(self, wait: float = WAIT_S) -> list[dict[str, Any]] | None:
        """The findings, or None (with `problem` saying why) when the lint failed or
        did not finish within `wait` seconds (it is stopped then)."""
        self.start()
        if self._thread is None:
            return None
        deadline = time.monotonic() + wait
        self._thread.join(min(wait, HELD_BACK_S))
        if self._thread.is_alive() and self._low_priority and wait > HELD_BACK_S:
            self._restart_at_normal_priority()
            if self._thread is None:
                return None
            self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            assert self._process is not None
            self._process.kill()
            self._thread.join()
            self.problem = f"the lint of {self._shown(self.entry)} did not finish within {wait:g}s"
            return None
        return self.findings

    def _restart_at_normal_priority(self) -> None:
        assert self._process is not None and self._thread is not None
        self._process.kill()
        self._thread.join()
        if self._process.returncode == 0:  # it finished just then: its findings stand
            return
        self.findings = self.problem = None  # of the child stopped here, not of the lint
        self._low_priority = False
        self._thread = None
        self._launch()

    def _collect(self) -> None:
        assert self._process is not None
        out, err = self._process.communicate()
        failure = None
        if self._process.returncode != 0:  # the child's exception, from its traceback's last line
            failure = (err.decode(errors="replace").strip().splitlines() or [""])[-1] \
                or f"exit status {self._process.returncode}"
        else:
            try:
                findings = json.loads(out)
                self.findings = [dict(finding, path=self._shown(str(finding["path"]))) for finding in findings]
            except (ValueError, TypeError, KeyError) as exc:
                failure = f"{type(exc).__name__}: {exc}"
        if failure is not None:  # the linter's failure never reaches the run: a note says it
            self.problem = f"could not lint {self._shown(self.entry)}: {failure}"

    def _shown(self, path: str) -> str:
        relative = os.path.relpath(path, self._launch_dir)
        return path if relative.startswith("..") else relative


def lint_files(files: list[str]) -> list[dict[str, Any]]:
    """Findings for `files` (absolute paths; the first one is the entry file) as
    dicts with the keys of `trainlint --format json`."""
    from trainlint.config import select_rules
    from trainlint.runner import RunOptions, run

    config = _config_for(files[0])
    selection = select_rules(config.select, config.extend_select, config.ignore)
    readable = [path for path in files if os.path.getsize(path) <= MAX_BYTES]
    cache = os.environ.get(CACHE_ENV)
    options = RunOptions(jobs=1, cache_dir=Path(cache) if cache else None)  # in this thread: no process pool
    result = run(readable, selection, config, options)
    return [finding.to_dict() for finding in sorted(result.findings)]


def project_modules(entry: str) -> list[str]:
    """Files of modules imported so far that belong to the entry file's project
    (under its configuration's folder, else its own folder), not excluded there."""
    from trainlint.config import matches_glob

    config = _config_for(entry)
    root = os.path.join(str(config.root), "")
    excluded = [*config.exclude, *config.extend_exclude]
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            continue
        path = os.path.abspath(path)
        if path != entry and path.startswith(root) and _user_code(path) and os.path.isfile(path) \
                and not matches_glob(Path(path), config.root, excluded):
            found.append(path)
    return sorted(set(found))[:MAX_FILES]


def _config_for(entry: str) -> Any:
    """The configuration trainlint would use for `entry`: the nearest [tool.trainlint]."""
    from trainlint.config import find_config, load_config

    return load_config(find_config(Path(entry).parent), fallback_root=Path(entry).parent)


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
    return candidate if _user_code(os.path.abspath(candidate)) else None


def _user_code(path: str) -> bool:
    """Not the sanitizer, torch, nor anything installed (the standard library included)."""
    installed = tuple(os.path.join(sysconfig.get_path(name), "") for name in ("stdlib", "purelib", "platlib"))
    return locations.is_user_file(path) and not path.startswith(installed)


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


def _child_env() -> dict[str, str]:
    """The run's environment, with this copy of the sanitizer importable first."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    return env


def main(arguments: list[str]) -> None:
    """The child: lint the files (the first is the entry file), print the findings as JSON."""
    files = arguments[1:] if arguments[:1] == [LOW_PRIORITY] else arguments
    if files is not arguments and hasattr(os, "nice"):
        try:
            os.nice(10)  # the training comes first
        except OSError:
            pass
    json.dump(lint_files(files), sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
