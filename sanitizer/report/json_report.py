"""The JSON report (schema 1) and its atomic write."""
from __future__ import annotations

import json
import math
import os

from typing import TYPE_CHECKING, Any

from sanitizer import __version__
from sanitizer.core.events import json_safe
from sanitizer.report.atomic_file import write_atomically
from sanitizer.report.diagnosis import diagnose, diagnosis_lines
from sanitizer.report.formatting import no_problems_line
from sanitizer.report.related import relate

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

SCHEMA = 1
SERIES_POINTS = 2048  # series are decimated by 2 whenever they outgrow this
SERIES_COLUMNS = ("step", "loss", "grad_norm", "loss_scale", "memory_bytes")


class Series:
    """Per-step values, downsampled to at most SERIES_POINTS points (every `stride`-th step),
    and the evaluation losses with their own steps (only steps that evaluated)."""

    def __init__(self, capacity: int = SERIES_POINTS) -> None:
        self.capacity = capacity
        self.stride = 1
        self.columns: dict[str, list[Any]] = {name: [] for name in SERIES_COLUMNS}
        self.evaluations: dict[str, list[Any]] = {"eval_step": [], "eval_loss": []}
        self._seen = 0
        self._last_row: int | None = None  # the row of the step added last, while it is kept

    def add(self, **values: Any) -> None:
        self._last_row = None
        if self._seen % self.stride == 0:
            for name, column in self.columns.items():
                column.append(values.get(name))
            row = len(self.columns["step"]) - 1
            if _halve_when_full(self.columns, self.capacity):
                self.stride *= 2
                row = row // 2 if row % 2 == 0 else None  # halving keeps the even rows
            self._last_row = row
        self._seen += 1

    def add_to_last(self, grad_norm: float | None) -> None:
        """Another optimizer's part of the step just added: its gradients join the norm."""
        row = self._last_row
        if row is None or grad_norm is None:
            return  # that step was not kept
        column = self.columns["grad_norm"]
        column[row] = grad_norm if column[row] is None else math.hypot(column[row], grad_norm)

    def add_evaluation(self, step: int, loss: float) -> None:
        self.evaluations["eval_step"].append(step)
        self.evaluations["eval_loss"].append(loss)
        _halve_when_full(self.evaluations, self.capacity)

    def to_json(self) -> dict[str, list[Any]]:
        shown = dict(self.columns, **self.evaluations) if self.evaluations["eval_step"] else self.columns
        return {name: [_finite_or_null(v) for v in column] for name, column in shown.items()}


def _halve_when_full(columns: dict[str, list[Any]], capacity: int) -> bool:
    """Drop every other row once the columns outgrow `capacity`; True when it did."""
    if len(next(iter(columns.values()))) <= capacity:
        return False
    for column in columns.values():
        del column[1::2]
    return True


def _finite_or_null(value: Any) -> Any:
    """Series hold numbers only: a non-finite or unmeasured value is null."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    return value


def build(session: Sanitizer, duration: float) -> dict[str, Any]:
    counts = {kind: count for kind, count in sorted(session.counts.items())}
    report = {
        "schema": SCHEMA, "tool": "sanitizer", "version": __version__,
        "script": session.script, "argv": session.argv,
        "rank": session.rank if session.rank is not None else 0, "world_size": session.world_size,
        "device": session.device or "cpu", "exit_code": session.exit_code, "ending": session.ending,
        "steps": session.steps, "skipped_steps": session.skipped_steps,
        "duration_s": round(duration, 3),
        "checks": sorted(session.enabled_kinds),
        "events": _events(session),
        "lint": session.lint_findings,
        "series": session.series.to_json(),
        "summary": {"counts": counts, "errors": session.error_count, "notes": list(session.notes),
                    **({"child_errors": children} if (children := session.children.error_count()) else {}),
                    **({"child_origin": origin} if (origin := session.children.origin()) else {})},
        "detectors": {d.name: json_safe(d.state()) for d in session.detectors},
    }
    problems = diagnose(report)
    report["summary"]["diagnosis"] = "\n".join(
        diagnosis_lines(problems, session.notes) if problems
        else [no_problems_line(session.steps, children, origin), *session.notes])
    report["summary"]["problems"] = [problem.to_json() for problem in problems]
    return report


def _events(session: Sanitizer) -> list[dict[str, Any]]:
    events = [dict(event.to_json(), rank=session.rank or 0) for event in session.events]
    if session.lint_findings:
        relate(events, session.lint_findings, frozenset(session.enabled_kinds))
    return events


def write_atomic(path: str, data: dict[str, Any]) -> None:
    """Write the report as JSON, atomically (creating its directory)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomically(path, (json.dumps(data, indent=1, allow_nan=False) + "\n").encode("utf-8"))
