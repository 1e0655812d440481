"""Over- and underfitting at the end of the run, by the chapter's decision table (2.1).

| train loss | val loss | gap   | diagnosis                   |
|------------|----------|-------|-----------------------------|
| low        | high     | large | overfitting                 |
| high       | high     | small | underfitting                |
| low        | low      | small | healthy                     |
| high       | high     | large | data or code bug (mismatch) |
| fell       | worse than untrained, always | large | data or code bug (mismatch) |

Train losses are those `.backward()` saw; validation losses are what functional
losses returned while the model was in eval mode or gradients were off. Only
like is compared with like: the training loss must be what one functional loss
returned (not a sum of terms, not divided for accumulation) on almost every
step, and only validation losses of that same kind count (`reduction="sum"`
turned into a per-element mean, see core/loss_calls.py). "Low" means the loss
fell to at most half its starting level, "high" that it fell by less than a
tenth. Without comparable validation losses the table does not apply and
nothing is concluded (a toy run on random targets is not underfitting).
"""
from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.stats import median

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

MIN_STEPS = 20
MIN_STEPS_UNDERFIT = 50
LOW = 0.5  # fell by at least half: train loss is "low"
HIGH = 0.1  # fell by less than this: train loss is "high" (not going down)
FLAT = 0.01  # fell by less than this: it does not go down at all (else it falls, slowly)
GAP = 1.0  # validation above train by this share of train...
GAP_OF_START = 0.2  # ...and by this share of the starting loss: the gap is "large"
STILL_IMPROVING = 0.95  # last validation below this share of the best earlier one
NEVER_NEAR = 2.0  # every validation loss above this many times the starting train loss: no fit, a mismatch
UNTRAINED = 3  # first training losses: the untrained model's
SAME_KIND = 0.95  # share of the steps whose training loss must be of one kind
REPORTED_VALS = 200  # validation losses written into the report (the latest)


class FittingDetector(Detector):
    name = "fitting"
    kinds = ("overfitting", "underfitting", "train_val_mismatch")
    judges_loss_level = True

    def __init__(self) -> None:
        self.train_losses: list[float] = []
        self.verdict: str | None = None
        self._train_kinds: Counter[str | None] = Counter()
        self._vals: list[tuple[int, float, str]] = []

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.eval_loss is not None and math.isfinite(record.eval_loss) and record.eval_kind is not None:
            self._vals.append((record.step, record.eval_loss, record.eval_kind))
        if not record.partial and record.loss is not None and math.isfinite(record.loss):
            self.train_losses.append(record.loss)
            kinds = set(record.loss_kinds)
            self._train_kinds[kinds.pop() if len(kinds) == 1 else None] += 1

    @property
    def loss_kind(self) -> str | None:
        """The kind of the training loss, when (nearly) every step's loss was of that kind."""
        if not self._train_kinds:
            return None
        kind, count = self._train_kinds.most_common(1)[0]
        return kind if count >= SAME_KIND * sum(self._train_kinds.values()) else None

    @property
    def val_losses(self) -> list[tuple[int, float]]:
        """The validation losses comparable with the training loss."""
        kind = self.loss_kind
        return [(step, value) for step, value, of in self._vals if of == kind] if kind is not None else []

    def state(self) -> dict[str, object]:
        return {"train_steps": len(self.train_losses), "val_losses": self.val_losses[-REPORTED_VALS:],
                "loss_kind": self.loss_kind, "verdict": self.verdict}

    def on_end(self, sink: Sink) -> None:
        train = self.train_losses
        if len(train) < MIN_STEPS:
            return
        window = max(3, len(train) // 10)
        start, end = median(train[:window]), median(train[-window:])
        scale = max(abs(start), 1e-8)
        fell = (start - end) / scale
        train_low, train_high = fell >= LOW, fell < HIGH
        vals = [value for _, value in self.val_losses]
        gap_large = bool(vals) and vals[-1] - end > max(GAP * abs(end), GAP_OF_START * scale)
        stalled = len(vals) < 2 or vals[-1] >= STILL_IMPROVING * min(vals[:-1])
        numbers = {"train_start": start, "train_end": end, "val_end": vals[-1] if vals else None}
        figures = f"train loss {start:.4g} -> {end:.4g}" + (f", validation loss {vals[-1]:.4g}" if vals else "")
        # validation never came near training: even its best is far worse than the untrained
        # model's loss, while training learned; no amount of fitting explains that
        # the untrained model's loss: the first few, not the first tenth of the run (a small
        # training set is fitted within it, and its median is far below where training began)
        initial = median(train[:UNTRAINED])
        never_near = (bool(vals) and initial > 0 and min(vals) > NEVER_NEAR * initial and gap_large
                      and not train_high)
        if never_near:
            self._conclude(sink, "train_val_mismatch",
                           f"{figures}: even the best validation loss ({min(vals):.4g}) is "
                           f"{min(vals) / initial:.3g} times the untrained model's loss ({initial:.4g}): "
                           "evaluation differs from training", numbers)
        elif train_low and gap_large and stalled:
            self._conclude(sink, "overfitting", f"{figures}: train is low, validation high and not improving",
                           numbers)
        elif train_high and gap_large:
            self._conclude(sink, "train_val_mismatch", f"{figures}: both high and far apart", numbers)
        elif train_high and vals and len(train) >= MIN_STEPS_UNDERFIT:
            trend = "does not go down" if fell < FLAT else f"fell only {fell:.0%} over the run"
            self._conclude(sink, "underfitting", f"{figures}: train loss {trend} and validation is as high", numbers)

    def _conclude(self, sink: Sink, kind: str, message: str, numbers: dict[str, float | None]) -> None:
        self.verdict = kind
        sink.emit(kind, None, message, value=numbers["train_end"], extra=numbers)
