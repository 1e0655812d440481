"""A buffer that turns NaN or Inf while training (see core/buffers.py), found as the next
step's forward begins, is named with the step that wrote it only when a non-finite output
or loss follows it: then it is the root, and the forwards that read it its symptoms. A
buffer NaN or Inf by design after the first step (a causal mask rebuilt with -inf at each
forward, a NaN placeholder, a float16 sentinel) leaves every output finite: it is not
reported. A buffer that an earlier non-finite batch or activation of the same step reached
follows that in the diagnosis."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from sanitizer.core.probe import INPUT_SLOT
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.buffers import NonfiniteBuffer
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink

MAX_EVENTS = 3
# steps, the one that found a buffer non-finite included, within which a non-finite output
# or loss is taken for its consequence; past them the buffer is dropped, unreported
PENDING_STEPS = 3


class _Pending(NamedTuple):
    found_at: int  # the step whose forward began with the buffer non-finite
    buffer: NonfiniteBuffer


class NonfiniteBufferDetector(Detector):
    name = "nonfinite_buffer"
    kinds = ("nonfinite_buffer",)

    def __init__(self) -> None:
        self.reported = 0
        self._pending: list[_Pending] = []

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        pending = [kept for kept in self._pending if record.step - kept.found_at < PENDING_STEPS]
        self._pending = pending + [_Pending(record.step, found) for found in record.nonfinite_buffers]
        if not self._pending:
            return
        seen = _nonfinite_downstream(record)
        if seen is None:
            return
        pending, self._pending = self._pending, []
        if seen == "batch":  # a non-finite batch explains what follows, not the buffer
            return
        for kept in pending:
            if self.reported >= MAX_EVENTS:
                return
            self.reported += 1
            _report(sink, kept.found_at, kept.buffer, record.step, seen)


def _nonfinite_downstream(record: StepRecord) -> str | None:
    """What the step's forward made non-finite: `batch` when its batch already was, else
    `outputs` (a module's, additive attention masks aside), else `loss`; None when all is finite."""
    if any(slot == INPUT_SLOT and not math.isfinite(mag) for slot, mag in record.trail):
        return "batch"
    if any(slot != INPUT_SLOT and not math.isfinite(mag) and index not in record.masks
           for index, (slot, mag) in enumerate(record.trail)):
        return "outputs"
    return "loss" if any(not math.isfinite(loss) for loss in record.losses) else None


def _report(sink: Sink, step: int, found: NonfiniteBuffer, seen_at: int, seen: str) -> None:
    module = sink.module_name(found.owner)
    buffer = f"{module}.{found.name}" if module else found.name
    word = "NaN" if found.value != found.value else "Inf"
    written = found.finite_at
    if written == step - 1:
        when = f"during step {written}"
    else:
        when = f"between the forward of step {written} and that of step {step}"
    what = "non-finite outputs" if seen == "outputs" else "a non-finite loss"
    after = f"that forward gave {what}" if seen_at == step else f"step {seen_at}'s forward gave {what}"
    sink.emit("nonfinite_buffer", written,
              f"buffer {buffer} is {word} as step {step}'s forward begins, finite as step {written}'s began: "
              f"written {when}, by {module or 'its module'}'s forward after using it (an EMA or a running "
              "statistic updated from a value that overflowed or divided by zero) or by the script's code "
              f"(`.copy_()` into it); {after}",
              module=module, where=None, value=found.value,
              extra={"buffer": buffer, "found_at": step, "nonfinite_at": seen_at})
