"""Whether an optimizer's gradients were cleared between two of its steps (the
run-time twin of lint rule TL401).

After each step two gradients of the optimizer are remembered: one near each
end of its parameters, biases and norms first (seldom zero by chance, unlike an
embedding's rows). Each backward pass before its next step looks at them as it
starts. A gradient set to None or replaced (`zero_grad()`, `p.grad = None`) was
cleared. One still there may have been zeroed in place (`zero_grad(set_to_none=False)`,
or `p.grad.data.zero_()`, which no version counter sees), so the largest
magnitude of them is queued, a 0-d tensor on their device, and read with the next
step's single read: a zero means cleared (all of them zero: a clear zeroes every one,
while one gradient may be zero alone, a bias a hinge loss leaves untouched). A pass counts only when it added to
those gradients (their version moved): another model's backward pass (a critic's,
an inner loop's on a copy) does not. When no pass that did started from cleared
gradients, and they were not replaced before the step, the step applied every
earlier gradient again.

Nothing is judged where it cannot be known: before an optimizer's first step,
between two steps without a backward pass (a closure optimizer runs its own), or
after more backward passes than are worth queueing.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch

SAMPLED = 2  # gradients remembered per optimizer
VALUES = 64  # leading values of each looked at
MAX_PASSES = 16  # backward passes between two steps worth a look; beyond, nothing is judged


@dataclass
class _Watch:
    grads: list[tuple[weakref.ref[torch.Tensor], int]]  # (parameter, id of the gradient the step used)
    cleared: bool = False
    passes: int = 0  # backward passes that added to the kept gradients
    largest: list[torch.Tensor] = field(default_factory=list)  # their magnitudes as each pass began: 0 when cleared
    given_up: bool = False
    # the backward pass running: the kept gradients' versions as it began, and their magnitudes
    pending: list[tuple[torch.Tensor, int]] = field(default_factory=list)
    pending_largest: list[torch.Tensor] = field(default_factory=list)


class GradientClearing:
    """The gradients each optimizer stepped with, followed until its next step."""

    def __init__(self) -> None:
        self._watches: weakref.WeakKeyDictionary[Any, _Watch] = weakref.WeakKeyDictionary()

    def after_step(self, optimizer: Any) -> None:
        """`optimizer` stepped: remember gradients it used, one near each end of its
        parameters, biases and norms first (an embedding's rows are zero for the
        tokens a batch lacks, its padding row always)."""
        groups = [group.get("params", ()) for group in getattr(optimizer, "param_groups", ())]
        last = _near_end(p for params in reversed(groups) for p in reversed(params))
        first = _near_end(p for params in groups for p in params)
        chosen = list(dict.fromkeys(p for p in (last, first) if p is not None))  # read per step: a few looks
        if chosen:
            self._watches[optimizer] = _Watch([(weakref.ref(p), id(p.grad)) for p in chosen])
        else:
            self._watches.pop(optimizer, None)

    def before_backward(self) -> None:
        """A backward pass starts: has each optimizer's last gradient been cleared since?"""
        for watch in list(self._watches.values()):
            watch.pending, watch.pending_largest = [], []
            kept = self._kept(watch)
            if kept is None:
                continue
            if watch.passes == MAX_PASSES:
                watch.given_up = True
                continue
            watch.pending = [(grad, grad._version) for grad in kept]
            with torch.no_grad():
                heads = [grad.detach().reshape(-1)[:VALUES] for grad in kept]
                if len({head.device for head in heads}) == 1 and len({head.dtype for head in heads}) == 1:
                    # one value for the pass: zero only when every one of them is (a clear zeroes
                    # them all; a bias the loss leaves untouched, a hinge's, is zero alone)
                    watch.pending_largest = [torch.cat(heads).abs().amax()]
                else:
                    watch.pending_largest = [head.abs().amax() for head in heads]

    def after_backward(self) -> None:
        """The pass counts for an optimizer only if it added to its kept gradients: a
        backward pass of another model (a critic's, an inner loop's on a copy) does not."""
        for watch in list(self._watches.values()):
            if watch.pending and any(grad._version != version for grad, version in watch.pending):
                watch.passes += 1
                watch.largest.extend(watch.pending_largest)
            watch.pending, watch.pending_largest = [], []

    def at_step(self, optimizer: Any) -> tuple[list[torch.Tensor], weakref.ref[torch.Tensor]] | None:
        """`optimizer` is about to step again. When no backward pass since its last step
        that added to its gradients was seen to start from cleared ones, and they were not
        replaced since (`p.grad = g`): the values that tell (the step is on kept gradients
        when all are read as non-zero) and a parameter to name."""
        watch = self._watches.pop(optimizer, None)
        if watch is None or watch.given_up or not watch.passes or self._kept(watch) is None:
            return None
        return watch.largest, watch.grads[0][0]

    @staticmethod
    def _kept(watch: _Watch) -> list[torch.Tensor] | None:
        """The gradients the last step used, when every one is still there; None (and
        the watch cleared) once one was set to None or replaced."""
        if watch.cleared:
            return None
        kept = []
        for ref, grad_id in watch.grads:
            param = ref()
            grad = param.grad if param is not None else None
            if grad is None or id(grad) != grad_id:
                watch.cleared = True
                return None
            kept.append(grad)
        return kept


def _near_end(params: Iterator[Any], looks: int = 8) -> Any:
    """The first parameter with a dense gradient that is 1-D (a bias, a norm) among the
    first `looks` with one, else the first with one; None when none has."""
    fallback = None
    for param in params:
        if _dense_grad(param):
            if param.dim() == 1:
                return param
            fallback = fallback if fallback is not None else param
            looks -= 1
            if not looks:
                break
    return fallback


def _dense_grad(param: Any) -> bool:
    grad = getattr(param, "grad", None)
    return type(grad) is torch.Tensor and not grad.is_sparse and grad.numel() > 0


def kept_gradients(values: list[float]) -> bool:
    """Read back: whether every backward pass started from the step's kept gradients
    (a NaN tells nothing: it is not taken for kept)."""
    return bool(values) and all(value > 0 for value in values)
