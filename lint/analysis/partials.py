"""Calls of a torch function through `functools.partial`.

`clip = partial(torch.nn.utils.clip_grad_value_, clip_value=1.0)`, then
`clip(model.parameters())`: the call runs the clip. A rule that asks only which
function a call runs (a clip, for the order of clip and step) reads it through
`partial_target`; one that reads the call's arguments reads those the partial
binds too (`keyword_argument`). The partial is followed when the name the call
calls is assigned it once in the file and nothing else.
"""

from __future__ import annotations

import libcst as cst

from trainlint.context import FileContext

PARTIAL = "functools.partial"


def partial_of(ctx: FileContext, call: cst.Call) -> cst.Call | None:
    """The `functools.partial(f, ...)` call `call` calls: its function is a name (or
    `self.name`) assigned that partial once, and nothing else."""
    func = call.func
    if type(func) not in (cst.Name, cst.Attribute):
        return None
    partials = ctx.shared(_partials)
    if not partials:
        return None
    binding = ctx.receivers.binding(func)
    return partials.get(binding) if binding is not None else None  # type: ignore[arg-type]


def partial_parts(ctx: FileContext, call: cst.Call) -> tuple[cst.BaseExpression, list[cst.Arg]] | None:
    """The function and the arguments a `functools.partial(f, ...)` call binds (`f`
    given first and plainly); None for any other call."""
    args = list(call.args)
    if ctx.call_name(call) != PARTIAL or not args or args[0].keyword is not None or args[0].star:
        return None
    return args[0].value, args[1:]


def _partials(ctx: FileContext) -> dict[object, cst.Call]:
    """The variables of the file assigned a `functools.partial(f, ...)` once and
    nothing else, with that call (one look at the file's partials, asked of every call)."""
    made = [node for node in ctx.nodes_of(cst.Call) if ctx.call_name(node) == PARTIAL]  # type: ignore[arg-type]
    if not made:
        return {}
    receivers = ctx.receivers
    found: dict[object, cst.Call] = {}
    for call in made:
        target = ctx.parent(call)
        if type(target) is not cst.Assign or len(target.targets) != 1:
            continue
        binding = receivers.binding(target.targets[0].target)
        if binding is None or binding in found:
            continue
        values = receivers.assigned(binding)
        if len(values) == 1 and values[0] is call and partial_parts(ctx, call) is not None:  # type: ignore[arg-type]
            found[binding] = call  # type: ignore[assignment]
    return found


def partial_target(ctx: FileContext, call: cst.Call) -> str | None:
    """The qualified name of the function `call` runs through a partial (see `partial_of`)."""
    made = partial_of(ctx, call)
    return ctx.qualified_name(made.args[0].value) if made is not None else None


def keyword_argument(ctx: FileContext, call: cst.Call, name: str) -> cst.BaseExpression | None:
    """The value the keyword `name` gets in a call through a partial: the call's own,
    else the partial's."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    made = partial_of(ctx, call)
    for arg in made.args[1:] if made is not None else ():
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None
