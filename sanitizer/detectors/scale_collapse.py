"""GradScaler in trouble: steps skipped again and again, the loss scale falling to a floor.

The event says when the skipping began (`skipping_since`: the first step of the run of
skipped steps it ended, or the first skipped step of its window), so that the diagnosis
does not lay on it a loss spike the run had come back from before then."""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

SCALE_FLOOR = 1.0  # below 1 the scaler shrinks the loss: fp16 overflows at any useful scale
SKIPS_IN_A_ROW = 12  # 2**12 fold fall: more than any start-up calibration needs
WINDOW = 50
SKIP_SHARE = 0.2  # steady-state share of skipped steps that is not normal


class ScaleCollapseDetector(Detector):
    name = "scale_collapse"
    kinds = ("scale_collapse",)

    def __init__(self) -> None:
        self.initial_scale: float | None = None
        self.last_scale: float | None = None
        self.skipped = 0
        self.skipped_in_a_row = 0
        self.reported = False
        self._recent: deque[bool] = deque(maxlen=WINDOW)
        self._skipped_steps: deque[int] = deque(maxlen=WINDOW)  # the latest skipped steps: appended only on a skip

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.scale is None or record.partial:
            return
        if self.initial_scale is None:
            self.initial_scale = record.scale
        self.last_scale = record.scale
        self.skipped += record.skipped
        self.skipped_in_a_row = self.skipped_in_a_row + 1 if record.skipped else 0
        self._recent.append(record.skipped)
        if record.skipped:
            self._skipped_steps.append(record.step)
        reason = self._reason(record)
        if reason and not self.reported:
            self.reported = True
            sink.emit("scale_collapse", record.step,
                      f"{reason}; the scale fell from {self.initial_scale:.4g} to {record.scale:.4g} "
                      f"and {self.skipped} steps were skipped",
                      value=record.scale,
                      extra={"initial_scale": self.initial_scale, "skipped_steps": self.skipped,
                             "skipping_since": self._skipping_since(record.step)})

    def _skipping_since(self, step: int) -> int | None:
        """The first step of the skipping that collapsed the scale: of the steps skipped in a
        row up to `step`, else the first skipped within the window before it."""
        if self.skipped_in_a_row:
            return step - self.skipped_in_a_row + 1
        return next((skipped for skipped in self._skipped_steps if skipped > step - WINDOW), None)

    def _reason(self, record: StepRecord) -> str | None:
        if record.scale < SCALE_FLOOR and record.scale < self.initial_scale:
            # a scale set below 1 from the start has not collapsed: what it does to the
            # gradients (flushed to zero in fp16) is grad_underflow's to tell
            return "the loss scale fell below 1"
        if self.skipped_in_a_row >= SKIPS_IN_A_ROW:
            return f"GradScaler skipped {self.skipped_in_a_row} steps in a row"
        if record.step > WINDOW and len(self._recent) == WINDOW and sum(self._recent) > SKIP_SHARE * WINDOW:
            return f"GradScaler skipped {sum(self._recent)} of the last {WINDOW} steps"
        return None
