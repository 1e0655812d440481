"""fp16 gradient underflow: gradient values that fp16 flushed to zero.

The session takes the census (`sanitizer.core.underflow`) every few steps under
fp16 (autocast, GradScaler or half-precision gradients). Values that are merely
tiny are not counted: an fp32 run of the same model has as many; only zeros an
fp32 run would not have are.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

SHARE = 0.1  # one gradient value in ten lost to zero
SAMPLES_IN_A_ROW = 2


class GradUnderflowDetector(Detector):
    name = "grad_underflow"
    kinds = ("grad_underflow",)

    def __init__(self) -> None:
        self.samples = 0
        self.high_in_a_row = 0
        self.max_share = 0.0
        self.max_tiny_share = 0.0
        self.reported = False

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        share = record.underflow
        if share is None:
            return
        self.samples += 1
        self.max_share = max(self.max_share, share)
        self.max_tiny_share = max(self.max_tiny_share, record.tiny_share or 0.0)
        self.high_in_a_row = self.high_in_a_row + 1 if share >= SHARE else 0
        if self.high_in_a_row >= SAMPLES_IN_A_ROW and not self.reported:
            self.reported = True
            scaled = f" with a loss scale of {record.scale:g}" if record.scale is not None else " (no loss scaling)"
            sink.emit("grad_underflow", record.step,
                      f"fp16 flushed {share:.0%} of gradient values to zero{scaled}, values an fp32 run "
                      f"keeps ({record.tiny_share or 0:.0%} are below the fp16 normal range)",
                      value=share, extra={"loss_scale": record.scale, "tiny_share": record.tiny_share})
