"""Running the target script or module as `__main__`, exactly as plain `python` would.

sys.argv and sys.path[0] are set the way the interpreter sets them, the script's
exit status is kept (SystemExit codes, 1 for an uncaught exception, death by
SIGINT on Ctrl-C, by SIGTERM when terminated), and the report is written before
the process leaves.

torch is not imported before the script imports it: the session starts when the
script's (or a library's) `import torch` has run torch's `__init__`, so that what
the script does first (`os.environ["OMP_NUM_THREADS"] = "1"`, and the other
variables torch reads as it loads) takes effect as in a plain run.
"""
from __future__ import annotations

import atexit
import builtins
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import signal
import sys
import tokenize
import types
import zipfile
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable

from sanitizer.cli import Options
from sanitizer.core import locations
from sanitizer.core.catalogue import chosen_kinds
from sanitizer.core.events import SanitizerHalt

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

HALT_STATUS = 3
STRICT_STATUS = 3


class Outcome:
    """How the target ended."""

    def __init__(self) -> None:
        self.status = 0
        self.exc_info: tuple[type[BaseException], BaseException, TracebackType | None] | None = None
        self.interrupted = False
        self.halt: SanitizerHalt | None = None
        self.exception: BaseException | None = None  # whatever ended the script, SystemExit included
        # the `__main__` the sanitizer ran under, put back once the report is written: till
        # then the script's globals stay alive, as they do at the interpreter's exit (the
        # end-of-run checks still see its models and its variable names)
        self.previous_main: types.ModuleType | None = None


def run(options: Options) -> int:
    chosen_kinds(options.checks, options.halt_on)  # a bad kind is told before the script runs
    if options.module is None and not os.path.exists(options.script or ""):
        return _missing_script(_session(options, None), options.script or "")
    outcome = Outcome()
    _prepare_sys(options)
    argv = list(sys.argv)
    if options.module is not None:  # what the module will see: runpy puts its file first
        argv[0] = _module_file(options.module) or argv[0]
    watch = Watch(options, argv)
    watch.start_when_torch_loads()
    _watch_sigterm(watch)
    exit_now = os._exit
    os._exit = _reporting_exit(watch, exit_now)
    try:
        _run_target(options, outcome)
    finally:
        watch.stop_waiting()
        os._exit = exit_now
        signal.getsignal, signal.signal = _GETSIGNAL, _SETSIGNAL
        if _ours(_GETSIGNAL(signal.SIGTERM)):
            _SETSIGNAL(signal.SIGTERM, signal.SIG_DFL)
        session = watch.session()  # started now if the script never imported torch
        status = _final_status(session, outcome)
        session.record_ending(outcome.exception)
        _close(session, status)
        if outcome.previous_main is not None:
            sys.modules["__main__"] = outcome.previous_main
    _print_exception(outcome)
    _print_halt(session, outcome)
    session.print_summary()
    if outcome.interrupted:
        _die_by_sigint()
    return status


def _session(options: Options, argv: list[str] | None, launched_in: str | None = None) -> Sanitizer:
    from sanitizer.core.session import Sanitizer  # imports torch

    script_name = options.script if options.module is None else options.module
    session = Sanitizer(report=options.report, checks=options.checks, halt_on=options.halt_on,
                        strict=options.strict, script=script_name,
                        argv=[script_name or "", *options.args], lint=options.lint, launched_in=launched_in)
    if argv is not None:
        session.argv = argv
    return session


class Watch:
    """The run's session, made and started when torch has loaded (see the module's
    docstring), or at once when torch is loaded already."""

    def __init__(self, options: Options, argv: list[str]) -> None:
        self.options = options
        self.argv = argv
        self.launched_in = os.getcwd()  # the script may change directory before it imports torch
        self._session: Sanitizer | None = None
        self._finder: _WhenTorchLoads | None = None

    def start_when_torch_loads(self) -> None:
        if "torch" in sys.modules:
            self.session()
            return
        self._finder = _WhenTorchLoads(self._torch_loaded)
        sys.meta_path.insert(0, self._finder)

    def stop_waiting(self) -> None:
        if self._finder is not None and self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        self._finder = None

    def session(self) -> Sanitizer:
        """The session, started now if it was not yet."""
        if self._session is None:
            self.stop_waiting()
            self._session = _session(self.options, self.argv, self.launched_in)
            self._session.start()
        return self._session

    def _torch_loaded(self) -> None:
        try:
            self.session()
        except Exception as exc:  # the script's `import torch` must succeed as in a plain run
            print(f"sanitizer: could not start watching the run: {type(exc).__name__}: {exc}", file=sys.stderr)


class _WhenTorchLoads(importlib.abc.MetaPathFinder):
    """Finds `torch` as the other finders do, and has its loader call `loaded()` once
    torch's `__init__` has run: the loader torch sees is its own."""

    def __init__(self, loaded: Callable[[], None]) -> None:
        self.loaded = loaded

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "torch":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loading(spec.loader, self)
                return spec
        return None


class _Loading(importlib.abc.Loader):
    def __init__(self, loader: Any, finder: _WhenTorchLoads) -> None:
        self.loader = loader
        self.finder = finder

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        if self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
        self.loader.exec_module(module)
        self.finder.loaded()


def _prepare_sys(options: Options) -> None:
    if options.module is not None:
        sys.argv = [options.module, *options.args]  # runpy replaces argv[0] with the module's file
        sys.path[0] = os.getcwd()
        _own_code_is_user_code(options.module)
    else:
        script = options.script or ""
        sys.argv = [script, *options.args]
        sys.path[0] = os.path.dirname(os.path.realpath(script))
        locations.add_user_root(sys.path[0])


def _module_file(module: str) -> str | None:
    """The file `python -m module` runs (a package's `__main__.py`), as runpy finds it."""
    try:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(f"{module}.__main__")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.has_location else None


def _own_code_is_user_code(module: str) -> None:
    """A module run with -m from an installed package: that package is the user's code."""
    try:
        spec = importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return
    if spec is None:
        return
    for path in list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else []):
        locations.add_user_root(path)  # a package's folder, or a lone module's file


def _run_target(options: Options, outcome: Outcome) -> None:
    try:
        if options.module is not None:
            runpy.run_module(options.module, run_name="__main__", alter_sys=True)
        elif os.path.isfile(options.script or "") and not zipfile.is_zipfile(options.script or ""):
            outcome.previous_main = sys.modules["__main__"]
            _run_source_file(options.script or "")
        else:  # a directory or zip archive with a __main__.py
            runpy.run_path(options.script or "", run_name="__main__")
    except SystemExit as exit_:
        outcome.exception = exit_
        outcome.status = _exit_status(exit_)
    except SanitizerHalt as halt:
        outcome.exception = outcome.halt = halt
        outcome.status = HALT_STATUS
    except KeyboardInterrupt as interrupt:
        outcome.exception = interrupt
        outcome.exc_info = sys.exc_info()  # type: ignore[assignment]
        outcome.interrupted = True
        outcome.status = 128 + signal.SIGINT
    except BaseException as error:
        outcome.exception = error
        outcome.exc_info = sys.exc_info()  # type: ignore[assignment]
        outcome.status = 1


def _run_source_file(script: str) -> None:
    """Like the interpreter: a fresh `__main__` with an absolute `__file__`, argv untouched;
    it stays `__main__` after the script ends (see `Outcome.previous_main`)."""
    path = os.path.abspath(script)
    main = types.ModuleType("__main__")
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    # the names plain python's `__main__` has, in its order (`globals()` of the script)
    main.__annotations__ = {}
    main.__builtins__ = builtins
    main.__file__ = path
    main.__cached__ = None  # type: ignore[attr-defined]
    with tokenize.open(path) as source:
        code = compile(source.read(), path, "exec", dont_inherit=True)
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _exit_status(exit_: SystemExit) -> int:
    """Status for `sys.exit(code)` as the interpreter computes it (printing a message code)."""
    code = exit_.code
    if code is None:
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        print(code, file=sys.stderr)
        return 1
    return code & 0xFF


def _final_status(session: Sanitizer, outcome: Outcome) -> int:
    if outcome.status == 0 and session.strict and (session.error_count or session.children.error_count()):
        return STRICT_STATUS
    return outcome.status


def _close(session: Sanitizer, status: int) -> None:
    try:
        session.close(exit_code=status)
    except Exception as exc:  # never hide the script's own outcome
        print(f"sanitizer: could not finish the report: {type(exc).__name__}: {exc}", file=sys.stderr)


def _missing_script(session: Sanitizer, script: str) -> int:
    message = f"can't open file {os.path.abspath(script)!r}: [Errno 2] No such file or directory"
    print(f"sanitizer: {message}", file=sys.stderr)
    session.notes.append(message)
    session.close(exit_code=2)
    return 2


def _print_exception(outcome: Outcome) -> None:
    """The script's traceback as plain python shows it: without the sanitizer's frames."""
    if outcome.exc_info is None:
        return
    kind, value, tb = outcome.exc_info
    while tb is not None and not locations.is_user_file(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    sys.excepthook(kind, value.with_traceback(tb), tb)


def _print_halt(session: Sanitizer, outcome: Outcome) -> None:
    if outcome.halt is not None:
        session.alert(f"halted ({outcome.halt.event.kind} is in --halt-on): {outcome.halt.event.one_line()}")


def _watch_sigterm(watch: Watch) -> None:
    """A SIGTERM (a timeout, a job scheduler, torchrun stopping the other ranks)
    kills plain python at once, without a traceback or `finally` blocks. The
    script still dies so, by the same signal, but after the report is written.
    Left alone when SIGTERM is ignored or already handled; a handler the script
    installs later replaces this one. A forked child (a Pool's or a DataLoader's
    worker) starts with the default again: a Python-level handler runs only
    between bytecodes, so a SIGTERM landing just before the worker blocks on a
    lock (as `Pool.terminate()` sends it) would be lost, and the join would hang."""
    if _GETSIGNAL(signal.SIGTERM) is not signal.SIG_DFL:
        return
    owner = os.getpid()
    global _FORK_RESET
    if not _FORK_RESET:  # hooks at fork cannot be removed: registered once, checked at each fork
        os.register_at_fork(after_in_child=_default_sigterm_in_child)
        _FORK_RESET = True

    def on_sigterm(signum: int, frame: types.FrameType | None) -> None:
        _SETSIGNAL(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
        if os.getpid() == owner:
            session = watch.session()
            session.record_termination(frame)
            _close(session, 128 + signal.SIGTERM)
            try:
                session.print_summary()
            except Exception:  # the report is what matters; dying is next
                pass
            sys.stdout.flush()  # no atexit handlers: plain python runs none when terminated
            sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGTERM)

    on_sigterm.sanitizer_handler = True  # type: ignore[attr-defined]
    _SETSIGNAL(signal.SIGTERM, on_sigterm)
    signal.getsignal, signal.signal = _getsignal, _signal


_FORK_RESET = False
# the signal module's own functions: the script is handed the two below while the
# sanitizer's SIGTERM handler is in place
_GETSIGNAL, _SETSIGNAL = signal.getsignal, signal.signal


def _getsignal(signalnum: int) -> Any:
    """`signal.getsignal` as the script sees it: the default where the sanitizer's own
    SIGTERM handler stands, as in a plain run (a handler that chains to the previous one
    when it is callable, as Lightning's does, then stops cleanly instead of dying)."""
    found = _GETSIGNAL(signalnum)
    return signal.SIG_DFL if _ours(found) else found


def _signal(signalnum: int, handler: Any) -> Any:
    """`signal.signal`, returning the default in place of the sanitizer's handler."""
    previous = _SETSIGNAL(signalnum, handler)
    return signal.SIG_DFL if _ours(previous) else previous


_getsignal.__name__, _signal.__name__ = "getsignal", "signal"


def _default_sigterm_in_child() -> None:
    try:
        if _ours(_GETSIGNAL(signal.SIGTERM)):
            _SETSIGNAL(signal.SIGTERM, signal.SIG_DFL)
    except ValueError:  # not the main thread: cannot happen after a fork, but never fail one
        pass


def _reporting_exit(watch: Watch, exit_now: Callable[[int], Any]) -> Callable[[int], Any]:
    """`os._exit` (a script that ends so to skip hanging workers' joins) ends the process
    without `finally` blocks or atexit handlers: the report is written first. Buffers
    the script wrote to stay as unflushed as in a plain run; a forked child (a
    DataLoader worker, a multiprocessing.Process) exits untouched."""
    owner = os.getpid()

    def _exit(*args: Any, **kwargs: Any) -> Any:
        code = args[0] if len(args) == 1 and not kwargs else kwargs.get("status") if list(kwargs) == ["status"] and not args else None
        if os.getpid() == owner and type(code) is int:  # anything else, `os._exit` refuses its own way
            session = watch.session()
            session.record_os_exit(code, sys._getframe(1))
            _close(session, code)
            try:
                session.print_summary()
            except Exception:  # the report is what matters; exiting is next
                pass
            sys.stderr.flush()
        return exit_now(*args, **kwargs)
    return _exit


def _ours(handler: object) -> bool:
    return getattr(handler, "sanitizer_handler", False)


def _die_by_sigint() -> None:
    """End like an interpreter killed by Ctrl-C: atexit handlers, then SIGINT."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
