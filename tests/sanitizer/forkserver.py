"""A process that has imported torch once and forks a child per script run.

Most of the sanitizer's test scripts take less time to train than the
interpreter takes to import torch. The test harness (sanitizer_harness.py)
therefore starts this server once per session and has it fork one child per
`python -m sanitizer ...` or `python script.py` run: the child changes to the
run's directory and environment, points its standard streams at files, and
runs the sanitizer's `__main__` (or the script) as the interpreter would, then
exits through the interpreter's own exit steps (threads joined, `atexit`
functions run, streams flushed).

What differs from a fresh interpreter: torch is imported before the run
starts, so the sanitizer starts watching at once instead of at the script's
`import torch`; and the objects that import made are frozen (`gc.freeze()`): the
collector leaves them out of its passes and of `gc.get_objects()`, so a child's
collections and the sanitizer's scans for models and optimizers
(`sanitizer.core.naming.live_instances`) walk only what the run made. None of
the frozen objects is a model or an optimizer (the server checks), so the scans
find what they would find in a fresh interpreter. Tests about the process itself (exit statuses,
signals, child processes, environment read at import, the wait for torch to
load) run in fresh interpreters: see `FRESH` in sanitizer_harness.py.

Protocol, one line each way per event: the harness writes
`<id> <json request>`; the server answers `<id> started <pid>` and, once the
child has ended, `<id> done <returncode>` (negative for a signal, as with
subprocess). End of input stops the server, which kills the children left.
"""
from __future__ import annotations

import atexit
import builtins
import gc
import importlib.machinery
import json
import os
import runpy
import select
import signal
import sys
import threading
import tokenize
import traceback
import types
from typing import Any

import torch  # noqa: F401  (the import every run would otherwise repeat)
import torch._dynamo  # noqa: F401  (and the one torch.optim's first step makes, over a second more)


def _freeze() -> None:
    """Move what the imports made out of the collector's generations (see above)."""
    gc.collect()
    found = [obj for obj in gc.get_objects() if issubclass(type(obj), (torch.nn.Module, torch.optim.Optimizer))]
    if found:  # these would be missing from the children's scans
        raise RuntimeError(f"models or optimizers exist before any run: {found[:3]!r}")
    gc.freeze()


def main() -> None:
    requests, replies = int(sys.argv[1]), int(sys.argv[2])
    _freeze()
    children: dict[int, str] = {}
    pending = b""
    open_input = True
    while open_input or children:
        if open_input:
            ready, _, _ = select.select([requests], [], [], 0.02)
            if ready:
                chunk = os.read(requests, 65536)
                if not chunk:
                    open_input = False
                    for pid in children:
                        _kill(pid)
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    ident, request = line.decode().split(" ", 1)
                    pid = os.fork()
                    if pid == 0:
                        os.close(requests)
                        os.close(replies)
                        _child(json.loads(request))  # never returns
                    children[pid] = ident
                    os.write(replies, f"{ident} started {pid}\n".encode())
        else:
            select.select([], [], [], 0.02)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            ident = children.pop(pid, None)
            if ident is not None and open_input:
                os.write(replies, f"{ident} done {os.waitstatus_to_exitcode(status)}\n".encode())


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _child(request: dict[str, Any]) -> None:
    status = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        status = _run(request["argv"])
    finally:
        os._exit(status)


def _run(argv: list[str]) -> int:
    """argv as given to the interpreter (`-m module ...` or `script ...`); the status it exits with."""
    try:
        try:
            if argv[0] == "-m":
                sys.argv = argv[1:]
                sys.path[0] = os.getcwd()
                runpy._run_module_as_main(argv[1])  # type: ignore[attr-defined]  # what `-m` calls
            else:
                sys.argv = list(argv)
                sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
                _run_script(argv[0])
            status = 0
        except SystemExit as exit_:
            status = _exit_status(exit_)
        except KeyboardInterrupt:
            traceback.print_exc()
            status = -signal.SIGINT
        except BaseException:
            sys.excepthook(*sys.exc_info())
            status = 1
        threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's own steps on exit
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
    if status < 0:  # died of the signal, as the interpreter does on an uncaught Ctrl-C
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status


def _run_script(script: str) -> None:
    path = os.path.abspath(script)
    main = types.ModuleType("__main__")
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    main.__file__ = path
    with tokenize.open(path) as source:
        code = compile(source.read(), path, "exec", dont_inherit=True)
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _exit_status(exit_: SystemExit) -> int:
    code = exit_.code
    if code is None:
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        print(code, file=sys.stderr)
        return 1
    return code & 0xFF


if __name__ == "__main__":
    main()
