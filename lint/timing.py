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
