"""Calls of a lambda through the name it is bound to.

`free = lambda: torch.cuda.empty_cache()`, then `free()` in the loop: the call
runs the lambda's body. The lambda is followed when the name is assigned it
once, in the scope that binds the name, and bound to nothing else there (not a
parameter, a loop target, a second assignment).
"""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.precision import assignments
from trainlint.context import FileContext


def called_lambda(ctx: FileContext, call: cst.CSTNode) -> cst.Lambda | None:
    """The lambda a call `name(...)` runs (see the module's docstring)."""
    if type(call) is not cst.Call or type(call.func) is not cst.Name:
        return None
    bound = ctx.shared(_bound_lambdas)
    if not bound:
        return None
    binding = ctx.receivers.binding(call.func)
    return bound.get(binding) if binding is not None else None  # type: ignore[arg-type]


def lambda_calls(lam: cst.Lambda) -> list[cst.Call]:
    """The calls every run of `lam` makes at its top: its body, or each item of a
    tuple or list it is (`lambda: (gc.collect(), torch.cuda.empty_cache())`); not
    one under a condition of its own (`... if low else None`)."""
    body = lam.body
    items = [element.value for element in body.elements] if type(body) in (cst.Tuple, cst.List) else [body]  # type: ignore[attr-defined]
    return [item for item in items if type(item) is cst.Call]


def _bound_lambdas(ctx: FileContext) -> dict[object, cst.Lambda]:
    """The variables of the file bound to one lambda and nothing else, with it
    (one look at the file's lambdas, asked of every call)."""
    found: dict[object, cst.Lambda] = {}
    for lam in ctx.nodes_of(cst.Lambda):
        statement = ctx.parent(lam)
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            continue
        target = statement.targets[0].target
        if type(target) is not cst.Name:
            continue
        scope = ctx.scope_of(target)
        if target.value in scope.imports or any(ctx.scope_of(func) is scope  # also a `def` or an import there
                                                for func in ctx.scopes.functions.get(target.value, ())):
            continue
        values = assignments(ctx, target)
        binding = ctx.receivers.binding(target)
        if binding is not None and values is not None and len(values) == 1 and values[0] is lam:
            found[binding] = lam  # type: ignore[assignment]
    return found
