"""The global gradient norm collapsed while the loss did not: training has stalled.

Each optimizer is judged against its own early steps: when several take turns
(a GAN), their norms sit at different levels, and the generator's gradient
vanishing behind a discriminator that wins is the collapse to catch.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector, optimizer_words
from sanitizer.detectors.stats import median

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

EARLY_STEPS = 10  # the reference: median norm and loss of the first steps
COLLAPSE = 1e-3  # norm below this share of the reference...
TINY_NORM = 1e-8  # ...or below this absolute value
STALLED = 0.1  # while the loss has not fallen 10-fold (a converged model loses gradient and loss together)
# A loss below this share of its early level, reached while the gradient shrank step by step
# (never divided by SUDDEN in one step), is a model that learned and sits at its optimum
# (full-batch least squares on noisy targets): its gradient is ~0, and nothing stalled.
LEARNED = 0.5
SUDDEN = 10.0
STEPS_IN_A_ROW = 5
# A loss that fell below its first level by this share at least, and settled there smoothly
# (the gradient shrank step by step, the loss did not rise lately, it sits at the
# lowest level it reached, and its change per step went to ~0 with the gradient), converged
# to a plateau: full-batch least squares whose noise floor is above half its early loss. A
# loss that fell at each of the early steps needs no such share: a fit started near its
# optimum (warm-started from an earlier solution) falls by a few percent, step by step.
SETTLED_DROP = 0.1
SETTLED_CHANGE = 1e-4  # a change per step below this share of the early loss is ~0
FLOAT_NOISE = 1e-6  # a change of the loss below this share of it may be rounding alone
SMOOTH_STEPS = 20  # steps without a rise of the loss, after the early ones, that make its fall smooth


class _Track:
    """One optimizer's early steps and its current run of collapsed steps."""

    def __init__(self) -> None:
        self.early_norms: list[float] = []
        self.early_losses: list[float] = []
        self.collapsed_in_a_row = 0
        self.collapsed_since: int | None = None  # the step the current run of collapsed steps began at
        self.previous_norm: float | None = None
        self.sudden = False  # the current run of collapsed steps began with a sudden drop
        self.previous_loss: float | None = None
        self.lowest_loss: float | None = None  # the lowest loss before this step
        self.loss_change: float | None = None  # this step's loss less the previous step's
        self.rose_at: int = 0  # the step count at which the loss last rose
        self.steps = 0

    def stalled(self, loss: float | None) -> bool:
        if loss is None or not self.early_losses:
            return True
        early = median(self.early_losses)
        if abs(loss) <= 1e-6 or abs(loss) <= STALLED * abs(early):
            return False
        if self.sudden:
            return True
        return abs(loss) > LEARNED * abs(early) and not self._settled(loss, early)

    def _settled(self, loss: float, early: float) -> bool:
        """The loss fell from its early level and settled smoothly at the lowest level it
        reached, its change per step gone to ~0 with the gradient: converged, not stalled."""
        scale, start = abs(early), self.early_losses[0]
        # from the first loss: a loss that falls fast sits near its plateau within the early steps
        drop = SETTLED_DROP if not self._fell_each_early_step() else SETTLED_CHANGE
        return (loss <= start - drop * abs(start) and self.loss_change is not None
                and abs(self.loss_change) <= SETTLED_CHANGE * scale
                and self.lowest_loss is not None and loss <= self.lowest_loss + SETTLED_CHANGE * scale
                and (self.rose_at <= len(self.early_losses) or self.steps - self.rose_at >= SMOOTH_STEPS))

    def _fell_each_early_step(self) -> bool:
        """Whether the loss fell at every one of the early steps, each time by more than
        float noise: gradient descent on the same batch each step, not a loss that sits
        flat (a saturated model) or wanders from batch to batch."""
        losses = self.early_losses
        return len(losses) == EARLY_STEPS and all(
            later < earlier - FLOAT_NOISE * abs(earlier) for earlier, later in zip(losses, losses[1:]))

    def follow(self, norm: float, loss: float | None, collapsed: bool) -> None:
        """Whether the gradient fell into its collapse at once (a saturated layer) or step by
        step; how the loss moved."""
        self.steps += 1
        if collapsed and not self.collapsed_in_a_row:
            self.sudden = self.previous_norm is not None and norm * SUDDEN < self.previous_norm
        self.previous_norm = norm
        if loss is None or not math.isfinite(loss):
            self.loss_change = None
            return
        previous = self.previous_loss
        self.loss_change = loss - previous if previous is not None else None
        if previous is not None and loss > previous + SETTLED_CHANGE * abs(previous):
            self.rose_at = self.steps  # a loss that rises has not settled smoothly
        if previous is not None:
            self.lowest_loss = previous if self.lowest_loss is None else min(self.lowest_loss, previous)
        self.previous_loss = loss


class VanishingGradDetector(Detector):
    name = "vanishing_grad"
    kinds = ("vanishing_grad",)
    judges_loss_level = True

    def __init__(self) -> None:
        self.reported = False
        self._tracks: dict[int | None, _Track] = {}  # per optimizer (None: steps without one)

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        norm, loss = record.grad_norm, record.loss
        if norm is None or record.skipped or record.partial or not math.isfinite(norm):
            return
        track = self._tracks.get(record.optimizer_id)
        if track is None:
            track = self._tracks[record.optimizer_id] = _Track()
        if len(track.early_norms) < EARLY_STEPS:
            track.early_norms.append(norm)
            if loss is not None and math.isfinite(loss):
                track.early_losses.append(loss)
        reference = median(track.early_norms)
        collapsed = norm == 0.0 or norm < TINY_NORM or norm < COLLAPSE * reference
        track.follow(norm, loss, collapsed)
        track.collapsed_in_a_row = track.collapsed_in_a_row + 1 if collapsed and track.stalled(loss) else 0
        if track.collapsed_in_a_row == 1:
            track.collapsed_since = record.step
        if track.collapsed_in_a_row >= STEPS_IN_A_ROW and not self.reported:
            self.reported = True
            whose = f" of {optimizer_words(record, sink)}" if len(self._tracks) > 1 else ""
            early = _before_the_collapse(track, reference, norm)
            sink.emit("vanishing_grad", record.step,
                      f"global gradient norm{whose} is {norm:.3g}{early} "
                      f"for {track.collapsed_in_a_row} steps in a row while the loss stays at {loss:.4g}"
                      if loss is not None else
                      f"global gradient norm{whose} is {norm:.3g}{early}",
                      value=norm, extra={"baseline": reference})


def _before_the_collapse(track: _Track, reference: float, norm: float) -> str:
    """What the collapsed norm is compared with: the early steps' median; when that is
    as small (most of the early steps collapsed too), the step the collapse began at and
    the largest norm before it (a first update that blew the weights out and saturated
    the model), or nothing when the norm was never larger."""
    if reference > max(norm, TINY_NORM):
        return f" (early steps: {reference:.3g})"
    before = max(track.early_norms[:track.steps - track.collapsed_in_a_row], default=0.0)  # this optimizer's
    if before > max(norm, TINY_NORM):
        return f" since step {track.collapsed_since} (largest before it: {before:.3g})"
    return " since its first steps"
