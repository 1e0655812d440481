"""Master weights: an optimizer that steps copies of the model's parameters.

Mixed precision done by hand (apex's O2, fairseq's and Megatron's FP16 optimizers)
keeps an fp16 model and gives the optimizer fp32 copies of its parameters: the
script copies the model's gradients, unscaled, into the copies' `.grad`, steps,
and copies the copies back into the model (`p.copy_(master)`). The model's
parameters then get gradients that no optimizer holds, and yet are trained.

Such copies are recognised when they pair one-to-one, shape for shape and in
order, with the model's trainable parameters that no optimizer holds, and each
holds its model parameter's values (cast to the model's dtype): the copies were
made from the model, or the model was copied from them after the last step.
Whether the model keeps following them is asked again at later checks (see
detectors/param_not_in_optimizer.py). When the pairing is not one-to-one, nothing
is paired.

fairseq's FP16Optimizer (and Megatron's buffers) keep the copies end to end in one
flat fp32 tensor instead, the optimizer's only parameter: the lacking parameters,
in order, pair with its consecutive slices when its length is theirs together and
each slice holds its parameter's values. Such a flat copy stands for no one
parameter (`model_of` gives nothing for it).
"""
from __future__ import annotations

import weakref
from typing import Iterable

import torch


class MasterCopies:
    def __init__(self) -> None:
        # id of a model parameter -> (it, the optimizer's copy of it), both held weakly
        self._master: dict[int, tuple[weakref.ref[torch.Tensor], weakref.ref[torch.Tensor]]] = {}
        # id of a copy -> (it, the model parameter it stands for)
        self._model: dict[int, tuple[weakref.ref[torch.Tensor], weakref.ref[torch.Tensor]]] = {}
        # id of a model parameter -> (it, the flat copy of all of them, where its slice begins)
        self._flat: dict[int, tuple[weakref.ref[torch.Tensor], weakref.ref[torch.Tensor], int]] = {}
        self._tried: set[tuple[int, ...]] = set()  # sets of lacking parameters already looked at

    def find(self, lacking: list[torch.Tensor], optimizer_params: Iterable[torch.Tensor],
             model_ids: set[int]) -> None:
        """Pair `lacking` (the model's trainable parameters no optimizer holds) with the
        optimizers' tensors that are no model's parameters. Looked at once per set of
        lacking parameters: a pairing refused once (values that differ) is not asked again."""
        lacking = [p for p in lacking if id(p) not in self._master and id(p) not in self._flat]
        key = tuple(sorted(id(p) for p in lacking))
        if not lacking or key in self._tried:
            return
        self._tried.add(key)
        outside = [p for p in optimizer_params if id(p) not in model_ids and id(p) not in self._model]
        pairs = _pairs(lacking, outside)
        if pairs is None:
            self._find_flat(lacking, outside)
            return
        for param, master in pairs:
            if same_values(param, master):
                self._master[id(param)] = (weakref.ref(param), weakref.ref(master))
                self._model[id(master)] = (weakref.ref(master), weakref.ref(param))

    def _find_flat(self, lacking: list[torch.Tensor], outside: list[torch.Tensor]) -> None:
        """Pair `lacking`, in order, with the consecutive slices of one flat tensor of
        `outside` as long as all of them together, when each slice holds its values."""
        total = sum(p.numel() for p in lacking)
        for flat in outside:
            if flat.dim() != 1 or flat.numel() != total or flat.is_sparse:
                continue
            starts = [0]
            for param in lacking[:-1]:
                starts.append(starts[-1] + param.numel())
            if all(same_values(param, _slice(flat, start, param)) for param, start in zip(lacking, starts)):
                for param, start in zip(lacking, starts):
                    self._flat[id(param)] = (weakref.ref(param), weakref.ref(flat), start)
                return

    def master_of(self, param: torch.Tensor) -> torch.Tensor | None:
        entry = self._flat.get(id(param))
        if entry is not None and entry[0]() is param and (flat := entry[1]()) is not None:
            return _slice(flat, entry[2], param)
        return _live(self._master.get(id(param)), param)

    def model_of(self, master: torch.Tensor) -> torch.Tensor | None:
        return _live(self._model.get(id(master)), master)


def _slice(flat: torch.Tensor, start: int, param: torch.Tensor) -> torch.Tensor:
    """The part of `flat` that copies `param`, shaped as it (a view, outside autograd)."""
    return flat.detach()[start:start + param.numel()].view(param.shape)


def _live(entry: tuple[weakref.ref[torch.Tensor], weakref.ref[torch.Tensor]] | None,
          key: torch.Tensor) -> torch.Tensor | None:
    if entry is None or entry[0]() is not key:
        return None
    return entry[1]()


def _pairs(lacking: list[torch.Tensor],
           outside: list[torch.Tensor]) -> list[tuple[torch.Tensor, torch.Tensor]] | None:
    """Each lacking parameter with the tensor outside the model of its shape that comes
    at the same rank among those of that shape; None unless every shape of `lacking`
    has exactly as many tensors outside."""
    by_shape: dict[tuple[int, ...], list[torch.Tensor]] = {}
    for tensor in outside:
        by_shape.setdefault(tuple(tensor.shape), []).append(tensor)
    wanted: dict[tuple[int, ...], list[torch.Tensor]] = {}
    for param in lacking:
        wanted.setdefault(tuple(param.shape), []).append(param)
    if any(len(by_shape.get(shape, ())) != len(params) for shape, params in wanted.items()):
        return None
    return [pair for shape, params in wanted.items() for pair in zip(params, by_shape[shape])]


@torch.no_grad()
def same_values(param: torch.Tensor, master: torch.Tensor) -> bool:
    """Whether `param` holds `master`'s values cast to its dtype (NaN where it has NaN)."""
    try:
        if param.shape != master.shape or param.is_sparse or master.is_sparse:
            return False
        cast = master.detach().to(device=param.device, dtype=param.dtype)
        value = param.detach()
        same = cast == value
        if value.is_floating_point() or value.is_complex():
            same |= cast.isnan() & value.isnan()
        return bool(same.all())
    except Exception:  # a tensor of a kind that cannot be read or compared
        return False
