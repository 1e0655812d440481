"""Whether an optimizer's gradients were cleared between two of its steps (the
run-time twin of lint rule TL401).

After each step a few gradients of the optimizer are remembered: the last ones
it holds (an output layer's, seldom zero by chance; embeddings' sparse rows
never). Each backward pass before its next step looks at them as it starts. A
gradient set to None or replaced (`zero_grad()`, `p.grad = None`) was cleared.
One still there may have been zeroed in place (`zero_grad(set_to_none=False)`,
or `p.grad.data.zero_()`, which no version counter sees), so the largest
magnitude of each is queued, a 0-d tensor on its device, and read with the next
step's single read: a zero means cleared. When no backward pass before the
step started from cleared gradients, the step applied every earlier gradient again.

Nothing is judged where it cannot be known: before an optimizer's first step,
between two steps without a backward pass (a closure optimizer runs its own), or
after more backward passes than are worth queueing.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import torch

SAMPLED = 2  # gradients remembered per optimizer
VALUES = 64  # leading values of each looked at
MAX_PASSES = 16  # backward passes between two steps worth a look; beyond, nothing is judged


@dataclass
class _Watch:
    grads: list[tuple[weakref.ref[torch.Tensor], int]]  # (parameter, id of the gradient the step used)
    cleared: bool = False
    passes: int = 0  # backward passes that started from kept gradients, as far as ids tell
    largest: list[torch.Tensor] = field(default_factory=list)  # their magnitudes, per pass: 0 when cleared
    given_up: bool = False


class GradientClearing:
    """The gradients each optimizer stepped with, followed until its next step."""

    def __init__(self) -> None:
        self._watches: weakref.WeakKeyDictionary[Any, _Watch] = weakref.WeakKeyDictionary()

    def after_step(self, optimizer: Any) -> None:
        """`optimizer` stepped: remember the gradients it used."""
        grads = []
        for group in reversed(getattr(optimizer, "param_groups", ())):
            for param in reversed(group.get("params", ())):
                grad = getattr(param, "grad", None)
                if type(grad) is torch.Tensor and not grad.is_sparse and grad.numel():
                    grads.append((weakref.ref(param), id(grad)))
                    if len(grads) == SAMPLED:
                        break
            if len(grads) == SAMPLED:
                break
        if grads:
            self._watches[optimizer] = _Watch(grads)
        else:
            self._watches.pop(optimizer, None)

    def before_backward(self) -> None:
        """A backward pass starts: has each optimizer's last gradient been cleared since?"""
        for watch in list(self._watches.values()):
            if watch.cleared or watch.given_up:
                continue
            kept = []
            for ref, grad_id in watch.grads:
                param = ref()
                grad = param.grad if param is not None else None
                if grad is None or id(grad) != grad_id:
                    watch.cleared = True
                    break
                kept.append(grad)
            if watch.cleared:
                continue
            if watch.passes == MAX_PASSES:
                watch.given_up = True
                continue
            watch.passes += 1
            with torch.no_grad():
                watch.largest.extend(grad.detach().reshape(-1)[:VALUES].abs().amax() for grad in kept)

    def at_step(self, optimizer: Any) -> tuple[list[torch.Tensor], weakref.ref[torch.Tensor]] | None:
        """`optimizer` is about to step again. When no backward pass since its last step
        was seen to start from cleared gradients: the values that tell (the step is on
        kept gradients when all are read as non-zero) and a parameter to name."""
        watch = self._watches.pop(optimizer, None)
        if watch is None or watch.cleared or watch.given_up or not watch.passes:
            return None
        return watch.largest, watch.grads[0][0]


def kept_gradients(values: list[float]) -> bool:
    """Read back: whether every backward pass started from the step's kept gradients
    (a NaN tells nothing: it is not taken for kept)."""
    return bool(values) and all(value > 0 for value in values)
