"""A buffer that turns NaN or Inf while training (see core/buffers.py): named with the
step that wrote it, found as the next step's forward begins. The forward that then reads
it goes non-finite at a later step, a symptom of this one; a buffer that an earlier
non-finite batch or activation of the same step reached follows that in the diagnosis."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.buffers import NonfiniteBuffer
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink

MAX_EVENTS = 3


class NonfiniteBufferDetector(Detector):
    name = "nonfinite_buffer"
    kinds = ("nonfinite_buffer",)

    def __init__(self) -> None:
        self.reported = 0

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        for found in record.nonfinite_buffers:
            if self.reported >= MAX_EVENTS:
                return
            self.reported += 1
            _report(sink, record.step, found)


def _report(sink: Sink, step: int, found: NonfiniteBuffer) -> None:
    module = sink.module_name(found.owner)
    buffer = f"{module}.{found.name}" if module else found.name
    word = "NaN" if found.value != found.value else "Inf"
    written = found.finite_at
    if written == step - 1:
        when = f"during step {written}"
    else:
        when = f"between the forward of step {written} and that of step {step}"
    sink.emit("nonfinite_buffer", written,
              f"buffer {buffer} is {word} as step {step}'s forward begins, finite as step {written}'s began: "
              f"written {when}, by {module or 'its module'}'s forward after using it (an EMA or a running "
              "statistic updated from a value that overflowed or divided by zero) or by the script's code "
              "(`.copy_()` into it); every forward that reads it from now on is non-finite",
              module=module, where=None, value=found.value, extra={"buffer": buffer, "found_at": step})
