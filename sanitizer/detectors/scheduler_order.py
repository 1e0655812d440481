"""An LR scheduler stepped before its optimizer's first step: the schedule's first
value is skipped and every later one comes a step early (the run-time twin of
lint rule TL404). Metric-driven `ReduceLROnPlateau` has its own `step` and is
not watched: stepping it first skips nothing. Nor does a first `step(epoch)` told
the epoch the schedule stands at (0): the session passes on only a first step
that moved the schedule."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sanitizer.core import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink


class SchedulerOrderDetector(Detector):
    name = "scheduler_before_optimizer"
    kinds = ("scheduler_before_optimizer",)

    def __init__(self) -> None:
        self.reported = False

    def on_scheduler_step(self, scheduler: Any, sink: Sink) -> None:
        optimizer = getattr(scheduler, "optimizer", None)
        if self.reported or optimizer is None or sink.optimizer_stepped(optimizer):
            return
        self.reported = True
        sink.emit("scheduler_before_optimizer", sink.step,
                  f"{type(scheduler).__name__}.step() ran before the first optimizer.step(): the schedule's "
                  f"first learning rate is skipped and every later one comes one step early",
                  where=locations.user_site())
