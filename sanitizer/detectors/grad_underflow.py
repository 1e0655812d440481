"""fp16 gradient underflow: most gradient values are zero or below the fp16 normal range.

The session samples the share on every few steps under fp16 (autocast, GradScaler
or half-precision gradients), measured on the scaled values when a GradScaler is on.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

SHARE = 0.5
SAMPLES_IN_A_ROW = 2


class GradUnderflowDetector(Detector):
    name = "grad_underflow"
    kinds = ("grad_underflow",)

    def __init__(self) -> None:
        self.samples = 0
        self.high_in_a_row = 0
        self.max_share = 0.0
        self.reported = False

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        share = record.underflow
        if share is None:
            return
        self.samples += 1
        self.max_share = max(self.max_share, share)
        self.high_in_a_row = self.high_in_a_row + 1 if share >= SHARE else 0
        if self.high_in_a_row >= SAMPLES_IN_A_ROW and not self.reported:
            self.reported = True
            scaled = " after loss scaling" if record.scale is not None else " (no loss scaling)"
            sink.emit("grad_underflow", record.step,
                      f"{share:.0%} of gradient values are zero or below the fp16 normal range{scaled}",
                      value=share, extra={"loss_scale": record.scale})
