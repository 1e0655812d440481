"""What a module binds the name `torch` to, for the files that star-import it.

`from models import *` binds every public name of `models`, `torch` included
when `models` imports it. A fix that spells `torch.amp.autocast` is safe only
where the star import leaves `torch` the module torch: `models` binds it by
`import torch` alone, or not at all, or keeps it out of its `__all__`. The
module tells the project (`TORCH_EXPORT` in its facts), and the project
follows its own star imports (`Project.torch_exported`).
"""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import dotted_name
from trainlint.project import member_of
from trainlint.semantic import SemanticModel
from trainlint.summaries import HIDDEN, OTHER, TORCH, TORCH_EXPORT, UNBOUND, Summary

NAMED_DEFINITIONS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Param})
_TARGET_PARTS = frozenset({cst.Tuple, cst.List, cst.Element, cst.StarredElement})
_TARGETS = frozenset({cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor, cst.Del})


def binds(ctx: SemanticModel, name: cst.Name) -> bool:
    """Whether `name` is bound (or deleted, or declared global) there by
    anything but an import: a target, a parameter, a definition's name,
    `with`/`except ... as`, a match capture."""
    child: cst.CSTNode = name
    parent = ctx.parent(name)
    while type(parent) in _TARGET_PARTS:  # `a, *name = ...`, `for (a, name) in ...`
        child, parent = parent, ctx.parent(parent)
    kind = type(parent)
    if kind in _TARGETS:
        return parent.target is child  # type: ignore[union-attr]
    if kind in NAMED_DEFINITIONS or kind in (cst.MatchAs, cst.MatchStar):
        return parent.name is child  # type: ignore[union-attr]
    if kind is cst.MatchMapping:
        return parent.rest is child  # type: ignore[union-attr]
    if kind is cst.AsName:
        return type(ctx.parent(parent)) is not cst.ImportAlias  # imports are judged apart
    return kind is cst.NameItem  # `global name`, `nonlocal name`


def binds_other_than_torch(alias: cst.ImportAlias, statement: cst.CSTNode | None, name: str) -> bool:
    """Whether this alias of an import binds `name` to anything but torch
    (`import numpy as torch`, `from backend import torch`, `import torch.cuda as torch`)."""
    module = dotted_name(alias.name) or ""
    if alias.asname is not None:
        local = alias.asname.name.value if type(alias.asname.name) is cst.Name else None
    else:
        local = module.split(".")[0] if type(statement) is cst.Import else module
    if local != name:
        return False
    if type(statement) is not cst.Import:
        return True
    return module != "torch" and (alias.asname is not None or not module.startswith("torch."))


def binds_only_torch(ctx: SemanticModel, name: str) -> bool:
    """Whether nothing in the file binds `name` but `import torch` (`torch.x`, `torch
    as name`): no parameter, assignment, loop, walrus, `del`, `global`, definition, nor
    an import of anything else. Star imports are judged apart."""
    return not (any(node.value == name and binds(ctx, node) for node in ctx.nodes_of(cst.Name))  # type: ignore[attr-defined]
                or any(binds_other_than_torch(alias, ctx.parent(alias), name)  # type: ignore[arg-type]
                       for alias in ctx.nodes_of(cst.ImportAlias)))


def torch_export(ctx: SemanticModel) -> str:
    """How the module binds `torch` for a file that star-imports it (see the constants)."""
    if _all_leaves_out(ctx, "torch"):
        return HIDDEN
    if not binds_only_torch(ctx, "torch"):
        return OTHER
    return TORCH if "torch" in ctx.scopes.module_scope.imports else UNBOUND


def _all_leaves_out(ctx: SemanticModel, name: str) -> bool:
    """The module's `__all__` is only ever assigned lists or tuples of strings without
    `name`, by lines of the module's own block (not under an `if` that may skip them),
    and read nowhere else (no `__all__ += ...`, `__all__.append(...)`)."""
    uses = [node for node in ctx.nodes_of(cst.Name) if node.value == "__all__"]  # type: ignore[attr-defined]
    if not uses:
        return False
    for node in uses:
        target = ctx.parent(node)
        statement = ctx.parent(target) if type(target) is cst.AssignTarget else None
        line = ctx.parent(statement) if type(statement) is cst.Assign else None
        if line is None or type(ctx.parent(line)) is not cst.Module:
            return False
        value = statement.value  # type: ignore[attr-defined]
        if type(value) not in (cst.List, cst.Tuple):
            return False
        names = [string_value(element.value) for element in value.elements]  # type: ignore[attr-defined]
        if any(item is None or item == name for item in names) or any(
                type(element) is not cst.Element for element in value.elements):  # type: ignore[attr-defined]
            return False
    return True


def star_questions(ctx: SemanticModel) -> set[str]:
    """What the file asks the project about the modules outside torch it star-imports
    (`models.<torch>`), where it may use AMP: how each binds `torch`."""
    if "amp" not in ctx.source:
        return set()
    return {member_of(module, TORCH_EXPORT) for module in ctx.scopes.module_scope.star_imports
            if module.split(".")[0] != "torch"}


def module_facts(ctx: SemanticModel) -> dict[str, Summary]:
    """The module's `TORCH_EXPORT` fact, where it binds `torch` or hides it."""
    found = torch_export(ctx) if "torch" in ctx.source else UNBOUND
    return {TORCH_EXPORT: Summary(torch_export=found)} if found != UNBOUND else {}
