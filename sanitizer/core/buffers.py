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
those the model's modules hold at its first training forward."""
from __future__ import annotations

import math
import weakref
from typing import NamedTuple

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


class _Watched(NamedTuple):
    owner: weakref.ref[nn.Module]
    key: str  # in `owner._buffers`: re-read each step, so a buffer re-assigned (`self.ema = ...`) is followed


class BufferMeasure(NamedTuple):
    """A model's buffers measured as its first training forward of a step began: the sum of their squared
    norms is read with the step (one value, whatever their number); each one's only when
    that sum is not finite."""

    step: int
    watched: list[_Watched]
    tensors: list[torch.Tensor]
    squares: list[torch.Tensor]
    total: torch.Tensor


class BufferWatch:
    def __init__(self) -> None:
        self._models: dict[int, tuple[weakref.ref[nn.Module], list[_Watched]]] = {}
        # owner -> key -> the step whose forward last found it finite; None: found non-finite
        # when first measured (by design), or already told. Weakly keyed: a module that dies
        # takes its entries along, never left to one that gets its id
        self._finite_at: weakref.WeakKeyDictionary[nn.Module, dict[str, int | None]] = weakref.WeakKeyDictionary()

    def measure(self, model: nn.Module, step: int) -> BufferMeasure | None:
        """`model`'s watched buffers, their squared norms taken now (as its forward begins)."""
        watched, tensors = [], []
        for entry in self._watched(model):
            owner = entry.owner()
            tensor = owner._buffers.get(entry.key) if owner is not None else None
            if (tensor is not None and _readable(tensor) and tensor.numel()
                    and self._finite_at.get(owner, {}).get(entry.key, 0) is not None):
                watched.append(entry)
                tensors.append(tensor)
        if not tensors:
            return None
        squares = squared_norms(tensors)
        device = squares[0].device  # a model split over devices: summed on the first
        return BufferMeasure(step, watched, tensors, squares, torch.stack([s.to(device) for s in squares]).sum())

    def judge(self, measure: BufferMeasure, total: float) -> list[NonfiniteBuffer]:
        """The buffers `measure` (`total` its sum read) found non-finite that the previous one found finite."""
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
            steps[entry.key] = None  # by design when first measured; else told once
            if last is not None and last < measure.step:
                found.append(NonfiniteBuffer(owner, entry.key, norm, last))
        return found

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
