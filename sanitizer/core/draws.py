"""Actions drawn by hand: REINFORCE written with `torch.multinomial` and `log_softmax`.

`a = torch.multinomial(F.log_softmax(logits, -1).exp(), 1).item()`, then
`log_probs.append(F.log_softmax(logits, -1)[a])`, is the score-function objective
that `Categorical(logits).sample()` and `log_prob()` spell out (see
`Sanitizer.on_log_prob`). It is recognised from the graph the loss hands to
`backward()`: a log-softmax (or the log of a softmax) taken at an index, by
`select`, `gather` or indexing, where

- the log-probabilities come from the same autograd node as the probabilities a
  `torch.multinomial` call of this backward's graph drew from (the same logits,
  or the log-softmax whose `exp()` was drawn from), and
- every index taken is among the values that call drew.

A model sampled without gradients (a language model generating text) leaves no node
to link; a log-softmax gathered at targets (a cross-entropy written by hand) is taken
at indices no draw returned. Only the draws since the last backward pass are looked
for, in at most MAX_NODES nodes of its graph, and on at most MAX_WALKS passes.
"""
from __future__ import annotations

from collections import deque
from typing import Any

import torch

RECENT_DRAWS = 32  # multinomial calls since the last backward pass that are remembered
MAX_DRAWN = 4096  # a draw of more values than this is no action
UPSTREAM = 4  # nodes followed up from the probabilities drawn from (exp, softmax, a normalisation)
MAX_NODES = 20000  # nodes of a backward graph looked at
MAX_WALKS = 16  # backward passes with draws pending looked at, before giving up
MIN_MATCHED = 8  # indices taken at drawn values, over those passes, that make the objective

_TAKE = frozenset({"SelectBackward0", "GatherBackward0", "IndexBackward0"})
_VIEWS = frozenset({"UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "ViewBackward0",
                    "ReshapeAliasBackward0", "UnsafeViewBackward0", "AliasBackward0", "ExpandBackward0",
                    "TBackward0", "PermuteBackward0", "TransposeBackward0", "SqueezeBackward2"})
_PASSED = _VIEWS | {"SelectBackward0"}


class Draws:
    def __init__(self) -> None:
        # of each recent draw: the autograd nodes its probabilities came from, the values drawn
        self._recent: deque[tuple[list[Any], tuple[int, ...]]] = deque(maxlen=RECENT_DRAWS)
        self._walks = 0
        self._matched = 0  # indices taken that a draw returned, over the passes so far
        self._refuted = False  # a log-probability of a draw's source taken at an index not drawn

    def drawn(self, probabilities: Any, result: Any) -> None:
        """`torch.multinomial(probabilities, ...)` returned `result`."""
        if (self._refuted or self._walks >= MAX_WALKS or not isinstance(probabilities, torch.Tensor)
                or probabilities.grad_fn is None or not isinstance(result, torch.Tensor)
                or result.numel() > MAX_DRAWN or result.is_floating_point()):
            return
        self._recent.append((_upstream(probabilities.grad_fn), tuple(result.detach().flatten().tolist())))

    def log_prob_of_draw(self, roots: list[Any]) -> bool:
        """Whether the graphs of `roots`, and those of the passes before, take
        log-probabilities at drawn indices (see above) MIN_MATCHED times, and never
        take them, from a draw's source, at indices not drawn. The draws are forgotten:
        the next pass has its own."""
        if not self._recent:
            return False
        recent, self._recent = list(self._recent), deque(maxlen=RECENT_DRAWS)
        self._walks += 1
        if self._walks > MAX_WALKS or self._refuted:
            return False
        by_node: dict[int, list[tuple[int, ...]]] = {}
        for chain, values in recent:
            for node in chain:
                by_node.setdefault(id(node), []).append(values)
        keep = [chain for chain, _ in recent]  # the nodes stay alive (their ids unique) during the walk
        rows: set[int] = set()  # selects of one row under a take (`probs[0, a]`): no take of their own
        for node in _nodes(root.grad_fn for root in roots if isinstance(root, torch.Tensor)):
            if id(node) in rows:
                continue
            found = _linked(node, by_node, rows)
            if found is None:
                continue
            if not found:
                self._refuted = True  # a log-likelihood of targets, beside samples drawn for something else
                return False
            self._matched += found
        del keep
        return self._matched >= MIN_MATCHED


def _upstream(node: Any) -> list[Any]:
    chain = []
    while node is not None and len(chain) < UPSTREAM:
        chain.append(node)
        inputs = getattr(node, "next_functions", ())
        node = inputs[0][0] if inputs else None
    return chain


def _nodes(starts: Any) -> Any:
    """The nodes of a backward graph, at most MAX_NODES of them."""
    pending = [node for node in starts if node is not None]
    seen: set[int] = set()
    while pending and len(seen) < MAX_NODES:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        pending.extend(child for child, _ in getattr(node, "next_functions", ()) if child is not None)


def _linked(node: Any, by_node: dict[int, list[tuple[int, ...]]], rows: set[int]) -> int | None:
    """When `node` takes log-probabilities (a log-softmax's, or the log of a softmax's,
    taken before or after the log) from the source of a draw: how many indices it took,
    if they are the ones a draw from that source returned, else 0. None for any other node."""
    name = type(node).__name__
    if name == "LogBackward0":  # log(softmax(x)[a])
        take = _below(node, _VIEWS)
        if take is None or type(take).__name__ not in _TAKE:
            return None
        sources = _softmax(_below(take, rows=rows))
    elif name in _TAKE:  # log_softmax(x)[a], log(softmax(x))[a]
        take, source = node, _below(node, rows=rows)
        if source is not None and type(source).__name__ == "LogSoftmaxBackward0":
            sources = [source]
        elif source is not None and type(source).__name__ == "LogBackward0" and _softmax(_below(source)):
            sources = [source, *_softmax(_below(source))]
        else:
            sources = []
    else:
        return None
    links = {id(source) for source in sources} | {id(source.next_functions[0][0]) for source in sources
                                                    if source.next_functions and source.next_functions[0][0] is not None}
    draws = [values for key in links for values in by_node.get(key, ())]
    if not draws:
        return None  # no draw came from its source
    indices = _indices(take)
    if indices is None:
        return None
    return len(indices) if any(indices == values for values in draws) else 0


def _softmax(node: Any) -> list[Any]:
    return [node] if node is not None and type(node).__name__ == "SoftmaxBackward0" else []


def _below(node: Any, passed: frozenset[str] | None = None, rows: set[int] | None = None) -> Any:
    """The node below `node`'s first input, past views (unsqueeze, view, squeeze) and
    selects of one row (`probs[0, a]`, added to `rows`)."""
    passed = _PASSED if passed is None else passed
    inputs = getattr(node, "next_functions", ())
    child = inputs[0][0] if inputs else None
    for _ in range(4):
        if child is None or type(child).__name__ not in passed:
            return child
        if rows is not None and type(child).__name__ == "SelectBackward0":
            rows.add(id(child))
        inputs = child.next_functions
        child = inputs[0][0] if inputs else None
    return child


def _indices(take: Any) -> tuple[int, ...] | None:
    """The indices a select, gather or indexing node took, in order."""
    try:
        name = type(take).__name__
        if name == "SelectBackward0":
            return (int(take._saved_index),)
        if name == "GatherBackward0":
            index = take._saved_index
        else:
            index = next((item for item in reversed(take._saved_indices) if item is not None), None)
        if not isinstance(index, torch.Tensor) or index.numel() > MAX_DRAWN or index.is_floating_point():
            return None
        return tuple(index.flatten().tolist())
    except Exception:  # a node whose saved values were freed, or of another layout
        return None
