"""Steps of a loop without an optimizer: one per backward pass.

A loop that updates its parameters by hand (`p.data.add_(p.grad, alpha=-lr)`)
never calls `optimizer.step()`. Whether a backward pass ends a step is known
only after it: an optimizer step may follow (an ordinary loop), or another
backward pass may add to the same gradients (accumulation). So the first
backward pass of a run is measured at its end, while its gradients are intact,
and the record is held back: an optimizer step (or `mark_step`) drops it and the
run counts optimizer steps; the next backward pass makes it a step if the
gradients were reset or changed in between (`zero_grad`, an update that sets
them to None), and drops it otherwise; the end of the run makes it a step.
Once one backward pass was a step, every backward pass is one, measured and
judged at its end, until an optimizer steps: the passes before its first step
were passes of that step when the trained tensors are still as the first pass
found them (one pass per sample, cleared in between), and the run is renumbered.
"""
from __future__ import annotations

import dataclasses
import enum
import weakref
from dataclasses import dataclass
from typing import Any, Iterable

import torch

from sanitizer.core.probe import StepProbe, StepRecord
from sanitizer.detectors import graphs


class StepSource(enum.Enum):
    UNDECIDED = "undecided"
    OPTIMIZER = "optimizer"  # optimizer steps, or mark_step()
    BACKWARD = "backward"  # no optimizer: each backward pass


@dataclass
class HeldStep:
    """A backward pass measured at its end, not yet known to be a step."""

    record: StepRecord
    probe: StepProbe  # what the hooks collected for it, given back if it is no step
    data_wait: float
    last_close: float | None
    grads: list[tuple[weakref.ref[torch.Tensor], int | None, int]]
    # the first values of each trained tensor: an update by hand changes them, whether
    # through `.data` (which does not count as a change of the tensor) or not
    values: list[tuple[weakref.ref[torch.Tensor], torch.Tensor]] = dataclasses.field(default_factory=list)

    def gradients_moved_on(self) -> bool:
        """True when a gradient was cleared, replaced or changed in place since, or
        the tensors were updated (a loop that never clears its gradients: the next
        backward pass adds to them, but after an update it is a step of its own)."""
        for ref, grad_id, version in self.grads:
            param = ref()
            grad = param.grad if param is not None else None
            if grad is None or id(grad) != grad_id or grad._version != version:
                return True
        return any(changed(ref(), before) for ref, before in self.values)


_SAMPLED = 64  # values per tensor compared to tell an update


def value_samples(params: Iterable[torch.Tensor]) -> list[tuple[weakref.ref[torch.Tensor], torch.Tensor]]:
    """A copy of the first values of each tensor (read once per run: only the first
    backward pass of a loop is held)."""
    samples = []
    with torch.no_grad():
        for param in params:
            try:
                samples.append((weakref.ref(param), param.detach().reshape(-1)[:_SAMPLED].clone()))
            except (RuntimeError, NotImplementedError):  # tensor subclasses, freed storage
                continue
    return samples


def changed(param: torch.Tensor | None, before: torch.Tensor) -> bool:
    if param is None:
        return False
    try:
        with torch.no_grad():
            now = param.detach().reshape(-1)[:_SAMPLED]
            return now.shape != before.shape or not torch.equal(now, before)
    except (RuntimeError, NotImplementedError):
        return False


def gradient_state(params: Iterable[torch.Tensor]) -> list[tuple[weakref.ref[torch.Tensor], int | None, int]]:
    return [(weakref.ref(p), id(p.grad), p.grad._version) for p in params if p.grad is not None]


def in_backward() -> bool:
    """Whether autograd is running a backward pass on this thread: a gradient hook
    (an optimizer stepped inside backward), or a forward that activation
    checkpointing recomputes."""
    return torch._C._current_graph_task_id() != -1


def storage_freed(tensor: torch.Tensor) -> bool:
    """A tensor whose memory was released after backward: FSDP2 frees the
    unsharded parameters it trains through once their gradients are reduced."""
    try:
        return tensor.numel() > 0 and tensor.untyped_storage().nbytes() == 0
    except (RuntimeError, NotImplementedError):  # tensor subclasses without one storage
        return False


def trained_leaves(roots: Iterable[Any]) -> list[torch.Tensor]:
    """The tensors a backward pass from `roots` accumulates gradients into."""
    leaves = (getattr(node, "variable", None) for node in graphs.walk(roots))
    return [leaf for leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.requires_grad]


def absorb(earlier: StepProbe, later: StepProbe) -> StepProbe:
    """One step's probe again: lists and dicts joined in order (a dict's key both have ends up where `later`
    put it), single values from `later` when it has them."""
    for item in dataclasses.fields(StepProbe):
        mine, theirs = getattr(earlier, item.name), getattr(later, item.name)
        if isinstance(mine, list):
            mine.extend(theirs)
        elif isinstance(mine, dict):
            for key in theirs:  # a key both steps used takes the later entry, and its place: the latest last
                mine.pop(key, None)
            mine.update(theirs)
        elif theirs is not None:
            setattr(earlier, item.name, theirs)
    return earlier
