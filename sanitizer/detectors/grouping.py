"""Grouping parameter names under their owning module for one event per module, and
matching parameters a module replaced with the ones that replaced them."""
from __future__ import annotations

from typing import Any, Iterable


def by_module(names: list[str], owners: list[str | None]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name, owner in zip(names, owners):
        groups.setdefault(owner if owner is not None else name.rpartition(".")[0], []).append(name)
    return groups


def folded(groups: dict[str, list[str]], every: list[str]) -> dict[str, list[str]]:
    """`groups` (module -> its listed parameters) folded into the highest module all of
    whose parameters among `every` are listed: a detached encoder is one group, not
    one per layer. A module whose other parameters are not all listed stays apart."""
    listed = {name for names in groups.values() for name in names}
    complete: dict[str, bool] = {}  # module -> every parameter under it is listed
    for name in every:
        parts = name.split(".")[:-1]
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            complete[prefix] = complete.get(prefix, True) and name in listed
    result: dict[str, list[str]] = {}
    for module, names in groups.items():
        parts = module.split(".") if module else []
        top = next((".".join(parts[:end]) for end in range(1, len(parts)) if complete.get(".".join(parts[:end]))),
                   module)
        result.setdefault(top, []).extend(names)
    return result


def shapes_match(these: Iterable[Any], those: Iterable[Any]) -> bool:
    """Each tensor of `these` has one of `those` of its shape (each used once): the
    new `nn.Parameter`s a module assigned in its forward, and the ones they replaced."""
    left = [tuple(t.shape) for t in those]
    for tensor in these:
        if tuple(tensor.shape) not in left:
            return False
        left.remove(tuple(tensor.shape))
    return True
