"""Layers a module's forward builds anew at every call (`nn.Linear(d, d)(x)` written
inside `forward`): their weights are a new random draw at each step and no optimizer
holds them, so they never train. Seen by the forward tracer as a module with trainable
parameters called for the first time inside the forward of a module called at an
earlier step, one it does not hold (an expert a router picks for the first time, a block
a growing depth enables, were built in __init__) and whose weights no optimizer holds when
the step ends (a task head built for the step and handed to the forward is trained by an
optimizer of its own); reported when the same line does so at a second step (a head built
lazily at its first call is built once)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from torch import nn

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
        held: set[int] | None = None  # asked of the optimizers once a step has a layer to check
        for built in record.built_in_forward:
            key = f"{built.layer} at {built.site}"
            if key in self.reported or len(self.reported) >= MAX_EVENTS:
                continue
            alive = [param for ref in built.params if (param := ref()) is not None]
            if alive:  # none alive: freed with the step's graph, so no optimizer holds them
                held = sink.optimizer_params() if held is None else held
                if any(id(param) in held for param in alive):
                    continue
            first = self._first_seen.setdefault(key, record.step)
            if first == record.step:
                continue
            self.reported.append(key)
            parent = built.parent()
            owner = sink.module_name(parent) if parent is not None else None
            sink.emit("param_not_in_optimizer", record.step,
                      f"{_forward_of(parent, owner)} builds a new {built.layer} at every call"
                      f"{f' ({built.site})' if built.site else ''}: its weights are a new random draw at each "
                      "step and no optimizer holds them, so they never train; build it once in __init__ "
                      f"(self.<name> = nn.{built.layer}(...)) and call that",
                      module=owner, where=built.site, extra={"built_in_forward": built.layer, "first_built_at": first})


def _forward_of(parent: nn.Module | None, name: str | None) -> str:
    """`the forward of blocks.0 (Block)`; of a model's outermost module, named by its
    class, `the forward of Encoder`."""
    if parent is None or name is None:
        return "a module's forward"
    kind = type(parent).__name__
    return f"the forward of {name}" if name == kind else f"the forward of {name} ({kind})"
