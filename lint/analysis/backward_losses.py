"""Where the tensor a `backward()` call back-propagates was computed.

`backward()` raises when its tensor was computed with gradients off: no graph
was recorded. Whether it was is known here only for a tensor computed in the
function holding the call: an expression evaluated at the call, or a variable
every assignment of the function gives it. Also what a function's flags must hold
for such a backward, or a call on the way to one, to run (`Summary.computed_backwards`,
`Call.gate`).
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst

from trainlint.analysis.guards import parameter_default
from trainlint.analysis.literals import constant_text
from trainlint.analysis.loops import GradMode, is_backward, lexical_grad_mode
from trainlint.analysis.phases import leaves_block, rebound_names
from trainlint.analysis.precision import assignments, module_constant
from trainlint.analysis.scopes import argument_slots, dotted_name
from trainlint.analysis.training import method_call
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.summaries import Given, Needs

# objects whose `.backward(loss)` back-propagates its argument
_BACKWARD_RUNNERS = ("accelerator", "fabric", "engine")


def backward_target(call: cst.Call) -> cst.BaseExpression | None:
    """`X` of `X.backward()`, or `loss` of `accelerator.backward(loss)`."""
    receiver = method_call(call, "backward")
    if receiver is None:
        return None
    runner = dotted_name(receiver)
    if runner is not None and runner.rsplit(".", 1)[-1].lower().endswith(_BACKWARD_RUNNERS):
        return call.args[0].value if call.args and call.args[0].keyword is None else None
    return receiver


def computed_here(ctx: FileContext, call: cst.Call, mode: GradMode | None) -> bool:
    """Whether the tensor `call` back-propagates was computed in the function holding
    it (or the module's own code) under the grad mode `mode` set within it (None:
    none of its own): an expression evaluated at the call (`criterion(out, y)`, `loss
    / n`, `scaler.scale(loss)`), or a variable every assignment of the function gives
    it so. A variable computed elsewhere (a parameter, a loss returned by a helper)
    is not: it may carry its graph, and `backward()` itself works under `no_grad`."""
    target = backward_target(call)
    if target is None:
        return False
    name = dotted_name(target)
    if name is None:
        return True
    body = ctx.enclosing_function(call) or ctx.module
    assignments = [node for node in iter_nodes(body) if _assigns(node, name)]
    return bool(assignments) and all(lexical_grad_mode(ctx, a) == mode for a in assignments)


def _assigns(node: cst.CSTNode, name: str) -> bool:
    if type(node) is cst.Assign:
        return any(dotted_name(t.target) == name for t in node.targets)
    if type(node) in (cst.AugAssign, cst.AnnAssign):
        return dotted_name(node.target) == name  # type: ignore[attr-defined]
    return False


def own_backwards(ctx: FileContext, function: cst.FunctionDef, params: tuple[str, ...]) -> tuple[Needs, ...]:
    """`Summary.computed_backwards`: for each `backward()` of `function` on a tensor it
    computes itself, with no grad mode of its own around either (nor a decorator that
    may set one), what its flags must hold for it to run: (param, truth, the param's
    default as `constant_text` writes it, else "") for each `if param:` / `if not
    param:` around it, or before it leaving its block (`if not train: return`). A
    backward under any other condition is left out: the caller cannot tell."""
    if "backward" not in ctx.code(function):
        return ()
    flags = function_flags(ctx, function, params)
    found: dict[Needs, None] = {}
    for node in ctx.own_nodes(function.body):
        if type(node) is cst.Call and is_backward(node) and computed_here(ctx, node, None):
            needs = runs_when(ctx, node, flags)
            if needs is not None:
                found[needs] = None
    return tuple(found)


def function_flags(ctx: FileContext, function: cst.FunctionDef, params: tuple[str, ...]) -> dict[str, str]:
    """The params of `function` it never rebinds, each with its default as `constant_text`
    writes it, else "": the flags its callers' constants may fix."""
    rebound = rebound_names(ctx, function)
    return {param: constant_text(parameter_default(function, param)) or "" for param in params
            if param not in rebound}


def runs_when(ctx: FileContext, node: cst.CSTNode, flags: Mapping[str, str]) -> Needs | None:
    """What `flags` (see `function_flags`) must hold for `node` to run on a call of its
    function: the `Needs` of `Summary.computed_backwards`; None under a grad mode of the
    function's own or a test of anything else."""
    if lexical_grad_mode(ctx, node) is not None:
        return None
    needs = _requirements(ctx, node, frozenset(flags))
    return None if needs is None else tuple(sorted({(param, held, flags[param]) for param, held in needs}))


def given_slots(call: cst.Call, flags: Mapping[str, str], ctx: FileContext | None = None) -> Given:
    """What `call` gives each slot of its callee (see `Given`): a flag of `flags` (see
    `function_flags`) handed unchanged, or a constant; with `ctx`, also one held in a
    name the caller binds to it alone (`use_amp = True`, then `amp=use_amp`)."""
    given = [(slot, arg.value.value, flags[arg.value.value])
             if type(arg.value) is cst.Name and arg.value.value in flags
             else (slot, "", _argument_constant(ctx, arg.value) or "") for slot, arg in argument_slots(call)]
    return (*given, ("*", "", "")) if any(arg.star for arg in call.args) else tuple(given)


def _argument_constant(ctx: FileContext | None, value: cst.BaseExpression) -> str | None:
    """`constant_text` of an argument, or with `ctx` of the one value every `name = ...`
    of the scope it is read in gives the name it is (none bound otherwise: see
    `assignments`), or of the module's constant it reads (see `module_constant`)."""
    text = constant_text(value)
    if text is not None or ctx is None or type(value) is not cst.Name:
        return text
    held = assignments(ctx, value)
    if held == []:
        return constant_text(module_constant(ctx, value))
    return constant_text(held[0]) if held is not None and len(held) == 1 else None


def _requirements(ctx: FileContext, node: cst.CSTNode, flags: frozenset[str]) -> list[tuple[str, bool]] | None:
    """The (flag, truth) pairs the `if`s around `node`, and those leaving a block before
    it, need for it to run; None where one tests anything else."""
    needs: list[tuple[str, bool]] = []
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.FunctionDef:
            return needs
        if type(ancestor) in (cst.Lambda, cst.IfExp, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
            return None
        if type(ancestor) in (cst.Try, cst.TryStar) and ancestor.handlers:  # type: ignore[attr-defined]
            return None  # `except RuntimeError:` may catch what the backward raises under no_grad
        if type(ancestor) is cst.If and child is not ancestor.test:
            test = flag_test(ancestor.test, flags)
            if test is None:
                return None
            needs.append((test[0], test[1] is (child is ancestor.body)))
        if type(ancestor) is cst.IndentedBlock:
            for statement in ancestor.body[:ancestor.body.index(child)]:
                if type(statement) is cst.If and leaves_block(statement):
                    test = flag_test(statement.test, flags)
                    if test is None or statement.orelse is not None:
                        return None
                    needs.append((test[0], not test[1]))
        child = ancestor
    return needs


def flag_test(test: cst.BaseExpression, flags: frozenset[str]) -> tuple[str, bool] | None:
    """(flag, True) of `if flag:`, (flag, False) of `if not flag:`; None for any other test."""
    if type(test) is cst.Name and test.value in flags:
        return test.value, True
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = flag_test(test.expression, flags)
        return (inner[0], not inner[1]) if inner is not None else None
    return None
