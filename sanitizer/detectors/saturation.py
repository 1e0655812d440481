"""The loss jumped to a constant plateau with every gradient exactly zero: the model's
outputs saturated.

A discriminator driven by a learning rate far too high pushes its logits past the
range of its sigmoid: its outputs are exactly 0 or 1, BCELoss clamps each log at
-100, so its loss sits at exactly 50 (or 100) step after step, and the sigmoid's
backward makes every gradient exactly zero, the generator's too. Zero gradients of
parameters the forward uses, and a global norm collapsed, are what the saturation
looks like: the diagnosis folds them under this event (kind `divergence`, rule
`saturated`), reported once, at the first step of the plateau.

Judged per optimizer (a GAN's take turns): SATURATED_STEPS steps in a row of the
same optimizer whose loss is bit for bit the same, above zero and JUMPED times its
first loss or more, and whose gradients were all exactly zero. A loss exactly 0
with zero gradients is a fit (a hinge with every margin met), and a loss that
trained down to a constant is no jump: neither is judged. O(1) per step, but at a
loss JUMPED times its first or more, where the gradient norms are looked at.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector, optimizer_words
from sanitizer.report.formatting import format_number

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

SATURATED_STEPS = 10  # steps in a row of one optimizer at one loss with zero gradients
JUMPED = 2.0  # the plateau this many times the optimizer's first loss or more


@dataclass
class _Plateau:
    """One optimizer's first loss and its current run of steps at one loss, gradients zero."""

    first: float
    loss: float | None = None
    since: int | None = None  # the step the run began at
    steps: int = 0
    owner: str = ""  # the optimizer, in words (`optimizer_words`), read when the run began


class SaturationDetector(Detector):
    name = "saturation"
    kinds = ("divergence",)
    judges_loss_level = True

    def __init__(self) -> None:
        self.reported_step: int | None = None
        self._plateaus: dict[int | None, _Plateau] = {}

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        loss = record.loss
        if self.reported_step is not None or record.partial or record.skipped or loss is None:
            return
        plateau = self._plateaus.setdefault(record.optimizer_id, _Plateau(first=loss))
        # the loss first: the gradient norms are looked at only on a loss jumped high
        if loss <= 0 or loss < JUMPED * plateau.first or not record.grad_norms or any(record.grad_norms):
            plateau.loss, plateau.since, plateau.steps = None, None, 0
            return
        if loss != plateau.loss:
            plateau.loss, plateau.since, plateau.steps = loss, record.step, 0
            plateau.owner = optimizer_words(record, sink)
        plateau.steps += 1
        if plateau.steps >= SATURATED_STEPS:
            self._report(record, plateau, sink)

    def _report(self, record: StepRecord, plateau: _Plateau, sink: Sink) -> None:
        """Reported once, at the first step of the earliest plateau still standing: the
        optimizers of a GAN saturate together, and their zero gradients are one problem."""
        standing = sorted((other for other in self._plateaus.values() if other.since is not None),
                          key=lambda other: other.since or 0)
        since = standing[0].since
        self.reported_step = since
        stays = "; ".join(f"{_loss_of(other, len(self._plateaus))} jumped from {format_number(other.first)} to exactly "
                          f"{format_number(other.loss or 0.0)} at step {other.since} and stays there"
                          for other in standing)
        sink.emit("divergence", since,
                  f"{stays}, with every gradient exactly zero: the outputs saturated (a sigmoid or a clamp at "
                  "its limit; BCELoss clamps each log at -100), so nothing trains any more: training diverged",
                  value=plateau.loss, where=next((site for site in record.loss_sites if site), None),
                  extra={"baseline": plateau.first, "rule": "saturated"})


def _loss_of(plateau: _Plateau, optimizers: int) -> str:
    """Whose loss `plateau` is, in words: the optimizer's, where several take turns."""
    return f"the loss of {plateau.owner}" if optimizers > 1 else "the loss"
