"""The JSON report (schema 1), its atomic write, and the end-of-run summary."""
from __future__ import annotations

import json
import os

from typing import TYPE_CHECKING, Any

from sanitizer import __version__
from sanitizer.core.catalogue import KINDS, STAGES
from sanitizer.core.events import json_safe
from sanitizer.report.atomic_file import write_atomically

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

SCHEMA = 1
SERIES_POINTS = 2048  # series are decimated by 2 whenever they outgrow this
SERIES_COLUMNS = ("step", "loss", "grad_norm", "loss_scale", "memory_bytes")


class Series:
    """Per-step values, downsampled to at most SERIES_POINTS points (every `stride`-th step)."""

    def __init__(self, capacity: int = SERIES_POINTS) -> None:
        self.capacity = capacity
        self.stride = 1
        self.columns: dict[str, list[Any]] = {name: [] for name in SERIES_COLUMNS}
        self._seen = 0

    def add(self, **values: Any) -> None:
        if self._seen % self.stride == 0:
            for name, column in self.columns.items():
                column.append(values.get(name))
            if len(self.columns["step"]) > self.capacity:
                for column in self.columns.values():
                    del column[1::2]
                self.stride *= 2
        self._seen += 1

    def to_json(self) -> dict[str, list[Any]]:
        return {name: [_finite_or_null(v) for v in column] for name, column in self.columns.items()}


def _finite_or_null(value: Any) -> Any:
    """Series hold numbers only: a non-finite or unmeasured value is null."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    return value


def build(session: Sanitizer, duration: float) -> dict[str, Any]:
    counts = {kind: count for kind, count in sorted(session.counts.items())}
    return {
        "schema": SCHEMA, "tool": "sanitizer", "version": __version__,
        "script": session.script, "argv": session.argv,
        "rank": session.rank if session.rank is not None else 0, "world_size": session.world_size,
        "device": session.device or "cpu", "exit_code": session.exit_code,
        "steps": session.steps, "skipped_steps": session.skipped_steps,
        "duration_s": round(duration, 3),
        "checks": sorted(session.enabled_kinds),
        "events": [dict(event.to_json(), rank=session.rank or 0) for event in session.events],
        "series": session.series.to_json(),
        "summary": {"counts": counts, "errors": session.error_count, "diagnosis": diagnosis(session),
                    "notes": list(session.notes)},
        "detectors": {d.name: json_safe(d.state()) for d in session.detectors},
    }


def diagnosis(session: Sanitizer) -> str:
    """What happened, stage by stage in the chapter's order, with what to try."""
    lines = []
    for stage in STAGES:
        for kind in KINDS.values():
            if kind.stage != stage:
                continue
            events = [event for event in session.events if event.kind == kind.name]
            if events:
                more = f" (+{session.counts[kind.name] - 1} more)" if session.counts[kind.name] > 1 else ""
                lines.append(f"[{stage}] {events[0].one_line()}{more}. Try: {kind.advice}.")
    if not lines:
        lines.append(f"no problems found in {session.steps} steps")
    return "\n".join(lines + list(session.notes))


def summary_lines(session: Sanitizer) -> list[str]:
    errors = session.error_count
    warnings = len(session.events) - errors
    where = f"; report: {session.report_path}" if session.report_path else ""
    head = f"{session.steps} steps, {errors} errors, {warnings} warnings{where}"
    return [head] + diagnosis(session).splitlines()


def write_atomic(path: str, data: dict[str, Any]) -> None:
    """Write the report as JSON, atomically (creating its directory)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomically(path, (json.dumps(data, indent=1, allow_nan=False) + "\n").encode("utf-8"))
