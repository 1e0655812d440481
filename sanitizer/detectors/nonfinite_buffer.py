"""A buffer that turns NaN or Inf while training (see core/buffers.py), found as a step's
forward begins, is named with the step that last found it finite only when that forward, the
first to read it since, gives non-finite module outputs: then it is the root, and what that
forward made non-finite its symptoms. One written during a step whose batch, outputs, loss
or gradients were already non-finite took them in (an EMA of NaN activations): it is still
named, as what keeps the next forwards non-finite, but said to be their consequence, and the
diagnosis folds it under them. A buffer NaN or Inf by design after the first step (a
causal mask rebuilt with -inf at each forward, a NaN placeholder, a float16 sentinel) leaves
that forward's outputs finite: it is dropped, whatever happens later (a blow-up steps later
has its own cause), and is not measured again. One reported is measured until it is finite
again (the script reset it): its next breakage is reported too. A NaN made by the loss code alone (finite outputs) is not the buffer's
either, nor are outputs a non-finite batch explains. In the diagnosis a buffer follows what
its step made non-finite before it was written (a batch, an activation, a weight the update broke)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sanitizer.core.probe import INPUT_SLOT
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.buffers import NonfiniteBuffer
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink

MAX_EVENTS = 3
KEPT_STEPS = 8  # a buffer found later than this after the step that wrote it is rare: not told a consequence


class NonfiniteBufferDetector(Detector):
    name = "nonfinite_buffer"
    kinds = ("nonfinite_buffer",)

    def __init__(self) -> None:
        self.reported = 0
        # what was non-finite in the latest steps (a buffer is found the step after it was written)
        self.nonfinite_in: dict[int, str] = {}

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if self.reported < MAX_EVENTS:
            self._note_nonfinite(record)
        if not record.nonfinite_buffers or not _poisoned_outputs(record):
            return
        for found in record.nonfinite_buffers:
            if self.reported >= MAX_EVENTS:
                return
            self.reported += 1
            _report(sink, record.step, found, self.nonfinite_in.get(found.finite_at))
            found.watch_again()  # once finite again (reset by the script), a new breakage is found too

    def _note_nonfinite(self, record: StepRecord) -> None:
        if self.nonfinite_in:
            self.nonfinite_in = {step: what for step, what in self.nonfinite_in.items()
                                 if step >= record.step - KEPT_STEPS}
        what = _first_nonfinite(record)
        if what is not None:
            self.nonfinite_in.setdefault(record.step, what)


def _poisoned_outputs(record: StepRecord) -> bool:
    """Whether the step's forward gave non-finite module outputs (additive attention masks
    aside) from a finite batch: a non-finite batch explains them, not the buffer."""
    trail = record.trail
    if any(slot == INPUT_SLOT and not math.isfinite(mag) for slot, mag in trail):
        return False
    return any(slot != INPUT_SLOT and not math.isfinite(mag) and index not in record.masks
               for index, (slot, mag) in enumerate(trail))


def _first_nonfinite(record: StepRecord) -> str | None:
    """What of the step was non-finite first: its batch, a module's output, its loss, its gradients."""
    trail = record.trail
    if any(slot == INPUT_SLOT and not math.isfinite(mag) for slot, mag in trail):
        return "batch"
    if any(not math.isfinite(mag) and index not in record.masks for index, (_, mag) in enumerate(trail)):
        return "module outputs"
    if not all(map(math.isfinite, record.losses)):
        return "loss"
    if not all(map(math.isfinite, record.grad_norms)):
        return "gradients"
    return None


def _report(sink: Sink, step: int, found: NonfiniteBuffer, taken_in: str | None) -> None:
    """`taken_in`: what of the step that wrote it was non-finite already."""
    module = sink.module_name(found.owner)
    buffer = f"{module}.{found.name}" if module else found.name
    word = "NaN" if found.value != found.value else "Inf"
    written = found.finite_at
    if taken_in is not None:
        were = "was" if taken_in in ("batch", "loss") else "were"
        by = (f"a step whose {taken_in} {were} non-finite already: {module or 'its module'}'s forward or the "
              "script's code may have taken that in (an EMA, a running statistic, a copy)")
    else:
        by = (f"by {module or 'its module'}'s forward, an EMA or a running statistic updated from a value that "
              "overflowed or divided by zero, or by the script's code, a `.copy_()` into it")
    sink.emit("nonfinite_buffer", written,
              f"buffer {buffer} is {word} as step {step}'s forward begins, finite as step {written}'s began: "
              f"written after step {written}'s forward began and before step {step}'s ({by}); that forward gave "
              "non-finite outputs",
              module=module, where=None, value=found.value,
              extra={"buffer": buffer, "found_at": step, "nonfinite_at": step,
                     **({"taken_in": taken_in} if taken_in is not None else {})})
