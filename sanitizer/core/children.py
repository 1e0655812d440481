"""Training in processes the script starts (`mp.Process`, `mp.spawn`): each child is
watched by a session of its own and writes its own report.

`multiprocessing`'s `BaseProcess.start` is wrapped: a process whose target is the
script's own code (or `torch.multiprocessing.spawn`'s wrapper around it) gets a
`WatchedTarget` instead (a `Process` subclass whose own `run()` is the script's
gets one as its instance's `run`), which travels to the child (pickled under spawn, copied
under fork) and runs the target inside a new `Sanitizer`. Library processes
(DataLoader workers, a Manager's server, Pool workers) are left alone. Child N
(the number in its name, `Process-N`) writes the parent's report path with
`.childN` before the suffix and prefixes its alerts with `[child N]`; the parent
lists its children's reports in its notes.
"""
from __future__ import annotations

import functools
import json
import os
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from sanitizer.core import locations

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

HALT_STATUS = 3


@dataclass
class ChildSettings:
    """What a child's session takes over from the parent's (plain data: it is pickled)."""

    report: str | None
    checks: list[str]
    halt_on: list[str]
    script: str | None
    argv: list[str]


@dataclass
class StartedChild:
    number: str
    report: str | None


@dataclass
class Children:
    """The watched children a session started."""

    started: list[StartedChild] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per child: what its report says, once the child wrote it; then, when
        values went non-finite in them, the child where that started (see `origin`)."""
        lines = [f"child process {child.number} was watched by its own session: {_outcome(child.report)}"
                 for child in self.started]
        origin = self.origin()
        if origin is not None:
            lines.append(f"the first non-finite value of the child processes was child process {origin['child']}'s: "
                         f"{origin_words(origin)}")
        return lines

    def origin(self) -> dict[str, Any] | None:
        """Where values first went non-finite among the children: the child whose own first
        non-finite problem (not weights a sibling broke in shared memory: hogwild) was found
        first in time, with that problem's kind, step, module and place."""
        from sanitizer.report.diagnosis import own_nonfinite_root
        found = []
        for child in self.started:
            data = _read(child.report)
            root = own_nonfinite_root(data) if data is not None else None
            if root is not None:
                time = root.get("time")
                found.append((not isinstance(time, (int, float)), time if isinstance(time, (int, float)) else 0.0,
                              child, root))
        found.sort(key=lambda item: item[:2])
        if not found or (found[0][0] and len(found) > 1):  # several, and no time to order them by
            return None
        _, _, child, root = found[0]
        return {"child": child.number, "kind": root.get("kind"), "step": root.get("step"),
                "module": root.get("module"), "where": root.get("where"), "report": child.report}

    def error_count(self) -> int:
        """The error events of the children's reports written so far (`--strict` fails
        the run on them as on the parent's own)."""
        return sum(len(_errors(data)) for child in self.started if (data := _read(child.report)) is not None)


def origin_words(origin: dict[str, Any]) -> str:
    """`nonfinite_input at step 3 (module fc1, train.py:31)`."""
    places = [f"module {origin['module']}"] if origin.get("module") else []
    places += [str(origin["where"])] if origin.get("where") else []
    return f"{origin.get('kind')} at step {origin.get('step')}" + (f" ({', '.join(places)})" if places else "")


def _read(report: str | None) -> dict[str, Any] | None:
    if report is None:
        return None
    try:
        with open(report, encoding="utf-8") as source:
            data = json.load(source)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _errors(data: dict[str, Any]) -> list[dict[str, Any]]:
    events = data.get("events", [])
    return [event for event in events if isinstance(event, dict) and event.get("severity") == "error"] \
        if isinstance(events, list) else []


def _outcome(report: str | None) -> str:
    if report is None:
        return "no report (the parent writes none)"
    data = _read(report)
    if data is None:
        return f"no report at {report} yet (still running, or killed)"
    errors = _errors(data)
    first = f", first: {errors[0]['kind']} at step {errors[0]['step']}" if errors else ""
    return (f"{data.get('steps')} steps, exit code {data.get('exit_code')}, "
            f"{len(errors)} error events{first}; report {report}")


class WatchedTarget:
    """A process target that runs under a Sanitizer of its own in the child."""

    def __init__(self, target: Callable[..., Any], settings: ChildSettings, number: str,
                 parent: Sanitizer) -> None:
        self.target = target
        self.settings = settings
        self.number = number
        self._parent: Sanitizer | None = parent  # reaches the child only under fork

    def __getstate__(self) -> dict[str, Any]:
        return {**vars(self), "_parent": None}

    @locations.transparent
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from sanitizer.core.session import Sanitizer, SanitizerHalt, status_of
        if self._parent is not None:
            self._parent.abandon()  # a forked copy of the parent's session: its hooks go, no report
        session = Sanitizer(report=None, checks=self.settings.checks, halt_on=self.settings.halt_on,
                            script=self.settings.script, argv=self.settings.argv, lint=False)  # the parent lints
        session.child = self.number
        session.report_path = session.report_file = self.settings.report
        session.start()
        try:
            result = self.target(*args, **kwargs)
        except SanitizerHalt as halt:
            _finish(session, halt, HALT_STATUS)
            raise SystemExit(HALT_STATUS) from None
        except BaseException as exc:
            _finish(session, exc, status_of(exc))
            raise
        _finish(session, None, 0)
        return result


def _finish(session: Sanitizer, exc: BaseException | None, status: int) -> None:
    from sanitizer.core.session import SanitizerHalt
    session.record_ending(exc)
    session.close(exit_code=status)
    if isinstance(exc, SanitizerHalt):
        session.alert(f"halted ({exc.event.kind} is in --halt-on): {exc.event.one_line()}")
    session.print_summary()


def install(session: Sanitizer, stack: ExitStack, patch: Callable[..., None]) -> None:
    """Wrap `BaseProcess.start` (with the session's `patch`, undone on close)."""
    from multiprocessing import process

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def start(self: Any) -> Any:
            if session.active and _trains_user_code(self):
                session.children.started.append(_watch(self, session))
            return original(self)
        return start

    patch(stack, process.BaseProcess, "start", wrap)


def _watch(process: Any, session: Sanitizer) -> StartedChild:
    number = ".".join(str(part) for part in process._identity) or "0"
    report = child_report_path(session.report_file, number)
    settings = ChildSettings(report=report, checks=sorted(session.enabled_kinds), halt_on=sorted(session.halt_on),
                             script=session.script, argv=list(session.argv))
    if process._target is None:  # a subclass's own run(): the instance's run wraps it
        process.run = WatchedTarget(functools.partial(type(process).run, process), settings, number, session)
    elif _is_spawn_wrapper(process._target):
        # torch's spawn wrapper catches the script's exception and exits 1: the script's
        # function is watched inside it, so the child's report sees the exception itself
        process._args = (WatchedTarget(process._args[0], settings, number, session), *process._args[1:])
    else:
        process._target = WatchedTarget(process._target, settings, number, session)
    return StartedChild(number=number, report=report)


def child_report_path(report: str | None, number: str) -> str | None:
    """`run.rank0.json` becomes `run.rank0.child2.json` for child 2."""
    if report is None:
        return None
    stem, suffix = os.path.splitext(report)
    return f"{stem}.child{number}{suffix or '.json'}"


def _trains_user_code(process: Any) -> bool:
    target = getattr(process, "_target", None)
    if target is None:
        run = type(process).run
        from multiprocessing.process import BaseProcess
        return (run is not BaseProcess.run and not isinstance(vars(process).get("run"), WatchedTarget)
                and locations.is_user_code(run))
    if isinstance(target, WatchedTarget):
        return False
    if _is_spawn_wrapper(target):  # torch.multiprocessing.spawn: the script's function is the first argument
        args = getattr(process, "_args", ())
        return bool(args) and locations.is_user_code(args[0])
    return locations.is_user_code(target)


def _is_spawn_wrapper(target: Any) -> bool:
    return getattr(target, "__module__", None) == "torch.multiprocessing.spawn" and getattr(target, "__name__", "") == "_wrap"



