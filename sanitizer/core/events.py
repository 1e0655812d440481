"""The event record shared by detectors, the session and the report."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sanitizer.core.catalogue import severity_of


@dataclass
class Event:
    kind: str
    step: int | None
    message: str
    module: str | None = None
    param: str | None = None
    where: str | None = None
    value: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    severity: str = ""

    def __post_init__(self) -> None:
        if not self.severity:
            self.severity = severity_of(self.kind)

    def to_json(self) -> dict[str, Any]:
        record = {"kind": self.kind, "severity": self.severity, "step": self.step,
                  "message": self.message, "module": self.module, "param": self.param,
                  "where": self.where, "value": json_number(self.value)}
        record.update({key: json_safe(value) for key, value in self.extra.items()})
        return record

    def one_line(self) -> str:
        at = f" at step {self.step}" if self.step is not None else ""
        places = [f"{label} {value}" for label, value in
                  (("module", self.module), ("param", self.param), ("at", self.where)) if value]
        where = f" ({', '.join(places)})" if places else ""
        return f"{self.kind}{at}: {self.message}{where}"


def json_number(value: Any) -> Any:
    """JSON has no NaN/Inf: write them as the strings "nan", "inf", "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return json_number(value)


class SanitizerHalt(BaseException):
    """Raised into the script at the first event of a `--halt-on` kind.

    A BaseException, so that the script's own `except Exception` does not swallow it.
    """

    def __init__(self, event: Event) -> None:
        super().__init__(f"halted on {event.one_line()}")
        self.event = event
