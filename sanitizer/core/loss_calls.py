"""What a call of a `torch.nn.functional` loss computed, so that like is compared with like.

A validation loss says something about the training loss only when both are
the same function, reduced the same way, with the same options that change its
scale. `kind_of` names that; `per_element_mean` turns a `reduction="sum"` value
into the mean over the elements it summed (the MNIST example's test loss) when
that count is known. Whatever is not understood (legacy `size_average` /
`reduce`, options passed by position, a class-weighted sum, a `kl_div` sum) has
no kind, and a loss without a kind is never compared.
"""
from __future__ import annotations

import math
import weakref
from typing import Any, Callable, NamedTuple

import torch

CLASS_INDEXED = ("cross_entropy", "nll_loss")
# positional arguments before the options (input, target[, var])
TENSOR_ARGUMENTS = {"gaussian_nll_loss": 3}
SCALE_OPTIONS = ("label_smoothing", "log_target", "full", "delta", "beta", "log_input")


class LossCall(NamedTuple):
    """A training loss a functional loss returned: which function, its kind, and its target
    (held weakly: where a non-finite loss came from when the model's outputs were finite:
    NaN in the target, or class labels that all equal `ignore_index`).
    A tuple: one is made per loss call."""

    function: str
    kind: str | None
    target: Callable[[], torch.Tensor | None] | None  # called: the target, None once it is gone
    ignore_index: int | None = None  # of a class-indexed loss given class labels
    # how many classes a `cross_entropy` averaged over (its input's class dimension):
    # its chance level, a prediction that knows nothing, is ln(classes)
    classes: int | None = None
    # a `cross_entropy` over a single class (one logit per sample): its log_softmax is 0 whatever
    # the logit, so the loss is 0 and no gradient comes back from it
    one_class: bool = False


def call_of(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], kind: str | None) -> LossCall:
    """The LossCall of `name(*args, **kwargs)`: real-valued targets, and the class labels of
    `cross_entropy` / `nll_loss` with the index they ignore."""
    target = args[1] if len(args) > 1 else kwargs.get("target")
    count = _class_count(name, args, kwargs)
    classes = _classes(count, kwargs, kind)
    one_class = count == 1
    if not isinstance(target, torch.Tensor):
        return LossCall(name, kind, None, classes=classes, one_class=one_class)
    if target.is_floating_point():
        return LossCall(name, kind, weakref.ref(target), classes=classes, one_class=one_class)
    ignore_index = kwargs.get("ignore_index", -100)
    if name in CLASS_INDEXED and isinstance(ignore_index, int) and len(args) <= 2:
        # held, not weakly: labels made for the call (`F.cross_entropy(out, y.long())`) die
        # with it, before a NaN loss asks whether they were all ignored; one integer per
        # sample or token, a fraction of the logits, freed with the step
        return LossCall(name, kind, _Held(target), ignore_index, classes, one_class)
    return LossCall(name, kind, None, classes=classes, one_class=one_class)


class _Held:
    """A tensor held for the step, read as a weak reference is (`held()`)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor

    def __call__(self) -> torch.Tensor:
        return self.tensor


def _class_count(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The class dimension of a `cross_entropy`'s logits (N, C, ...) or (C,), read from the
    input's shape, no data; None for any other loss."""
    if name != "cross_entropy":
        return None
    inputs = args[0] if args else kwargs.get("input")
    if not isinstance(inputs, torch.Tensor) or inputs.dim() == 0:
        return None
    return inputs.shape[1] if inputs.dim() > 1 else inputs.shape[0]


def _classes(count: int | None, kwargs: dict[str, Any], kind: str | None) -> int | None:
    """The class count of a mean `cross_entropy` of `count` classes: a uniform prediction
    scores ln(C) whatever the labels, their weights or their smoothing. None for any other
    loss, a sum, or a single class."""
    if count is None or kind is None or kwargs.get("reduction", "mean") != "mean":
        return None
    return count if count > 1 else None


def kind_of(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """`cross_entropy`, `cross_entropy weighted label_smoothing=0.1`, `kl_div batchmean`...; None if unsure."""
    if len(args) > TENSOR_ARGUMENTS.get(name, 2) or "size_average" in kwargs or "reduce" in kwargs:
        return None
    reduction = kwargs.get("reduction", "mean")
    if reduction not in ("mean", "sum", "batchmean"):
        return None
    if reduction == "sum" and (name == "kl_div" or (name in CLASS_INDEXED and kwargs.get("weight") is not None)):
        return None  # their mean is not the sum over a count we know
    parts = [name]
    if kwargs.get("weight") is not None or kwargs.get("pos_weight") is not None:
        parts.append("weighted")
    if reduction == "batchmean":
        parts.append("batchmean")
    parts.extend(f"{option}={kwargs[option]}" for option in SCALE_OPTIONS
                 if option in kwargs and not isinstance(kwargs[option], torch.Tensor))
    return " ".join(parts)


def per_element_mean(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                     value: torch.Tensor) -> torch.Tensor:
    """`value` as a mean over its elements (a sum divided by how many it added up)."""
    if kwargs.get("reduction", "mean") != "sum":
        return value
    return value / _summed_count(name, _tensor(args, kwargs, 0, "input"), _tensor(args, kwargs, 1, "target"),
                                 kwargs.get("ignore_index", -100))


def _summed_count(name: str, inputs: torch.Tensor, target: torch.Tensor, ignore_index: int) -> Any:
    if name in CLASS_INDEXED and not target.is_floating_point():
        return (target != ignore_index).sum()
    if name in CLASS_INDEXED:  # class probabilities: one term per sample (and position)
        return max(inputs.numel() // inputs.shape[1], 1) if inputs.dim() > 1 else 1
    return math.prod(torch.broadcast_shapes(inputs.shape, target.shape))


def _tensor(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, keyword: str) -> torch.Tensor:
    return args[index] if len(args) > index else kwargs[keyword]
