"""Callbacks that run a training framework's fit under a `Sanitizer`.

`sanitizer.integrations.lightning` and `sanitizer.integrations.hf` each import their
framework; this package itself imports neither (nor torch).
"""
from __future__ import annotations

import atexit
import os
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer


class SessionHolder:
    """Owns the session of one training run: opened when training begins, closed when
    it ends however it ends, at the latest when the interpreter exits."""

    def __init__(self, report: str | os.PathLike[str] | None, options: dict[str, Any]) -> None:
        from sanitizer.core.session import Sanitizer

        Sanitizer(report=None, **options)  # bad options fail when the callback is built
        self.report = report
        self.options = options
        self.session: Sanitizer | None = None
        self.last_report: dict[str, Any] | None = None
        holder = weakref.ref(self)
        atexit.register(lambda: holder() is not None and holder().close_unfinished("the interpreter exited"))

    def open(self) -> Sanitizer:
        from sanitizer.core.session import Sanitizer

        self.close_unfinished("a new run started")
        self.session = Sanitizer(report=self.report, **self.options)
        self.session.start()
        return self.session

    def close(self, exit_code: int) -> dict[str, Any] | None:
        session, self.session = self.session, None
        if session is not None:
            self.last_report = session.close(exit_code=exit_code)
            session.print_summary()
        return self.last_report

    def close_unfinished(self, why: str) -> None:
        """A run whose framework never said it ended (an exception, with no hook for it)."""
        if self.session is not None:
            self.session.notes.append(f"the framework never reported the end of training ({why} first)")
            self.close(exit_code=1)


class HoldsSession:
    """What both framework callbacks expose: the running session and the last
    report, kept by a `SessionHolder`."""

    holder: SessionHolder

    def _hold(self, report: str | os.PathLike[str] | None, options: dict[str, Any]) -> None:
        self.holder = SessionHolder(report, options)

    @property
    def session(self) -> Any:
        """The running session, or None outside a training run."""
        return self.holder.session

    @property
    def report(self) -> dict[str, Any] | None:
        """The report of the last finished training run."""
        return self.holder.last_report
