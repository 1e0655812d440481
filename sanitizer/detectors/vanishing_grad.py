"""The global gradient norm collapsed while the loss did not: training has stalled."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.stats import median

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

EARLY_STEPS = 10  # the reference: median norm and loss of the first steps
COLLAPSE = 1e-3  # norm below this share of the reference...
TINY_NORM = 1e-8  # ...or below this absolute value
STALLED = 0.1  # while the loss has not fallen 10-fold (a converged model loses gradient and loss together)
STEPS_IN_A_ROW = 5


class VanishingGradDetector(Detector):
    name = "vanishing_grad"
    kinds = ("vanishing_grad",)

    def __init__(self) -> None:
        self.early_norms: list[float] = []
        self.early_losses: list[float] = []
        self.collapsed_in_a_row = 0
        self.reported = False

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        norm, loss = record.grad_norm, record.loss
        if norm is None or record.skipped or record.partial or not math.isfinite(norm):
            return
        if len(self.early_norms) < EARLY_STEPS:
            self.early_norms.append(norm)
            if loss is not None and math.isfinite(loss):
                self.early_losses.append(loss)
        reference = median(self.early_norms)
        collapsed = norm == 0.0 or norm < TINY_NORM or norm < COLLAPSE * reference
        self.collapsed_in_a_row = self.collapsed_in_a_row + 1 if collapsed and self._stalled(loss) else 0
        if self.collapsed_in_a_row >= STEPS_IN_A_ROW and not self.reported:
            self.reported = True
            sink.emit("vanishing_grad", record.step,
                      f"global gradient norm is {norm:.3g} (early steps: {reference:.3g}) "
                      f"for {self.collapsed_in_a_row} steps while the loss stays at {loss:.4g}"
                      if loss is not None else
                      f"global gradient norm is {norm:.3g} (early steps: {reference:.3g})",
                      value=norm, extra={"baseline": reference})

    def _stalled(self, loss: float | None) -> bool:
        if loss is None or not self.early_losses:
            return True
        early = median(self.early_losses)
        return abs(loss) > 1e-6 and abs(loss) > STALLED * abs(early)
