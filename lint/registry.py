"""All rules, discovered from the modules of the `rules` package."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable

import trainlint.rules as rules_package
from trainlint.manifest import manifest
from trainlint.rule import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code; one `Rule` subclass per module."""
    modules = [info.name for info in pkgutil.iter_modules(rules_package.__path__) if not info.name.startswith("_")]
    found = [_rule_of(name) for name in modules]
    codes = [rule.code for rule in found]
    duplicates = {code for code in codes if codes.count(code) > 1}
    if duplicates:
        raise RuntimeError(f"duplicate rule codes: {sorted(duplicates)}")
    return tuple(sorted(found, key=lambda rule: rule.code))


@lru_cache(maxsize=None)
def _rule_of(name: str) -> type[Rule]:
    """The one rule that the module `name` of the `rules` package defines."""
    module = importlib.import_module(f"{rules_package.__name__}.{name}")
    defined = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
        and obj.__module__ == module.__name__
    ]
    if len(defined) != 1:
        raise RuntimeError(f"rules/{name}.py must define exactly one rule, found {len(defined)}")
    return defined[0]


def by_code() -> dict[str, type[Rule]]:
    return {rule.code: rule for rule in all_rules()}


def rules_for(codes: Iterable[str]) -> dict[str, type[Rule]]:
    """The rules of `codes` by code, importing only their modules (the
    manifest says which module holds which rule)."""
    modules = {info.code: info.module for info in manifest().rules}
    wanted = set(codes)
    if not wanted <= modules.keys():
        return {code: rule for code, rule in by_code().items() if code in wanted}
    return {code: _rule_of(modules[code]) for code in sorted(wanted)}


def by_name_or_code(key: str) -> type[Rule] | None:
    key_upper = key.upper()
    for rule in all_rules():
        if rule.code == key_upper or rule.name == key.lower():
            return rule
    return None
