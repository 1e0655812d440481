"""When a function computes what it returns with grad off.

A model's `forward` may run its inference path under `torch.no_grad()` itself
(SPADE's `if mode == "inference": with torch.no_grad(): ...`): calling it that
way records no graph, whatever grad mode the caller is in. Read from one
function, kept in its summary (`Summary.no_grad_when`) as plain data:

- `("", "", True)`: always: a `no_grad` / `inference_mode` decorator, or every
  `return` returns a value computed under one;
- `(parameter, constant, default)`: on the branch of a statement of the body
  `if parameter == constant:` (or an `elif` of it) that returns, every
  `return` of the branch doing so; `default`: the parameter's default is that
  constant, so the branch runs when a call leaves the argument out.

What runs before the branch (preparing the inputs) is not looked at.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.literals import constant_text
from trainlint.analysis.loops import lexical_grad_mode
from trainlint.analysis.scopes import argument_slots
from trainlint.context import FileContext
from trainlint.summaries import Summary

NoGradBranch = tuple[str, str, bool]
ALWAYS: NoGradBranch = ("", "", True)


def no_grad_branches(ctx: FileContext, func: cst.FunctionDef) -> tuple[NoGradBranch, ...]:
    """When calling `func` returns values computed with grad off (see the module's docstring)."""
    if _returns_without_grad(ctx, func, func.body, ending=False):
        return (ALWAYS,)
    if type(func.body) is not cst.IndentedBlock:
        return ()
    params = func.params
    defaults = {p.name.value: p.default for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    found: list[NoGradBranch] = []
    for statement in func.body.body:
        branch: cst.CSTNode | None = statement
        while type(branch) is cst.If:
            test = _parameter_equals(branch.test, defaults)
            if test is not None and _returns_without_grad(ctx, func, branch.body, ending=True):
                param, constant = test
                found.append((param, constant, constant_text(defaults[param]) == constant))
            branch = branch.orelse
    return tuple(found)


def runs_without_grad(summary: Summary, call: cst.Call) -> bool:
    """Whether `call`, of the function `summary` describes, returns values computed
    with grad off: always, or its arguments take such a branch. An argument that
    is no constant may take it, and so may any when `*args` hides which is which."""
    if any(arg.star for arg in call.args):
        return bool(summary.no_grad_when)
    passed = summary.bound((slot, arg.value) for slot, arg in argument_slots(call))
    for param, constant, default in summary.no_grad_when:
        value = passed.get(param)
        if not param or (value is None and default) or (
                value is not None and constant_text(value) in (None, constant)):
            return True
    return False


def _parameter_equals(test: cst.BaseExpression, defaults: dict[str, object]) -> tuple[str, str] | None:
    """(parameter, constant) of `parameter == constant` or `constant == parameter`."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if type(target.operator) is not cst.Equal:
        return None
    for name, value in ((test.left, target.comparator), (target.comparator, test.left)):
        constant = constant_text(value)
        if type(name) is cst.Name and name.value in defaults and constant is not None:
            return name.value, constant
    return None


def _returns_without_grad(ctx: FileContext, func: cst.FunctionDef, body: cst.BaseSuite, ending: bool) -> bool:
    """`body` returns at least once, every `return` of it a value computed with grad off;
    `ending`: and it ends in a `return`, so that nothing after it runs."""
    returns = [node for node in ctx.own_nodes(body) if type(node) is cst.Return]
    if not returns or (ending and not _ends_in_return(body)):
        return False
    return all(_computed_without_grad(ctx, func, node) for node in returns)


def _ends_in_return(body: cst.BaseSuite) -> bool:
    statements = body.body if type(body) is cst.IndentedBlock else ()
    last = statements[-1] if statements else None
    if type(last) is cst.With:
        return _ends_in_return(last.body)
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Return


def _computed_without_grad(ctx: FileContext, func: cst.FunctionDef, node: cst.Return) -> bool:
    """The `return` is under no_grad, or returns names (`fake_image`, or a tuple
    of them) that the function binds only under no_grad."""
    if lexical_grad_mode(ctx, node) == "off":
        return True
    value = node.value
    names = [value] if type(value) is cst.Name else [
        element.value for element in value.elements] if type(value) is cst.Tuple else []
    if not names or not all(type(name) is cst.Name for name in names):
        return False
    bindings = dict(_bindings(ctx, func))
    params = func.params
    own_params = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for name in names:
        bound = bindings.get(name.value)  # type: ignore[attr-defined]
        if not bound or name.value in own_params or any(  # type: ignore[attr-defined]
                lexical_grad_mode(ctx, statement) != "off" for statement in bound):
            return False
    return True


def _bindings(ctx: FileContext, func: cst.FunctionDef) -> Iterator[tuple[str, list[cst.CSTNode]]]:
    """Each name the function binds, with the statements that bind it (any binding
    of another kind, `with ... as name`, a loop's target, makes it unknown: empty)."""
    found: dict[str, list[cst.CSTNode]] = {}
    other: set[str] = set()
    for node in ctx.own_nodes(func.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                for name in target_names(target.target):
                    found.setdefault(name, []).append(node)
        elif type(node) in (cst.AnnAssign, cst.AugAssign):
            for name in target_names(node.target):  # type: ignore[attr-defined]
                found.setdefault(name, []).append(node)
        elif type(node) in (cst.For, cst.AsName, cst.NamedExpr):
            other |= target_names(node.target if type(node) is not cst.AsName else node.name)  # type: ignore[attr-defined]
    for name, statements in found.items():
        yield name, [] if name in other else statements
