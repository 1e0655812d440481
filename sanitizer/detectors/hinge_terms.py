"""Terms of a training loss that a hinge holds at exactly 0, and the parameters that
only such terms reach.

A loss that adds several terms (`cross_entropy(...) + margin_ranking_loss(...)`, a
GAN's hinge terms beside a penalty) goes on training while one of them is 0: a hinge
(`relu`, `clamp(min=0)`) whose every element sits on its flat side (every pair meets
the margin) passes no gradient on, and the parameters only that term reaches (a
scorer head) get all-zero gradients that say nothing of the layer.

The terms are read off the loss's autograd graph before backward frees what it
saved: from the loss down through the arithmetic that combines the terms (sums,
differences, weights), to the reductions (`mean`, `sum`) that make each term; a term
is a hinge term when its reduction is of a hinge. Whether a hinge was flat is a 0-d
tensor, read once the step's values are read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from sanitizer.detectors import graphs

COMBINING = frozenset({"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "RsubBackward1",
                       "MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1", "NegBackward0"})
REDUCTIONS = frozenset({"MeanBackward0", "MeanBackward1", "SumBackward0", "SumBackward1"})
MAX_COMBINING = 256  # nodes of the arithmetic above the terms looked at
MAX_NODES = 100_000  # nodes walked below the terms to find the parameters each reaches


def _relu_flat(node: Any) -> torch.Tensor:
    return (node._saved_result <= 0).all()


def _clamp_min_flat(node: Any) -> torch.Tensor:
    return (node._saved_self < node._saved_min).all()


def _clamp_flat(node: Any) -> torch.Tensor:
    values, low, high = node._saved_self, node._saved_min, node._saved_max
    outside = torch.zeros_like(values, dtype=torch.bool)
    if low is not None:
        outside |= values < low
    if high is not None:
        outside |= values > high
    return outside.all()


def _threshold_flat(node: Any) -> torch.Tensor:
    return (node._saved_self <= node._saved_threshold).all()


# each hinge's autograd node, and whether every element sits where it passes no gradient
HINGES: dict[str, Callable[[Any], torch.Tensor]] = {
    "ReluBackward0": _relu_flat, "ClampMinBackward0": _clamp_min_flat,
    "ClampBackward1": _clamp_flat, "ThresholdBackward0": _threshold_flat}


@dataclass(frozen=True)
class TermGraph:
    """The parameters each hinge term of a loss reaches, and those its other terms reach."""

    signature: tuple[str, ...]  # the nodes of the arithmetic and the terms, by name, in walk order
    reached: dict[int, tuple[int, ...]]  # parameter id -> the hinge terms (by number) that reach it
    live: frozenset[int]  # ids of the parameters any other term reaches


@dataclass
class Inspection:
    """One loss's hinge terms: whether each was flat (not read yet), and what each reaches."""

    flat: list[torch.Tensor]
    graph: TermGraph

    def held_at_zero(self) -> set[int]:
        """ids of the parameters that only hinge terms held at 0 reach."""
        flat = [bool(value) for value in self.flat]
        return {key for key, terms in self.graph.reached.items()
                if key not in self.graph.live and all(flat[term] for term in terms)}


def inspect(loss: torch.Tensor, known: TermGraph | None = None) -> Inspection | None:
    """The hinge terms of `loss` (None when it has none); `known` is reused when the
    loss is made of the same terms (then only the arithmetic above them is walked)."""
    hinges, others, signature = _terms(loss.grad_fn)
    if not hinges:
        return None
    try:
        with torch.no_grad():
            flat = [HINGES[node.name()](node) for node in hinges]
    except (RuntimeError, AttributeError, TypeError):  # saved values freed, or not as expected
        return None
    graph = known if known is not None and known.signature == signature else _reach(hinges, others, signature)
    return Inspection(flat, graph)


def _terms(root: Any) -> tuple[list[Any], list[Any], tuple[str, ...]]:
    """The hinges under the reductions of `root`'s hinge terms, the top nodes of its other
    terms, and the names of all the nodes looked at."""
    hinges: list[Any] = []
    others: list[Any] = []
    names: list[str] = []
    pending = [root] if root is not None else []
    while pending and len(names) < MAX_COMBINING:
        node = pending.pop()
        name = node.name()
        names.append(name)
        children = [child for child, _ in node.next_functions if child is not None]
        if name in COMBINING:
            pending.extend(children)
        elif name in REDUCTIONS and len(children) == 1 and children[0].name() in HINGES:
            hinges.append(children[0])
            names.append(children[0].name())
        else:
            others.append(node)
    others.extend(pending)  # past the budget: terms of their own, that may reach anything
    return hinges, others, tuple(names)


def _reach(hinges: list[Any], others: list[Any], signature: tuple[str, ...]) -> TermGraph:
    live = _leaves(others)
    if live is None:  # too large to tell what the other terms reach: nothing is put down to a hinge
        return TermGraph(signature, {}, frozenset())
    reached: dict[int, tuple[int, ...]] = {}
    for number, hinge in enumerate(hinges):
        for key in _leaves([hinge]) or ():
            reached[key] = reached.get(key, ()) + (number,)
    return TermGraph(signature, reached, frozenset(live))


def _leaves(nodes: list[Any]) -> set[int] | None:
    """ids of the tensors that gradients from `nodes` accumulate into (None: too many nodes)."""
    walked = graphs.walk(nodes, MAX_NODES)
    if len(walked) >= MAX_NODES:
        return None
    return {id(node.variable) for node in walked if hasattr(node, "variable")}
