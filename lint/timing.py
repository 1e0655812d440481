"""Where the time of one file goes: parsing, the semantic model, each shared
analysis, each rule (`trainlint check --timings`).

Times are CPU seconds of the process (steadier than wall time on a busy
machine) and exclusive: the first rule to ask for a shared analysis (what each
variable holds, the flow graph) is not charged for building it; the
analysis is, under its own name.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator


class Timer:
    enabled = True

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._nested: list[float] = []  # per open measurement: time spent in the ones inside it

    @contextmanager
    def measure(self, label: str) -> Iterator[None]:
        self._nested.append(0.0)
        start = time.process_time()
        try:
            yield
        finally:
            elapsed = time.process_time() - start
            inner = self._nested.pop()
            self.seconds[label] = self.seconds.get(label, 0.0) + elapsed - inner
            if self._nested:
                self._nested[-1] += elapsed


class NoTimer(Timer):
    """What a run without `--timings` uses: measures nothing."""

    enabled = False

    @contextmanager
    def measure(self, label: str) -> Iterator[None]:
        yield


def report(per_file: dict[str, dict[str, float]], slowest: int = 10) -> str:
    """The slowest files, and the time of each stage, analysis and rule over
    all files, with its share of the parse."""
    if not per_file:
        return "No file was analysed (every result came from the cache): nothing to time.\n"
    totals: dict[str, float] = {}
    for seconds in per_file.values():
        for label, spent in seconds.items():
            totals[label] = totals.get(label, 0.0) + spent
    parse = totals.get("parse", 0.0)
    lines = [f"Slowest files (CPU seconds, of {len(per_file)} analysed):"]
    by_file = sorted(per_file.items(), key=lambda item: -sum(item[1].values()))[:slowest]
    for path, seconds in by_file:
        top = max(seconds, key=seconds.__getitem__)
        lines.append(f"{sum(seconds.values()):9.3f}  {path}  (most: {top} {seconds[top]:.3f})")
    lines.append("Time by stage, analysis and rule (CPU seconds, x parse):")
    for label, spent in sorted(totals.items(), key=lambda item: -item[1]):
        share = f"{spent / parse:6.2f}x" if parse else ""
        lines.append(f"{spent:9.3f}  {share}  {label}")
    lines.append(f"{sum(totals.values()):9.3f}  total")
    return "\n".join(lines) + "\n"
