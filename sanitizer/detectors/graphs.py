"""Walking autograd graphs: node counts, retained bytes, gradient arrival order."""
from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Iterator

import torch

MAX_NODES = 200_000


def _children(node: Any) -> list[Any]:
    return [child for child, _ in getattr(node, "next_functions", ()) if child is not None]


def walk(roots: Iterable[Any], limit: int = MAX_NODES) -> list[Any]:
    """Nodes reachable from `roots`, breadth first (closest to the roots first)."""
    return list(reachable(roots, limit))


def reachable(roots: Iterable[Any], limit: int = MAX_NODES) -> Iterator[Any]:
    """The same, one at a time: a search that finds what it looks for stops there."""
    seen: set[int] = set()
    kept: list[Any] = []  # keeps each wrapper alive, so ids stay unique during the walk
    queue = deque(root for root in roots if root is not None)
    while queue and len(kept) < limit:
        node = queue.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        kept.append(node)
        yield node
        queue.extend(_children(node))


def gradient_order(roots: Iterable[Any]) -> list[int]:
    """ids of the leaf tensors (parameters) in the order backward reaches them."""
    return [id(node.variable) for node in walk(roots) if hasattr(node, "variable")]


def retained_bytes(tensors: Iterable[torch.Tensor], nodes: Iterable[Any]) -> tuple[int, int]:
    """Bytes of the held tensors plus the tensors that graph nodes still save,
    and of the latter alone (nothing once a backward pass freed them)."""
    storages: dict[int, int] = {}
    saved = _saved_storages(nodes)
    for tensor in tensors:
        _count_storage(tensor, storages)
    storages.update(saved)
    return sum(storages.values()), sum(saved.values())


def _saved_storages(nodes: Iterable[Any]) -> dict[int, int]:
    storages: dict[int, int] = {}
    saved_names: dict[type, list[str]] = {}
    for node in nodes:
        names = saved_names.setdefault(type(node), [n for n in dir(node) if n.startswith("_saved_")])
        for name in names:
            try:
                value = getattr(node, name)
            except RuntimeError:  # already freed by a backward pass
                continue
            if isinstance(value, torch.Tensor):
                _count_storage(value, storages)
    return storages


def _count_storage(tensor: torch.Tensor, storages: dict[int, int]) -> None:
    try:
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    except (RuntimeError, NotImplementedError):
        storages[id(tensor)] = tensor.element_size() * tensor.numel()
