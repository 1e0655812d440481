"""Layers a module's forward builds anew at every call (`nn.Linear(d, d)(x)` written
inside `forward`): their weights are a new random draw at each step and no optimizer
holds them, so they never train. Seen by the forward tracer as a module with trainable
parameters called for the first time inside the forward of a module called at an
earlier step, one it does not hold (an expert a router picks for the first time, a block
a growing depth enables, were built in __init__) and whose weights no optimizer holds when
the step ends (a task head built for the step and handed to the forward is trained by an
optimizer of its own); reported when the same line does so at a second step (a head built
lazily at its first call is built once; one the training loop builds and hands to the
forward, `model(x, head)`, is not built there). Layers of one class built at one line are
one event: the several built per call (a loop in forward), the blocks of a stack that each
build it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from torch import nn

    from sanitizer.core.probe import BuiltInForward, StepRecord
    from sanitizer.core.sink import Sink

MAX_EVENTS = 5
MAX_NAMED = 8  # modules named in one event (the blocks of a stack that each build the layer)


class BuiltInForwardDetector(Detector):
    name = "built_in_forward"
    kinds = ("param_not_in_optimizer",)

    def __init__(self) -> None:
        self.reported: list[str] = []  # "<class> at <file:line>" of each layer reported
        self._first_seen: dict[str, int] = {}  # the same, with the step it was first built at

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        held: set[int] | None = None  # asked of the optimizers once a step has a layer to check
        untrained: dict[str, list[BuiltInForward]] = {}  # by "<class> at <line>", in the order built
        for built in record.built_in_forward:
            key = f"{built.layer} at {built.site}"
            if key in self.reported:
                continue
            alive = [param for ref in built.params if (param := ref()) is not None]
            if alive:  # none alive: freed with the step's graph, so no optimizer holds them
                held = sink.optimizer_params() if held is None else held
                if any(id(param) in held for param in alive):
                    continue
            untrained.setdefault(key, []).append(built)
        for key, layers in untrained.items():
            if len(self.reported) >= MAX_EVENTS:
                break
            first = self._first_seen.setdefault(key, record.step)
            if first == record.step:
                continue
            self.reported.append(key)
            _report(sink, record.step, layers, first)


def _report(sink: Sink, step: int, layers: list[BuiltInForward], first: int) -> None:
    """One event for the layers of one class built at one line during `step`, in the forward
    of one module or of several alike (each block of a stack)."""
    parents = list({id(parent): parent for built in layers if (parent := built.parent()) is not None}.values())
    names = [sink.module_name(parent) for parent in parents]
    built, several = layers[0], len(parents) > 1
    what = (f"a new {built.layer}" if len(layers) == max(len(parents), 1)
            else f"new {built.layer} layers ({len(layers)} in step {step})")
    its, trains, build = ("its", "it never trains", "build it") if len(layers) == 1 else (
        "their", "they never train", "build each")
    sink.emit("param_not_in_optimizer", step,
              f"{_forwards_of(parents, names)} {'build' if several else 'builds'} {what} at every call"
              f"{f' ({built.site})' if built.site else ''}: {its} weights are a new random draw at each step and "
              f"no optimizer holds them, so {trains}; {build} once in "
              f"__init__ (self.<name> = nn.{built.layer}(...)) and call that",
              module=names[0] if names else None, where=built.site,
              extra={"built_in_forward": built.layer, "layers": len(layers), "first_built_at": first,
                     **({"modules": names[:MAX_NAMED]} if several else {})})


def _forwards_of(parents: list[nn.Module], names: list[str | None]) -> str:
    """`the forward of blocks.0 (Block)`; `the forwards of blocks.0, blocks.1 (Block)`."""
    if len(parents) <= 1:
        return _forward_of(parents[0] if parents else None, names[0] if names else None)
    kinds = sorted({type(parent).__name__ for parent in parents})
    shown = ", ".join(str(name) for name in names[:MAX_NAMED])
    more = f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
    return f"the forwards of {shown}{more} ({', '.join(kinds)})"


def _forward_of(parent: nn.Module | None, name: str | None) -> str:
    """`the forward of blocks.0 (Block)`; of a model's outermost module, named by its
    class, `the forward of Encoder`."""
    if parent is None or name is None:
        return "a module's forward"
    kind = type(parent).__name__
    return f"the forward of {name}" if name == kind else f"the forward of {name} ({kind})"
