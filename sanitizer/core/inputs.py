"""The data a model is given: the arguments of its outermost call that are put on the
trail as its batch (see `ForwardTracer.before_forward`), and their names in a report;
and the one tensor that stands for the batch, whose first dimension counts its items
and whose storage tells where the data came from (see core/sources.py).

A model may take its batch anywhere among its arguments: after a LongTensor of token
ids (`model(ids, features)`, an EmbeddingBag's per-sample weights), by keyword
(`model(x=batch)`, `model(**batch)`), or inside a dict or list (`model(batch)`).
Every floating tensor there without autograd history is data; a parameter, or a
value a model computed, is not.
"""
from __future__ import annotations

import inspect
import sys
from itertools import chain, islice
from typing import Any, Iterable, Iterator

import torch
from torch import nn

from sanitizer.core.probe import inexact

# tensors of one call put on the trail (a detection model's list of images holds many)
MAX_INPUT_TENSORS = 16
# where an argument sits in the call: (position or keyword,) or, inside a dict, list or
# tuple argument, (position or keyword, key or index)
ArgumentPath = tuple[Any, ...]
BATCH: ArgumentPath = (0,)  # the first positional argument: what the model is usually given

_CALL_CODE = nn.Module._call_impl.__code__
_CALL_FRAMES = 6  # the session's hook functions lie between the hook and `Module._call_impl`


def data_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[ArgumentPath, torch.Tensor]]:
    """The data among a call's arguments, each tensor once, in the order given."""
    found: list[tuple[ArgumentPath, torch.Tensor]] = []
    for path, value in _tensors(args, kwargs):
        if (_is_data(value) and (path == BATCH or not isinstance(value, nn.Parameter))
                and not any(value is seen for _, seen in found)):
            found.append((path, value))
            if len(found) == MAX_INPUT_TENSORS:
                break
    return found


def batch_of(values: Iterable[Any]) -> torch.Tensor | None:
    """The batch among a call's arguments (`values`, in the order given): the first
    tensor of numbers with a batch dimension, given as an argument or as an item of a
    dict, list or tuple argument. A HF model's `input_ids=ids` (integers), `model(None,
    x)` (an empty cache first), `model({"image": x})`; a boolean mask or a 0-d value
    (a timestep) is no batch."""
    for value in values:
        if isinstance(value, torch.Tensor):
            if _batch_like(value):
                return value
        elif isinstance(value, (dict, list, tuple)):
            items = value.values() if isinstance(value, dict) else value
            found = next((item for item in islice(items, MAX_INPUT_TENSORS)
                          if isinstance(item, torch.Tensor) and _batch_like(item)), None)
            if found is not None:
                return found
    return None


def _batch_like(tensor: torch.Tensor) -> bool:
    return (tensor.layout is torch.strided and not tensor.is_nested and tensor.dim() > 0
            and tensor.dtype is not torch.bool)


def _tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[tuple[ArgumentPath, Any]]:
    for key, value in chain(enumerate(args), kwargs.items()):
        if isinstance(value, torch.Tensor):
            yield (key,), value
        elif isinstance(value, dict):
            for inner, item in islice(value.items(), MAX_INPUT_TENSORS):
                yield (key, inner), item
        elif isinstance(value, (list, tuple)):
            for inner, item in islice(enumerate(value), MAX_INPUT_TENSORS):
                yield (key, inner), item


SPARSE_LAYOUTS = (torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)


def _is_data(value: Any) -> bool:
    """A floating tensor holding values, made by no model (no autograd history): dense,
    or sparse (a graph's node features), whose stored values are measured (see
    `stored_values`). A parameter is none either (a learned prompt handed to the
    model), unless it is the batch itself (an image optimized by style transfer)."""
    return (isinstance(value, torch.Tensor) and not value.is_nested
            and (value.layout is torch.strided or value.layout in SPARSE_LAYOUTS)
            and inexact(value) and value.grad_fn is None and value.numel() > 0)


def stored_values(tensor: torch.Tensor) -> torch.Tensor:
    """The values a tensor stores, as a dense tensor: itself when dense; a sparse one's
    specified values (its zeros are finite), on which the trail's reductions run."""
    if tensor.layout is torch.strided:
        return tensor
    return tensor._values() if tensor.layout is torch.sparse_coo else tensor.values()


def call_kwargs(module: nn.Module) -> dict[str, Any]:
    """The keyword arguments `module` is being called with: a global forward pre-hook is
    given the positional ones only; `Module._call_impl`, a few frames up, holds both.
    Asked once per outermost call."""
    frame = sys._getframe(1)
    for _ in range(_CALL_FRAMES):
        if frame is None:
            break
        if frame.f_code is _CALL_CODE:
            local = frame.f_locals
            kwargs = local.get("kwargs")
            return kwargs if local.get("self") is module and isinstance(kwargs, dict) else {}
        frame = frame.f_back
    return {}


def argument_name(module: nn.Module | None, path: ArgumentPath) -> str:
    """`path` as the script's code would write it: the name of the parameter of the
    model's `forward` (`weights`, `x['pixels']`), else its place (`args[1]`)."""
    head, *rest = path
    name = _positional_name(module, head) if isinstance(head, int) else str(head)
    return name + "".join(f"[{key!r}]" for key in rest)


def _positional_name(module: nn.Module | None, index: int) -> str:
    try:
        parameters = list(inspect.signature(module.forward).parameters.values()) if module is not None else []
    except (TypeError, ValueError):  # a forward without a signature (a builtin, a scripted one)
        parameters = []
    remaining = index
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return f"{parameter.name}[{remaining}]"
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            if remaining == 0:
                return parameter.name
            remaining -= 1
    return f"args[{index}]"
