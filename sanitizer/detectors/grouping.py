"""Grouping parameter names under their owning module for one event per module."""
from __future__ import annotations


def by_module(names: list[str], owners: list[str | None]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name, owner in zip(names, owners):
        groups.setdefault(owner if owner is not None else name.rpartition(".")[0], []).append(name)
    return groups
