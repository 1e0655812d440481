"""Memory that keeps growing after the first steps (CUDA allocator, or RSS on CPU)."""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

BASELINE_STEP = 5  # optimizer state is allocated by then
MIB = 2 ** 20
RISING_SAMPLES = 4
# (absolute, relative) growth over the baseline that counts: RSS is noisier than the allocator
CUDA_GROWTH = (16 * MIB, 0.2)
RSS_GROWTH = (64 * MIB, 0.5)


class MemoryGrowthDetector(Detector):
    name = "memory_growth"
    kinds = ("memory_growth",)

    def __init__(self) -> None:
        self.baseline_bytes: float | None = None
        self.baseline_step: int | None = None
        self.last_bytes: float | None = None
        self.reported = False
        self._recent: deque[float] = deque(maxlen=RISING_SAMPLES)

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        value = record.memory_bytes
        if value is None or record.step < BASELINE_STEP:
            return
        if self.baseline_bytes is None:
            self.baseline_bytes, self.baseline_step = value, record.step
        self.last_bytes = value
        self._recent.append(value)
        absolute, relative = CUDA_GROWTH if (sink.device or "").startswith("cuda") else RSS_GROWTH
        growth = value - self.baseline_bytes
        rising = len(self._recent) == RISING_SAMPLES and all(a <= b for a, b in zip(self._recent, list(self._recent)[1:]))
        if rising and growth > max(absolute, relative * self.baseline_bytes) and not self.reported:
            self.reported = True
            steps = max(record.step - (self.baseline_step or record.step), 1)
            sink.emit("memory_growth", record.step,
                      f"memory grew by {growth / MIB:.1f} MiB since step {self.baseline_step} "
                      f"({growth / steps / MIB:.2f} MiB per step)",
                      value=growth, extra={"baseline_bytes": self.baseline_bytes, "bytes": value,
                                              "bytes_per_step": growth / steps})
