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
from trainlint.summaries import GLOBALS_WRITER_WORDS, HIDDEN, OTHER, TORCH, TORCH_EXPORT, UNBOUND, Summary

NAMED_DEFINITIONS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Param})
_TARGET_PARTS = frozenset({cst.Tuple, cst.List, cst.Element, cst.StarredElement})
_TARGETS = frozenset({cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor, cst.Del})


def binds(ctx: SemanticModel, name: cst.Name) -> bool:
    """Whether `name` is bound (or deleted, or declared global) there by
    anything but an import: a target, a parameter, a definition's name,
    `with`/`except ... as`, a match capture, `type name = ...`."""
    child: cst.CSTNode = name
    parent = ctx.parent(name)
    while type(parent) in _TARGET_PARTS:  # `a, *name = ...`, `for (a, name) in ...`
        child, parent = parent, ctx.parent(parent)
    kind = type(parent)
    if kind in _TARGETS:
        return parent.target is child  # type: ignore[union-attr]
    if kind in NAMED_DEFINITIONS or kind in (cst.MatchAs, cst.MatchStar, cst.TypeAlias):
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
    an import of anything else, nor a write to the module's globals by name
    (`writes_globals_dynamically`). Star imports are judged apart."""
    return not (writes_globals_dynamically(ctx)
                or any(node.value == name and binds(ctx, node) for node in ctx.nodes_of(cst.Name))  # type: ignore[attr-defined]
                or any(binds_other_than_torch(alias, ctx.parent(alias), name)  # type: ignore[arg-type]
                       for alias in ctx.nodes_of(cst.ImportAlias)))


_GLOBALS_WRITERS = frozenset({"globals", "exec"})


def writes_globals_dynamically(ctx: SemanticModel) -> bool:
    """Whether the file may bind a global by a name held in a string: it calls
    `globals()` (`globals()["torch"] = ...`, `.update`), `vars()` or `exec`, or
    sets an attribute of a module in `sys.modules` (`setattr(sys.modules[__name__], ...)`).
    Reads count too: telling them from writes is not worth a fix that may be wrong.
    `vars(args)` reads an object's attributes, not the globals."""
    for call in ctx.nodes_of(cst.Call):  # type: ignore[attr-defined]
        callee = dotted_name(call.func)
        if callee in _GLOBALS_WRITERS or (callee == "vars" and not call.args):
            return True
        if callee == "setattr" and call.args and "sys.modules" in ctx.code(call.args[0].value):
            return True
    return False


def torch_export(ctx: SemanticModel) -> str:
    """How the module binds `torch` for a file that star-imports it (see the constants).
    A module-level `__getattr__` may hand a star import anything its `__all__` names, and
    a write to the module's globals by name may add `torch` to them or to `__all__`."""
    names_torch_unbound = _all_names(ctx, "torch") and not _imports_torch_unconditionally(ctx)
    if _defines_module_getattr(ctx) or writes_globals_dynamically(ctx) or names_torch_unbound:
        return OTHER
    if _all_leaves_out(ctx, "torch"):
        return HIDDEN
    if not binds_only_torch(ctx, "torch"):
        return OTHER
    return TORCH if "torch" in ctx.scopes.module_scope.imports else UNBOUND


def _defines_module_getattr(ctx: SemanticModel) -> bool:
    """Whether the module's own block defines `__getattr__` (PEP 562)."""
    return any(type(line) is cst.FunctionDef and line.name.value == "__getattr__" for line in ctx.module.body)


def _all_names(ctx: SemanticModel, name: str) -> bool:
    """Whether a string `name` sits in a list or tuple assigned to `__all__` anywhere."""
    return any(type(target.target) is cst.Name and target.target.value == "__all__"
               and type(statement.value) in (cst.List, cst.Tuple)
               and any(string_value(element.value) == name for element in statement.value.elements)
               for statement in ctx.nodes_of(cst.Assign) for target in statement.targets)  # type: ignore[attr-defined]


def _imports_torch_unconditionally(ctx: SemanticModel) -> bool:
    """Whether a line of the module's own block is `import torch` (or `import torch.x`)."""
    return any(type(small) is cst.Import and any(
        type(alias.asname) is not cst.AsName and (dotted_name(alias.name) or "").split(".")[0] == "torch"
        for alias in small.names)
        for line in ctx.module.body if type(line) is cst.SimpleStatementLine for small in line.body)


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
    dynamic = any(word in ctx.source for word in GLOBALS_WRITER_WORDS)
    found = torch_export(ctx) if "torch" in ctx.source or dynamic else UNBOUND
    return {TORCH_EXPORT: Summary(torch_export=found)} if found != UNBOUND else {}
