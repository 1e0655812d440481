"""Where a running total or a list of losses goes once it is built: into a
backward pass (a loss being built, not a log), out of its function (whoever
receives it may back-propagate it or call tensor methods on it), or only into
arithmetic, formatting and logging, where a number does as well as a tensor.

Names are dotted names (`total`, `self.losses`) read within one body.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from trainlint.analysis.dataflow import backward_targets, names_in, target_names
from trainlint.analysis.scopes import dotted_name
from trainlint.analysis.training import method_call
from trainlint.analysis.walk import only
from trainlint.context import FileContext

AUTOGRAD_BACKWARD = "torch.autograd.backward"
# calls that only read numbers: their result is not the tensor itself
_READING_BUILTINS = frozenset({"print", "len", "float", "int", "round", "str", "repr", "format", "bool"})
_LOGGING_METHODS = frozenset(
    {"format", "info", "debug", "warning", "write", "add_scalar", "set_postfix", "set_description"}
)
# what turns a tensor into a value without its autograd graph
_DETACHING_METHODS = frozenset({"item", "detach", "tolist", "numpy", "data"})
_DETACHING_BUILTINS = frozenset({"float", "int", "round"})
# libraries whose functions return new values: the result is followed, not the call
_TRANSPARENT_MODULES = ("torch.", "numpy.", "math.", "statistics.")


def consumed_names(ctx: FileContext, body: cst.CSTNode, handed: Iterable[str] = ()) -> set[str]:
    """Names whose values flow into a backward pass in `body`: the receiver
    of `.backward()`, the arguments of `torch.autograd.backward(...)`, the
    names `handed` to a function that back-propagates them, then back through
    assignments (`loss = sum(losses)`) and loops (`for l in losses: l.backward()`)."""
    consumed: set[str] = set(handed)
    for node in only(ctx.subtree(body), cst.Call):
        targets = backward_targets(node)
        if not targets and ctx.call_name(node) == AUTOGRAD_BACKWARD and node.args:  # type: ignore[attr-defined]
            targets = [node.args[0].value]  # type: ignore[attr-defined]
        for target in targets:
            consumed |= names_in(target)
        if targets and method_call(node, "backward") is not None:
            # `accelerator.backward(loss)`, `fabric.backward(loss)`, a DeepSpeed
            # engine's: the loss is the argument (of a tensor's own
            # `.backward(gradient)`, the gradient: counted too, which only spares)
            for arg in node.args:  # type: ignore[attr-defined]
                if arg.keyword is None and not arg.star:
                    consumed |= names_in(arg.value)
    return _closure(consumed, [(bound, read) for bound, read in _sources(ctx, body)])


def _sources(ctx: FileContext, body: cst.CSTNode) -> list[tuple[set[str], set[str]]]:
    """(names bound, names read) for every assignment and `for` of `body`."""
    out: list[tuple[set[str], set[str]]] = []
    for node in only(ctx.subtree(body), cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For):
        if type(node) is cst.Assign:
            bound = set().union(*(_bound(t.target) for t in node.targets))
            out.append((bound, names_in(node.value, ctx)))
        elif type(node) in (cst.AugAssign, cst.AnnAssign) and node.value is not None:
            out.append((_bound(node.target), names_in(node.value, ctx)))
        elif type(node) is cst.For:
            out.append((target_names(node.target), names_in(node.iter, ctx)))
    return out


def _bound(target: cst.BaseExpression) -> set[str]:
    """The names an assignment to `target` gives a value to; an item
    (`losses["mask"] = ...`) gives its container one."""
    if type(target) is cst.Subscript:
        target = target.value
    name = dotted_name(target)
    return {name} if name is not None else target_names(target)


def escapes(ctx: FileContext, body: cst.CSTNode, name: str, skip: set[cst.CSTNode]) -> bool:
    """Whether the value of `name`, or anything computed from it, leaves the
    plain reading of numbers in `body`: it is returned or yielded, stored in
    an attribute, item or container, or passed to a call that may need the
    tensor (anything but printing, formatting, logging and library math).
    Nodes in `skip` (the accumulating statements) are not uses."""
    tracked = _derived(ctx, body, name)
    targets = _target_nodes(ctx, body)
    for node in ctx.subtree(body):
        if node in skip or node in targets:
            continue
        if type(node) in (cst.Return, cst.Yield) and node.value is not None and names_in(node.value) & tracked:
            return True
        if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign) and node.value is not None:
            targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
            if names_in(node.value) & tracked and not all(type(t) is cst.Name for t in targets):
                return True
        if type(node) is cst.Call and not _reads_only(ctx, node):
            if any(names_in(arg.value) & tracked for arg in node.args):
                return True
        if type(node) in (cst.List, cst.Tuple, cst.Dict, cst.Set) and _holds(node, tracked):
            return True
    return False


def needs_tensor(ctx: FileContext, body: cst.CSTNode, name: str) -> bool:
    """Whether code in `body` would break if the total `name` were a Python number:
    an attribute read on it or on anything computed from it (`total.item()`,
    `avg.item()` after `avg = total / n`, `(total / n).item()`), or a torch function
    given it (`torch.exp(total / n)`: torch's functions take tensors, except the
    constructors that make one from a number)."""
    tracked = _derived(ctx, body, name)
    for node in ctx.subtree(body):
        if type(node) is cst.Attribute and names_in(node.value) & tracked:
            return True
        if type(node) is cst.Call and any(names_in(arg.value) & tracked for arg in node.args):
            qualified = ctx.qualified_name(node.func)
            if qualified is not None and qualified.startswith("torch.") and qualified not in _FROM_NUMBERS:
                return True
    return False


# torch functions that accept a Python number where a tensor was
_FROM_NUMBERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})


def _target_nodes(ctx: FileContext, body: cst.CSTNode) -> set[cst.CSTNode]:
    """Unpacking targets (`total, losses = 0, []`): tuples that bind, not hold."""
    out: set[cst.CSTNode] = set()
    for node in ctx.subtree(body):
        if type(node) in (cst.AssignTarget, cst.For, cst.CompFor):
            out.add(node.target)
    return out


def _derived(ctx: FileContext, body: cst.CSTNode, name: str) -> set[str]:
    """`name` and every name assigned from an expression reading it."""
    return _closure({name}, [(read, bound) for bound, read in _sources(ctx, body)])


def returned_names(ctx: FileContext, function: cst.FunctionDef) -> set[str]:
    """Names whose values flow into what `function` returns: read by a
    `return`, then back through assignments, an item stored into a returned
    container included (`losses["mask"] = loss_mask / n; return losses`)."""
    returned: set[str] = set()
    for node in only(ctx.subtree(function.body), cst.Return):
        if node.value is not None:  # type: ignore[attr-defined]
            returned |= names_in(node.value, ctx)  # type: ignore[attr-defined]
    return _closure(returned, _sources(ctx, function.body))


def _closure(names: set[str], edges: list[tuple[set[str], set[str]]]) -> set[str]:
    """`names` grown through `edges` (from, to) until nothing changes: any
    edge whose `from` meets the set adds its `to`."""
    grown = set(names)
    changed = True
    while changed:
        changed = False
        for start, end in edges:
            if start & grown and not end <= grown:
                grown |= end
                changed = True
    return grown


def _reads_only(ctx: FileContext, call: cst.Call) -> bool:
    func = call.func
    if type(func) is cst.Name and func.value in _READING_BUILTINS and ctx.qualified_name(func) is None:
        return True
    if type(func) is cst.Attribute and func.attr.value in _LOGGING_METHODS:
        return True
    qualified = ctx.qualified_name(func)
    return qualified is not None and qualified.startswith(_TRANSPARENT_MODULES)


def _holds(container: cst.List | cst.Tuple | cst.Dict | cst.Set, tracked: set[str]) -> bool:
    values = [element.value for element in container.elements]
    return any(type(v) in (cst.Name, cst.Attribute) and dotted_name(v) in tracked for v in values)


def detaches(expr: cst.BaseExpression) -> bool:
    """`x.item()`, `x.detach().cpu()`, `x.data`, `float(x)`, a number."""
    if type(expr) in (cst.Integer, cst.Float):
        return True
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in _DETACHING_BUILTINS:
        return True
    while type(expr) in (cst.Call, cst.Attribute, cst.Subscript):
        if type(expr) is cst.Attribute and expr.attr.value in _DETACHING_METHODS:
            return True
        expr = expr.func if type(expr) is cst.Call else expr.value
    return False
