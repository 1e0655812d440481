"""Helpers: run a script under `python -m sanitizer` in a subprocess and load its report.

Scripts run concurrently (a small pool) from the start of the session, beside
the linter's tests (tests/conftest.py), so the suite's wall time is not the sum
of interpreter start-ups. Test modules add their scripts to PRELAUNCH at import
time, before the pool starts.

(A plain module rather than conftest.py, so that no test imports a module
named `conftest`: other test directories may have their own.)
"""
from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "scripts"
TIMEOUT = 300  # generous: spawned children import torch again, slow on a loaded machine
# trainlint's result cache for the runs' lints of their scripts (see sanitizer/core/script_lint.py):
# most scripts run several times, with different arguments; the first run lints them
LINT_CACHE = tempfile.mkdtemp(prefix="sanitizer-lint-cache-")
_OWNER = os.getpid()  # a forked child of the session exits without removing it
atexit.register(lambda: os.getpid() == _OWNER and shutil.rmtree(LINT_CACHE, ignore_errors=True))


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        assert self.report is not None, self.stderr
        return [e for e in self.report["events"] if kind is None or e["kind"] == kind]

    def errors(self) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["severity"] == "error"]

    def first(self, kind: str) -> dict[str, Any]:
        found = self.events(kind)
        assert found, f"no {kind} event; events: {self.events()}\nstderr:\n{self.stderr}"
        return found[0]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    env["SANITIZER_LINT_CACHE"] = LINT_CACHE
    env.pop("RANK", None)
    env.pop("WORLD_SIZE", None)
    env.update(extra or {})
    return env


def run_sanitizer(target: list[str], report: Path, options: list[str] | None = None,
                  cwd: Path = SCRIPTS, env: dict[str, str] | None = None) -> Run:
    command = [sys.executable, "-m", "sanitizer", "--report", str(report), *(options or []), *target]
    done = subprocess.run(command, cwd=cwd, env=environment(env), capture_output=True, text=True,
                          timeout=TIMEOUT)
    data = json.loads(report.read_text()) if report.exists() else None
    return Run(done.returncode, done.stdout, done.stderr, data)


class ForkServer:
    """Runs `python ARGV...` as a child of tests/sanitizer/forkserver.py, which has
    imported torch once (see there for what differs from a fresh interpreter)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        request_in, self._requests = os.pipe()
        self._replies, reply_out = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("forkserver.py")), str(request_in), str(reply_out)],
            pass_fds=(request_in, reply_out), env=environment(), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL)
        os.close(request_in)
        os.close(reply_out)
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._pids: dict[str, int] = {}
        self._done: dict[str, int] = {}
        self._changed = threading.Condition(self._lock)
        threading.Thread(target=self._read_replies, name="forkserver-replies", daemon=True).start()

    def run(self, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        ident = str(next(self._ids))
        stdout, stderr = self.directory / f"{ident}.out", self.directory / f"{ident}.err"
        request = {"argv": argv, "cwd": str(cwd), "env": environment(), "stdout": str(stdout), "stderr": str(stderr)}
        with self._lock:
            os.write(self._requests, f"{ident} {json.dumps(request)}\n".encode())
            if not self._changed.wait_for(lambda: ident in self._done, timeout=TIMEOUT):
                if ident in self._pids:
                    os.kill(self._pids[ident], signal.SIGKILL)
                raise subprocess.TimeoutExpired(argv, TIMEOUT)
            status = self._done.pop(ident)
        return subprocess.CompletedProcess(argv, status, _text(stdout), _text(stderr))

    def close(self) -> None:
        os.close(self._requests)
        self.process.wait(timeout=60)

    def _read_replies(self) -> None:
        with os.fdopen(self._replies) as replies:
            for line in replies:
                ident, what, number = line.split()
                with self._lock:
                    (self._pids if what == "started" else self._done)[ident] = int(number)
                    self._changed.notify_all()
        with self._lock:  # the server is gone: whoever still waits learns it
            self._done.update({ident: -signal.SIGKILL for ident in self._pids if ident not in self._done})
            self._changed.notify_all()


def _text(path: Path) -> str:
    """A captured stream as `subprocess.run(..., text=True)` gives it."""
    with open(path, encoding=None) as stream:
        return stream.read()


# Scripts whose tests are about the process itself (exit statuses, signals, child
# processes, environment torch reads as it loads, the wait for `import torch`): they
# run in a fresh interpreter, never in a child of the fork server. Test modules add theirs.
FRESH: set[str] = set()


class ScriptRuns:
    """Each (script, args, options) runs once per session, in a pool of subprocesses."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pool = ThreadPoolExecutor(max_workers=3)
        self.futures: dict[tuple[str, ...], Future[Run]] = {}
        (directory / "streams").mkdir()
        self.forks = ForkServer(directory / "streams")

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)  # a run stopped early (-x) waits for no queue
        self.forks.close()

    def submit(self, script: str, *args: str, options: tuple[str, ...] = ()) -> None:
        key = (script, *args, "|", *options)
        if key not in self.futures:
            report = self.directory / ("-".join(part.strip("-") for part in key if part != "|") + ".json")
            if script in FRESH:
                self.futures[key] = self.pool.submit(run_sanitizer, [script, *args], report, list(options))
            else:
                self.futures[key] = self.pool.submit(self._forked, [script, *args], report, list(options))

    def _forked(self, target: list[str], report: Path, options: list[str]) -> Run:
        done = self.forks.run(["-m", "sanitizer", "--report", str(report), *options, *target], SCRIPTS)
        data = json.loads(report.read_text()) if report.exists() else None
        return Run(done.returncode, done.stdout, done.stderr, data)

    def get(self, script: str, *args: str, options: tuple[str, ...] = ()) -> Run:
        self.submit(script, *args, options=options)
        return self.futures[(script, *args, "|", *options)].result()

    def submit_plain(self, script: str, *args: str) -> None:
        key = ("plain", script, *args)
        if key not in self.futures and script in FRESH:
            self.futures[key] = self.pool.submit(
                subprocess.run, [sys.executable, script, *args], cwd=SCRIPTS, env=environment(),
                capture_output=True, text=True, timeout=TIMEOUT)
        elif key not in self.futures:
            self.futures[key] = self.pool.submit(self.forks.run, [script, *args], SCRIPTS)

    def plain(self, script: str, *args: str) -> subprocess.CompletedProcess[str]:
        """The same script under plain `python`, for comparison."""
        self.submit_plain(script, *args)
        return self.futures[("plain", script, *args)].result()


# Every fault script and its healthy twin, started together at the first use:
# (script, *args), ("plain", script, *args), or ("options", (option, ...), script, *args).
PRELAUNCH: list[tuple[Any, ...]] = []


def line_of(script: str, text: str, exact: bool = False) -> int:
    """1-based number of the first line of `script` that starts with (or is) `text`."""
    for number, line in enumerate((SCRIPTS / script).read_text().splitlines(), start=1):
        if line.strip() == text or (not exact and line.strip().startswith(text)):
            return number
    raise AssertionError(f"{text!r} not in {script}")
