"""All rules, discovered from the modules of the `rules` package."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

import trainlint.rules as rules_package
from trainlint.rule import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code; one `Rule` subclass per module."""
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(rules_package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{rules_package.__name__}.{info.name}")
        defined = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule
            and obj.__module__ == module.__name__
        ]
        if len(defined) != 1:
            raise RuntimeError(f"rules/{info.name}.py must define exactly one rule, found {len(defined)}")
        found.append(defined[0])
    codes = [rule.code for rule in found]
    duplicates = {code for code in codes if codes.count(code) > 1}
    if duplicates:
        raise RuntimeError(f"duplicate rule codes: {sorted(duplicates)}")
    return tuple(sorted(found, key=lambda rule: rule.code))


def by_code() -> dict[str, type[Rule]]:
    return {rule.code: rule for rule in all_rules()}


def by_name_or_code(key: str) -> type[Rule] | None:
    key_upper = key.upper()
    for rule in all_rules():
        if rule.code == key_upper or rule.name == key.lower():
            return rule
    return None
