"""Whether an optimizer's gradients were cleared between two of its steps (the
run-time twin of lint rule TL401).

After each step a few gradients of the optimizer are remembered: one near each
end of its parameters, biases and norms first (seldom zero by chance, unlike an
embedding's rows), and its very first and very last parameter, whatever their
shape (a CLIP temperature or a loss module's weights, put into the optimizer
beside the model's and left out of `model.zero_grad()`). Each is followed on its
own: each backward pass before the next step looks at them as it starts. A
gradient set to None or replaced (`zero_grad()`, `p.grad = None`) was cleared.
One still there may have been zeroed in place (`zero_grad(set_to_none=False)`,
or `p.grad.data.zero_()`, which no version counter sees), so its largest
magnitude is queued, a 0-d tensor on its device, and read with the next step's
single read: a zero means cleared (a kept gradient zero by chance, a bias a hinge
loss leaves untouched, is taken for cleared: nothing is reported of it), unless the
values looked at were already zero in the gradient the step used (an embedding's
padding row, a token the data never holds): such a gradient tells nothing. A pass
counts only when it added to that gradient (its version moved): another model's
backward pass (a critic's, an inner loop's on a copy) does not. When no pass that
did started from a cleared gradient, and it was not replaced before the step,
the step applied every earlier gradient of it again.

Nothing is judged where it cannot be known: before an optimizer's first step,
between two steps without a backward pass (a closure optimizer runs its own), or
after more backward passes than are worth queueing.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch

VALUES = 64  # leading values of each gradient looked at
MAX_PASSES = 16  # backward passes between two steps worth a look; beyond, nothing is judged


@dataclass
class _Followed:
    """One gradient a step used, followed until the optimizer's next step."""
    param: weakref.ref[torch.Tensor]
    grad_id: int  # id of the gradient the step used
    used: torch.Tensor | None = None  # the largest magnitude of its values looked at, as the step used them
    cleared: bool = False  # set to None or replaced since
    passes: int = 0  # backward passes that added to it
    largest: list[torch.Tensor] = field(default_factory=list)  # its magnitude as each began: 0 when cleared
    # the backward pass running: the gradient's version as it began, and its magnitude
    pending: tuple[torch.Tensor, int] | None = None
    pending_largest: torch.Tensor | None = None

    def kept(self) -> torch.Tensor | None:
        """The gradient the step used, while it is still there (else it was cleared)."""
        if self.cleared:
            return None
        param = self.param()
        grad = param.grad if param is not None else None
        if grad is None or id(grad) != self.grad_id:
            self.cleared = True
            return None
        return grad


@dataclass
class _Watch:
    followed: list[_Followed]
    given_up: bool = False


class GradientClearing:
    """The gradients each optimizer stepped with, followed until its next step."""

    def __init__(self) -> None:
        self._watches: weakref.WeakKeyDictionary[Any, _Watch] = weakref.WeakKeyDictionary()

    def after_step(self, optimizer: Any) -> None:
        """`optimizer` stepped: remember gradients it used, one near each end of its
        parameters, biases and norms first (an embedding's rows are zero for the
        tokens a batch lacks, its padding row always), and the very first and last."""
        groups = [group.get("params", ()) for group in getattr(optimizer, "param_groups", ())]
        ends = [_near_end(p for params in reversed(groups) for p in reversed(params)),
                _near_end(p for params in groups for p in params),
                _near_end((p for params in reversed(groups) for p in reversed(params)), looks=1),
                _near_end((p for params in groups for p in params), looks=1)]
        chosen = list(dict.fromkeys(p for p in ends if p is not None))  # read per step: a few looks
        if chosen:
            followed = [_Followed(weakref.ref(p), id(p.grad)) for p in chosen]
            for one, magnitude in zip(followed, _largest([p.grad for p in chosen])):
                one.used = magnitude
            self._watches[optimizer] = _Watch(followed)
        else:
            self._watches.pop(optimizer, None)

    def before_backward(self) -> None:
        """A backward pass starts: has each optimizer's last gradient been cleared since?"""
        for watch in list(self._watches.values()):
            if watch.given_up:
                continue
            kept = []
            for followed in watch.followed:
                followed.pending = followed.pending_largest = None
                grad = followed.kept()
                if grad is not None:
                    kept.append((followed, grad))
            if not kept:
                continue
            if max(followed.passes for followed, _ in kept) == MAX_PASSES:
                watch.given_up = True
                continue
            largest = _largest([grad for _, grad in kept])
            for (followed, grad), magnitude in zip(kept, largest):
                followed.pending, followed.pending_largest = (grad, grad._version), magnitude

    def after_backward(self) -> None:
        """The pass counts for a gradient only if it added to it: a backward pass of
        another model (a critic's, an inner loop's on a copy) does not."""
        for watch in list(self._watches.values()):
            for followed in watch.followed:
                if followed.pending is not None and followed.pending[0]._version != followed.pending[1]:
                    followed.passes += 1
                    followed.largest.append(followed.pending_largest)
                followed.pending = followed.pending_largest = None

    def at_step(self, optimizer: Any) -> tuple[list[tuple[list[torch.Tensor], weakref.ref[torch.Tensor]]], bool] | None:
        """`optimizer` is about to step again. For each gradient followed that backward
        passes since its last step added to, none seen to start from it cleared, and
        not replaced since (`p.grad = g`): the values that tell (the step is on kept
        gradients when all are read as non-zero) and its parameter, to name; and
        whether another gradient followed was replaced (a clear that missed some)."""
        watch = self._watches.pop(optimizer, None)
        if watch is None or watch.given_up:
            return None
        kept = [([followed.used, *followed.largest], followed.param) for followed in watch.followed
                if followed.passes and followed.kept() is not None and followed.used is not None]
        return (kept, any(followed.cleared for followed in watch.followed)) if kept else None


def _largest(grads: list[torch.Tensor]) -> list[torch.Tensor]:
    """The largest magnitude among the first VALUES values of each gradient, 0-d
    tensors on their devices, read later with a step's single read."""
    with torch.no_grad():
        heads = [grad.detach().reshape(-1)[:VALUES] for grad in grads]
        try:
            return list(torch._foreach_norm(heads, float("inf")))  # one kernel for them all
        except (RuntimeError, TypeError, NotImplementedError):  # a tensor subclass's gradients
            return [head.abs().amax() for head in heads]


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


def kept_gradient(followed: list[tuple[list[Any], Any]], values: list[float]) -> tuple[Any, bool]:
    """Read back (`values`: those of `at_step`, in its order, each gradient's
    magnitude as the step used it first): the first parameter whose every backward
    pass started from the gradient the step had used (a NaN tells nothing: it is not
    taken for kept), or None; and whether another of them was read as cleared in
    place. One whose values looked at were zero as the step used them tells neither."""
    start, found, zeroed = 0, None, False
    for queued, param in followed:
        chunk = values[start:start + len(queued)]
        start += len(queued)
        if not chunk or not chunk[0] > 0:
            continue
        read = chunk[1:]
        if read and all(value > 0 for value in read):
            found = found if found is not None else param()
        elif any(value == 0 for value in read):
            zeroed = True
    return found, zeroed
