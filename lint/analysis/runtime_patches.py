"""Attributes of torch that a file replaces while it runs, and the modules it runs by
importing them.

A port to another device often swaps PyTorch's API at run time
(`torch.cuda.amp.autocast = npu_autocast`, `setattr(torch.cuda.amp, "GradScaler",
...)`, `torch.cuda.amp = torch.xpu.amp`): code that reads the old name afterwards
calls the replacement. The file that patches tells the project (see
`trainlint.summaries.MODULE_RUN`), so that a file importing it knows too.
"""

from __future__ import annotations

from typing import Callable, Mapping

import libcst as cst

from trainlint.analysis.scopes import dotted_name, import_from_module
from trainlint.project import DYNAMIC_IMPORT_WORDS, member_of
from trainlint.semantic import SemanticModel
from trainlint.summaries import MODULE_RUN, UNKNOWN_PATCHES, Summary

# the statements whose `target` a value is bound to, or deleted from
TARGET_HOLDERS = frozenset({cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del})
_ATTRIBUTE_SETTERS = ("setattr", "delattr", "builtins.setattr", "builtins.delattr")
_AMP_API = ("torch.cuda.amp", "torch.cpu.amp", "torch.amp", "torch.autocast")
_DYNAMIC_IMPORTS = frozenset({
    "__import__", "builtins.__import__", "importlib.__import__", "importlib.import_module",
    "importlib.util.spec_from_file_location", "importlib.util.spec_from_loader", "importlib.util.module_from_spec",
    "importlib.machinery.SourceFileLoader", "runpy.run_path", "runpy.run_module",
})


def torch_names_patched(ctx: SemanticModel, qualify: Callable[[cst.BaseExpression], str | None]) -> frozenset[str]:
    """The qualified names (by `qualify`) of torch's attributes the file assigns or
    deletes (targets of `=`, `+=`, annotated `=` and `del`), and of the objects it
    hands `setattr` or `delattr`, anywhere in it (a function that patches may be called)."""
    found: set[str] = set()
    for node in ctx.nodes_of(cst.Attribute):
        parent = ctx.parent(node)
        if type(parent) in TARGET_HOLDERS and parent.target is node:  # type: ignore[union-attr]
            found.add(qualify(node) or "")  # type: ignore[arg-type]
    for call in ctx.nodes_of(cst.Call):
        func = call.func  # type: ignore[attr-defined]
        # a builtin the file does not rebind has no qualified name
        if (qualify(func) or dotted_name(func)) in _ATTRIBUTE_SETTERS and call.args:  # type: ignore[attr-defined]
            found.add(qualify(call.args[0].value) or "")  # type: ignore[attr-defined]
    return frozenset(name for name in found if name.startswith("torch."))


def dynamic_patches(ctx: SemanticModel, qualify: Callable[[cst.BaseExpression], str | None]) -> frozenset[str]:
    """`UNKNOWN_PATCHES` where the file imports a module other than by an import
    statement (`importlib.import_module("port")`, `__import__(name)`, a spec loaded
    from a file, `runpy`), anywhere in it; else none."""
    if not any(word in ctx.source for word in DYNAMIC_IMPORT_WORDS):
        return frozenset()
    for call in ctx.nodes_of(cst.Call):
        func = call.func  # type: ignore[attr-defined]
        # a builtin the file does not rebind has no qualified name
        if (qualify(func) or dotted_name(func)) in _DYNAMIC_IMPORTS:
            return UNKNOWN_PATCHES
    return frozenset()


def amp_patches(names: frozenset[str]) -> frozenset[str]:
    """Those of `names` that replace AMP's API or a module it is in (`torch.cuda`,
    `torch.cuda.amp`, `torch.cuda.amp.autocast`), not another setting of torch
    (`torch.backends.cudnn.benchmark`)."""
    return frozenset(name for name in names
                     if any(api == name or api.startswith(name + ".") or name.startswith(api + ".") for api in _AMP_API))


def modules_imported(ctx: SemanticModel) -> list[str]:
    """The modules the file's imports may run, as it spells them: `a`, `a.b` of `import
    a.b`; `utils` of `from utils import f`, and `utils.f` too (it may be a module of the
    package); `.amp_patch` of `from . import amp_patch`. Those the module runs as it is
    imported (under an `if` or `try` too) in the order they come, then those in its
    functions, which run later if at all."""
    found: dict[str, None] = {}
    statements = ctx.nodes_of(cst.Import, cst.ImportFrom)
    for node in sorted(statements, key=lambda statement: ctx.enclosing_function(statement) is not None):
        if type(node) is cst.Import:
            for alias in node.names:  # type: ignore[attr-defined]
                parts = (dotted_name(alias.name) or "").split(".")
                found.update(dict.fromkeys(".".join(parts[:end]) for end in range(1, len(parts) + 1)))
            continue
        module = import_from_module(node)  # type: ignore[arg-type]
        found[module] = None
        if type(node.names) is not cst.ImportStar:  # type: ignore[attr-defined]
            found.update(dict.fromkeys(member_of(module, alias.name.value) for alias in node.names  # type: ignore[attr-defined]
                                       if type(alias.name) is cst.Name))
    return [name for name in found if name.strip(".")]


def module_run(ctx: SemanticModel) -> dict[str, Summary]:
    """The module's `MODULE_RUN` fact: the AMP API it replaces (read through its own
    imports alone: what the project tells the file must not change its facts, see
    `reexports_imported`; any, where it imports a module by name, see `dynamic_patches`)
    and the modules it imports, in the order it imports them (see
    `Project._find_search_paths`): what they patch, importing it runs too."""
    def qualify(expr: cst.BaseExpression) -> str | None:
        return SemanticModel.qualified_name(ctx, expr)

    patches = amp_patches(torch_names_patched(ctx, qualify)) | dynamic_patches(ctx, qualify)
    runs = tuple(modules_imported(ctx))
    return {MODULE_RUN: Summary(patches=patches, runs=runs)} if patches or runs else {}


def module_runs(ctx: SemanticModel) -> set[str]:
    """What the file asks the project about the modules it imports (`amp_patch.<module>`),
    where it may use AMP: whatever else those modules do, their patches count."""
    return {member_of(module, MODULE_RUN) for module in modules_imported(ctx)} if "amp" in ctx.source else set()


def patched_by_imports(external: Mapping[str, Summary]) -> frozenset[str]:
    """The attributes of torch that the modules of the project a file imports replace
    when they run (see `module_runs`), as the project tells the file."""
    return frozenset(name for key, summary in external.items() if key.endswith("." + MODULE_RUN)
                     for name in summary.patches)
