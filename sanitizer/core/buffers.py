"""Buffers a model changes as it trains (an EMA of a batch statistic, a running scale, a
codebook's usage), measured as each model's first training forward of a step begins and
read with the step's single read: one that turned NaN or Inf is found with the step that wrote it
(its forward's own update, after using it, or the script's `.copy_()`); the detector
names it when the forward that reads it gives non-finite outputs (detectors/nonfinite_buffer.py).

Left out: the running statistics of torch's normalization layers, which torch updates
from the batch alone (a NaN there comes from a NaN batch or activation, reported where it
appears: they are its consequence), integer buffers (a step count), buffers
non-finite when first measured (a mask constant of -inf, by design), and those whose values
cannot be read cheaply (see `_readable`). The buffers are
those the model's modules hold at its first training forward.

A buffer found non-finite leaves the sum (it would hide every other buffer's breakage).
One the detector reported is measured on its own, in the same read, until it is finite
again (the script reset it, or reloaded a checkpoint): then it rejoins the sum, and its
next breakage is found too. One non-finite by design (a mask rebuilt with -inf at each
forward, never reported) is not measured again: a run with nothing wrong pays nothing."""
from __future__ import annotations

import math
import weakref
from functools import partial
from typing import Callable, NamedTuple, Sequence

import torch
from torch import nn
from torch.nn.parameter import UninitializedBuffer

from sanitizer.core.probe import inexact, norms_from_squares, squared_norms

MAX_WATCHED = 256  # buffers measured per step: past that, a model's are left out
MAX_MODELS = 8  # models whose buffers are remembered


class NonfiniteBuffer(NamedTuple):
    """A buffer found NaN or Inf as a step's forward began, finite as the previous one's did."""

    owner: nn.Module
    name: str  # as in the owner's `named_buffers()`, without its prefix
    value: float  # its L2 norm
    finite_at: int  # the step whose forward last found it finite
    # measure it again until it is finite again (`BufferWatch.watch_again`): for a reported breakage
    watch_again: Callable[[], None] = lambda: None


class _Watched(NamedTuple):
    owner: weakref.ref[nn.Module]
    key: str  # in `owner._buffers`: re-read each step, so a buffer re-assigned (`self.ema = ...`) is followed


class BufferMeasure(NamedTuple):
    """A model's buffers measured as its first training forward of a step began: the sum of their squared
    norms is read with the step (one value, whatever their number); each one's only when
    that sum is not finite. Reported buffers still non-finite are measured apart (`broken`)."""

    step: int
    watched: list[_Watched]
    tensors: list[torch.Tensor]
    squares: list[torch.Tensor]
    total: torch.Tensor
    broken: list[_Watched]
    broken_tensors: list[torch.Tensor]
    broken_squares: list[torch.Tensor]

    def values(self) -> list[torch.Tensor]:
        """What the step's single read takes: the sum, then each broken buffer's square."""
        return [self.total, *self.broken_squares]


class BufferWatch:
    def __init__(self) -> None:
        self._models: dict[int, tuple[weakref.ref[nn.Module], list[_Watched]]] = {}
        # owner -> key -> the step whose forward last found it finite; None: found non-finite
        # when first measured (by design), or already told. Weakly keyed: a module that dies
        # takes its entries along, never left to one that gets its id
        self._finite_at: weakref.WeakKeyDictionary[nn.Module, dict[str, int | None]] = weakref.WeakKeyDictionary()
        # owner -> the keys of buffers reported non-finite, measured apart until finite again
        self._broken: weakref.WeakKeyDictionary[nn.Module, set[str]] = weakref.WeakKeyDictionary()

    def measure(self, model: nn.Module, step: int) -> BufferMeasure | None:
        """`model`'s watched buffers, their squared norms taken now (as its forward begins)."""
        watched, tensors, broken, broken_tensors = [], [], [], []
        for entry in self._watched(model):
            owner = entry.owner()
            tensor = owner._buffers.get(entry.key) if owner is not None else None
            if tensor is None or not _readable(tensor) or not tensor.numel():
                continue
            if self._finite_at.get(owner, {}).get(entry.key, 0) is not None:
                watched.append(entry)
                tensors.append(tensor)
            elif entry.key in self._broken.get(owner, ()):
                broken.append(entry)
                broken_tensors.append(tensor)
        if not tensors and not broken:
            return None
        squares = squared_norms(tensors) if tensors else []
        return BufferMeasure(step, watched, tensors, squares, _sum(squares), broken, broken_tensors,
                             squared_norms(broken_tensors) if broken_tensors else [])

    def judge_all(self, measures: list[BufferMeasure], values: list[float]) -> list[NonfiniteBuffer]:
        """What `judge` finds in each measure, `values` read from their `values()` in turn."""
        found, start = [], 0
        for measure in measures:
            count = len(measure.broken)
            found += self.judge(measure, values[start], values[start + 1:start + 1 + count] if count else ())
            start += 1 + count
        return found

    def judge(self, measure: BufferMeasure, total: float, broken: Sequence[float] = ()) -> list[NonfiniteBuffer]:
        """The buffers `measure` (`total` its sum read, `broken` the squares of those it measured
        apart) found non-finite that the previous one found finite."""
        if broken:
            self._mend(measure, list(broken))
        if math.isfinite(total):
            for entry in measure.watched:
                owner = entry.owner()
                if owner is not None:
                    self._finite_at.setdefault(owner, {})[entry.key] = measure.step
            return []
        found = []
        squares = [float(square) for square in measure.squares]
        for entry, norm in zip(measure.watched, norms_from_squares(measure.tensors, squares)):
            owner = entry.owner()
            if owner is None:
                continue
            steps = self._finite_at.setdefault(owner, {})
            last = steps.get(entry.key)
            if math.isfinite(norm):
                steps[entry.key] = measure.step
                continue
            steps[entry.key] = None  # by design when first measured; else told once, until finite again
            if last is not None and last < measure.step:
                found.append(NonfiniteBuffer(owner, entry.key, norm, last, partial(self.watch_again, owner, entry.key)))
        return found

    def watch_again(self, owner: nn.Module, key: str) -> None:
        """Measure a buffer found non-finite until it is finite again, then as before."""
        self._broken.setdefault(owner, set()).add(key)

    def _mend(self, measure: BufferMeasure, squares: list[float]) -> None:
        """The broken buffers `measure` found finite again rejoin the sum, finite at its step."""
        for entry, norm in zip(measure.broken, norms_from_squares(measure.broken_tensors, squares)):
            owner = entry.owner()
            if owner is not None and math.isfinite(norm):
                self._broken[owner].discard(entry.key)
                self._finite_at.setdefault(owner, {})[entry.key] = measure.step

    def _watched(self, model: nn.Module) -> list[_Watched]:
        entry = self._models.get(id(model))
        if entry is None or entry[0]() is not model:
            if len(self._models) >= MAX_MODELS:
                self._models = {key: kept for key, kept in self._models.items() if kept[0]() is not None}
            entry = (weakref.ref(model), _changing_buffers(model)) if len(self._models) < MAX_MODELS else None
            if entry is None:
                return []
            self._models[id(model)] = entry
        return entry[1]


def _sum(squares: list[torch.Tensor]) -> torch.Tensor:
    """The squares' sum, on the first one's device (a model split over devices); 0 for none
    (every buffer of the model measured apart)."""
    if not squares:
        return torch.zeros(())
    device = squares[0].device
    return torch.stack([square.to(device) for square in squares]).sum()


def _changing_buffers(model: nn.Module) -> list[_Watched]:
    """The floating-point buffers of `model`'s modules, those of normalization layers aside."""
    watched = []
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._NormBase):
            continue
        for key, tensor in module._buffers.items():
            if tensor is not None and len(watched) < MAX_WATCHED and (
                    isinstance(tensor, UninitializedBuffer) or _readable(tensor)):
                watched.append(_Watched(weakref.ref(module), key))
    return watched


def _readable(tensor: torch.Tensor) -> bool:
    """A plain dense floating-point tensor holding values on a real device: what a norm reads
    cheaply and safely. A meta tensor has no values; a sparse, nested or quantized one, or a
    subclass (a lazy buffer not yet materialized, a DTensor, a FakeTensor), is left out."""
    return (type(tensor) is torch.Tensor and tensor.device.type != "meta" and tensor.layout is torch.strided
            and not tensor.is_nested and not tensor.is_quantized and inexact(tensor))
