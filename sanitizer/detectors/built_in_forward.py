"""Layers a module's forward builds anew at every call (`nn.Linear(d, d)(x)` written
inside `forward`): their weights are a new random draw at each step and no optimizer
holds them, so they never train. Seen by the forward tracer as a module with trainable
parameters called for the first time inside the forward of a module called at an
earlier step; reported when the same line does so at a second step (a head built lazily
at its first call is built once)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink

MAX_EVENTS = 5


class BuiltInForwardDetector(Detector):
    name = "built_in_forward"
    kinds = ("param_not_in_optimizer",)

    def __init__(self) -> None:
        self.reported: list[str] = []  # "<class> at <file:line>" of each layer reported
        self._first_seen: dict[str, int] = {}  # the same, with the step it was first built at

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        for parent_ref, layer, site in record.built_in_forward:
            key = f"{layer} at {site}"
            first = self._first_seen.setdefault(key, record.step)
            if first == record.step or key in self.reported or len(self.reported) >= MAX_EVENTS:
                continue
            self.reported.append(key)
            parent = parent_ref()
            owner = sink.module_name(parent) if parent is not None else None
            whose = f"the forward of {owner} ({type(parent).__name__})" if owner and parent is not None \
                else "a module's forward"
            sink.emit("param_not_in_optimizer", record.step,
                      f"{whose} builds a new {layer} at every call{f' ({site})' if site else ''}: its weights "
                      "are a new random draw at each step and no optimizer holds them, so they never train; "
                      f"build it once in __init__ (self.<name> = nn.{layer}(...)) and call that",
                      module=owner, where=site, extra={"built_in_forward": layer, "first_built_at": first})
