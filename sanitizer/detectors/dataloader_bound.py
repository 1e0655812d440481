"""The share of step time spent waiting for the next batch from a DataLoader."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

MIN_STEPS = 5
SHARE = 0.5
MIN_WAIT = 0.003  # seconds per step: below this, collation overhead of a tiny model is not a finding


class DataloaderBoundDetector(Detector):
    name = "dataloader_bound"
    kinds = ("dataloader_bound",)

    def __init__(self) -> None:
        self.timed_steps = 0
        self.wait_seconds = 0.0
        self.step_seconds = 0.0

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.step_time is None or record.partial:
            return
        self.timed_steps += 1
        self.wait_seconds += record.data_wait
        self.step_seconds += record.step_time

    @property
    def share(self) -> float:
        return self.wait_seconds / self.step_seconds if self.step_seconds > 0 else 0.0

    def on_end(self, sink: Sink) -> None:
        if (self.timed_steps >= MIN_STEPS and self.share >= SHARE
                and self.wait_seconds / self.timed_steps >= MIN_WAIT):
            sink.emit("dataloader_bound", None,
                      f"{self.share:.0%} of step time was spent waiting for the next batch "
                      f"({self.wait_seconds:.2f}s of {self.step_seconds:.2f}s over {self.timed_steps} steps)",
                      value=self.share, extra={"wait_seconds": self.wait_seconds,
                                                  "step_seconds": self.step_seconds})
