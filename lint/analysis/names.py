"""Qualified names of expressions, through imports, aliases and re-exports.

`resolve(expr, scope)` answers "which torch API is this?" for `nn.DataParallel`,
`DP` (after `from torch.nn.parallel import DataParallel as DP`) or `ac` (after
`from torch.cuda.amp import autocast as ac`). A name bound locally by anything
but an import (a function of the file, a parameter, an assignment) resolves to
nothing: a local `autocast` is not `torch.autocast`.
"""

from __future__ import annotations

import builtins
from functools import lru_cache

import libcst as cst

from trainlint.analysis.scopes import Scope, dotted_name
from trainlint.project import member_of

# every name Python binds before a module's own: after a star import, Python's unless
# the module imported defines it (`def eval(model, loader)` of a project's utils.py;
# the project knows: see `FileContext.qualified_name`)
BUILTIN_NAMES = frozenset(dir(builtins))

# Where PyTorch exposes one object under several module paths, the public
# spelling a user is told about. Keys are exact names or prefixes ending in ".".
_REEXPORTS: dict[str, str] = {
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.data_parallel.data_parallel": "torch.nn.parallel.data_parallel",
    "torch.nn.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "torch.utils.data.distributed.DistributedSampler": "torch.utils.data.DistributedSampler",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch.utils.data.sampler.": "torch.utils.data.",
    "torch.nn.utils.clip_grad.": "torch.nn.utils.",
    "torch.autocast": "torch.amp.autocast",
    "torch.amp.autocast_mode.": "torch.amp.",
    "torch.amp.grad_scaler.": "torch.amp.",
    "torch.cuda.amp.autocast_mode.": "torch.cuda.amp.",
    "torch.cuda.amp.grad_scaler.": "torch.cuda.amp.",
    "torch.cpu.amp.autocast_mode.": "torch.cpu.amp.",
    "torch.cpu.amp.grad_scaler.": "torch.cpu.amp.",
    "torch.no_grad": "torch.autograd.no_grad",
    "torch.enable_grad": "torch.autograd.enable_grad",
    "torch.inference_mode": "torch.autograd.inference_mode",
    "torch.set_grad_enabled": "torch.autograd.set_grad_enabled",
    "torch.autograd.grad_mode.": "torch.autograd.",
    "torch.distributed.fsdp.fully_sharded_data_parallel.": "torch.distributed.fsdp.",
    "torch.distributed.fsdp._fully_shard.": "torch.distributed.fsdp.",
    "torch.distributed.fsdp._fully_shard._fully_shard.": "torch.distributed.fsdp.",
    "torch.distributed.fsdp.sharded_grad_scaler.": "torch.distributed.fsdp.",
    "torch.cuda.memory.empty_cache": "torch.cuda.empty_cache",
}
_OPTIM_SUBMODULES = (
    "adam", "adamw", "sgd", "adagrad", "adadelta", "adamax", "asgd", "lbfgs",
    "nadam", "radam", "rmsprop", "rprop", "sparse_adam", "adafactor", "optimizer",
)


@lru_cache(maxsize=4096)
def canonical(qualified: str) -> str:
    """The public spelling of a torch name (`torch.nn.parallel.DataParallel` ->
    `torch.nn.DataParallel`)."""
    exact = _REEXPORTS.get(qualified)
    if exact is not None:
        return exact
    for prefix, target in _REEXPORTS.items():
        if prefix.endswith(".") and qualified.startswith(prefix):
            return target + qualified[len(prefix):]
    parts = qualified.split(".")
    # torch.optim.adamw.AdamW -> torch.optim.AdamW
    if len(parts) == 4 and parts[:2] == ["torch", "optim"] and parts[2] in _OPTIM_SUBMODULES:
        return f"torch.optim.{parts[3]}"
    return qualified


def lookup(name: str, scope: Scope, _seen: frozenset[int] = frozenset()) -> set[str]:
    """Every qualified name that `name`, read in `scope`, may refer to."""
    current: Scope | None = scope
    first = True
    while current is not None:
        if current.is_class and not first:
            current = current.parent  # class bodies are not visible from methods
            continue
        first = False
        if name in current.declared_outer:
            current = current.parent
            continue
        found = _lookup_here(name, current, _seen)
        if found is not None:
            return found
        if current.parent is None and name == "torch" and current.star_imports:
            # `from utils import *` where utils.py did `import torch`: a module's `torch`
            # is the package (the name is that of a module no project shadows)
            return {"torch"}
        if current.parent is None and current.star_imports:
            # any of the modules may bind it (the project knows which: see `FileContext`)
            return {member_of(module, name) for module in current.star_imports}
        current = current.parent
    return set()


def _lookup_here(name: str, scope: Scope, seen: frozenset[int]) -> set[str] | None:
    """None when `scope` does not bind `name`; an empty set when it binds it to
    something that is not an import."""
    imported = scope.imports.get(name)
    aliased = scope.aliases.get(name)
    if name in scope.locals:
        return set()
    if imported is None and aliased is None:
        return None
    found = set(imported or ())
    for value in aliased or ():
        if id(value) in seen:
            return set()
        targets = resolve_all(value, scope, seen | {id(value)})
        if not targets:
            return set()  # an alias of something local: local
        found |= targets
    return found


def resolve_all(expr: cst.BaseExpression, scope: Scope, _seen: frozenset[int] = frozenset()) -> set[str]:
    """Every canonical qualified name `expr` may refer to (empty when unknown)."""
    dotted = dotted_name(expr)
    if dotted is None:
        return set()
    head, _, rest = dotted.partition(".")
    bases = lookup(head, scope, _seen)
    suffix = f".{rest}" if rest else ""
    return {canonical(base + suffix) for base in bases}


def resolve(expr: cst.BaseExpression, scope: Scope) -> str | None:
    """The canonical qualified name of `expr` when every binding agrees, else None."""
    names = resolve_all(expr, scope)
    if len(names) == 1:
        return next(iter(names))
    return None
