"""The code of a function that one call of it runs, when the call fixes a flag.

One epoch function often serves both phases: `def run_epoch(model, loader,
train): model.train() if train else model.eval(); ...; if train:
loss.backward()`. A call that gives the flag a constant (`run_epoch(model,
val_loader, train=False)`, or leaves it to a constant default) never runs the
branches that test it the other way: what that call does is the function
without them, and, where it hands the flag on (`self._run_batch(x, y, train)`),
the functions it calls likewise, under the flags it hands them.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.guards import given_argument
from trainlint.analysis.literals import constant_text
from trainlint.analysis.loops import mode_switch, train_mode_call
from trainlint.analysis.scopes import binds_first_parameter, bound_arguments
from trainlint.context import FileContext

# what a flag holds: a constant as `constant_text` writes it
Flags = dict[str, str]

_FALSE = frozenset({"False", "None", "0", "0.0", "''", '""'})
# how many calls deep a flag handed on is followed
_CALLS_FOLLOWED = 3
_BINDING = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.WithItem)


def flag_parameters(ctx: FileContext, function: cst.FunctionDef, depth: int = 0) -> frozenset[str]:
    """The parameters of `function` that an `if` of its own (statement or expression)
    tests, or that it hands on to such a flag of another function of the file, a few
    calls deep (`self._run_batch(x, y, train)`), and that it never rebinds: the flags a
    call may fix."""
    own = ctx.own_nodes(function.body)
    params = {param.name.value for param in (*function.params.posonly_params, *function.params.params,
                                             *function.params.kwonly_params)}
    tested = {node.value for branch in own if type(branch) in (cst.If, cst.IfExp)
              for node in ctx.subtree(branch.test) if type(node) is cst.Name}  # type: ignore[attr-defined]
    if depth < _CALLS_FOLLOWED:
        # only calls handed a parameter as it is are followed: the rest hand on no flag
        tested |= {given.value for node in own
                   if type(node) is cst.Call and any(type(arg.value) is cst.Name and arg.value.value in params
                                                     for arg in node.args)
                   and (callee := ctx.local_callee(node)) is not None and callee is not function
                   and not callee.decorators
                   for name in flag_parameters(ctx, callee, depth + 1)
                   if type(given := given_argument(node, callee, name)) is cst.Name}
    return frozenset(params & tested - rebound_names(ctx, function))


def fixed_flags(call: cst.Call, function: cst.FunctionDef, params: frozenset[str], held: Flags | None = None
                ) -> Flags:
    """The flags `params` of `function` (see `flag_parameters`) that `call` gives a
    constant: written in the call or, where the call leaves the parameter out (and
    unpacks nothing that may hold it), its constant default; or a flag of the caller's
    that `held` fixes, handed on (`self._run_batch(x, y, train)`)."""
    flags: Flags = {}
    for name in params:
        given = given_argument(call, function, name)
        text = constant_text(given)
        if text is None and held and type(given) is cst.Name:
            text = held.get(given.value)
        if text is not None:
            flags[name] = text
    return flags


class Ran(NamedTuple):
    """A node that a call of a function run under flags runs: the flags it runs under, the
    calls it runs through, outermost first, that hand a flag on (none: the function's own
    node), and what the names of its function stand for in the called function's terms
    (see `in_callers_terms`; None: they are its own)."""

    node: cst.CSTNode
    flags: Flags
    calls: tuple[cst.Call, ...]
    names: dict[str, str] | None


def run_under(ctx: FileContext, function: cst.FunctionDef, flags: Flags,
              flags_of: Callable[[cst.FunctionDef], frozenset[str]], depth: int = 0) -> list[Ran]:
    """The code of `function` that runs under `flags` (see `ruled_out`), and, a few calls
    deep, that of the functions of the file (no decorator) it hands a flag on to, under
    the flags it so fixes (`self._run_batch(x, y, train)` of a `_run_batch(self, x, y,
    train)`). `flags_of`: the flags of a function that a call may fix."""
    found: list[Ran] = []
    for node in ctx.own_nodes(function.body):
        if ruled_out(ctx, node, flags):
            continue
        found.append(Ran(node, flags, (), None))
        callee = ctx.local_callee(node)
        if callee is None or callee.decorators or callee is function or depth >= _CALLS_FOLLOWED:
            continue
        params = flags_of(callee)
        handed = fixed_flags(node, callee, params, flags) if params else {}  # type: ignore[arg-type]
        if not handed:
            continue
        names = _names_handed(ctx, node, callee)  # type: ignore[arg-type]
        found += [Ran(ran.node, ran.flags, (node, *ran.calls), _composed(ran.names, names))  # type: ignore[arg-type]
                  for ran in run_under(ctx, callee, handed, flags_of, depth + 1)]
    return found


def in_callers_terms(ran: Ran, text: str) -> str | None:
    """`text`, an expression as `ran`'s function writes it (`self.model`, `model`), as the
    function first called writes it; None when it starts from a name no call hands on."""
    return text if ran.names is None else _translated(text, ran.names)


def _names_handed(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef) -> dict[str, str]:
    """The parameters of `callee` that `call` hands a name or an attribute, with its code;
    and `self` of a method called on `self` (`self._run_batch(...)`)."""
    binds = binds_first_parameter(ctx, call, callee)
    names = {param: ctx.code(value) for param, value in bound_arguments(call, callee, binds)[0]
             if type(value) in (cst.Name, cst.Attribute)}
    first = next(iter((*callee.params.posonly_params, *callee.params.params)), None)
    receiver = call.func.value if type(call.func) is cst.Attribute else None
    if binds and first is not None and type(receiver) is cst.Name and receiver.value in ("self", "cls"):
        names[first.name.value] = receiver.value
    return names


def _composed(inner: dict[str, str] | None, outer: dict[str, str]) -> dict[str, str]:
    """What the names of a function called further in stand for in the first caller's terms."""
    if inner is None:
        return outer
    return {name: found for name, text in inner.items() if (found := _translated(text, outer)) is not None}


def _translated(text: str, names: dict[str, str]) -> str | None:
    head, dot, rest = text.partition(".")
    return names[head] + dot + rest if head in names else None


def constant_truth(text: str) -> bool:
    """Whether a constant, as `constant_text` writes it, is true."""
    return text not in _FALSE


def rebound_names(ctx: FileContext, function: cst.FunctionDef) -> set[str]:
    """The names `function`'s own code binds (assigns, loops over, enters `with` as)."""
    return {name for node in ctx.own_nodes(function.body) if type(node) in _BINDING for name in _bound_names(node)}


def truth(test: cst.BaseExpression, flags: Flags) -> bool | None:
    """Whether `test` holds while the names of `flags` hold their constants: a flag
    (`train`), its negation, `and` / `or` of such, an equality of a flag with a
    constant (`phase == "train"`, `mode != "eval"`); None when it depends on more."""
    if type(test) is cst.Name and test.value in flags:
        return constant_truth(flags[test.value])
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = truth(test.expression, flags)
        return None if inner is None else not inner
    if type(test) is cst.BooleanOperation:
        left, right = truth(test.left, flags), truth(test.right, flags)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else (True if left is right is True else None)
        return True if True in (left, right) else (False if left is right is False else None)
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        sides = (test.left, comparison.comparator)
        flag = next((side.value for side in sides if type(side) is cst.Name and side.value in flags), None)
        other = next((constant_text(side) for side in sides if constant_text(side) is not None), None)
        if flag is None or other is None or type(comparison.operator) not in (cst.Equal, cst.NotEqual):
            return None
        return (flags[flag] == other) is (type(comparison.operator) is cst.Equal)
    return None


def ruled_out(ctx: FileContext, node: cst.CSTNode, flags: Flags) -> bool:
    """`node` lies, within its function, in a branch that `flags` make the code skip:
    the body of an `if` whose test they make false, its `else` where they make it
    true, an arm of an `if` expression likewise, or the rest of a block after an `if`
    they make true that leaves it (`if not train: continue`)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return False
        if type(ancestor) is cst.IndentedBlock and any(
                _leaves(statement, flags) for statement in ancestor.body[:ancestor.body.index(child)]):
            return True
        if type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test:  # type: ignore[attr-defined]
            held = truth(ancestor.test, flags)  # type: ignore[attr-defined]
            if held is not None and (child is ancestor.body) is not held:  # type: ignore[attr-defined]
                return True
        child = ancestor
    return False


def fixed_mode(ctx: FileContext, node: cst.CSTNode, flags: Flags) -> tuple[cst.BaseExpression, bool] | None:
    """The model `node` switches, and to which mode (True: train), when it runs under
    `flags`: `model.eval()`, `model.train(train)` of a flag, an arm of `model.train()
    if train else model.eval()` that they choose. None for anything else, or a switch
    they leave unknown."""
    switch = mode_switch(ctx, node)
    written = train_mode_call(node)
    if switch is None or written is None or ruled_out(ctx, node, flags):
        return None
    if written[1] is not None:
        return written[0], written[1]
    held = truth(node.args[0].value, flags) if type(node) is cst.Call and node.args else None
    return None if held is None else (written[0], held)


def _leaves(statement: cst.BaseStatement, flags: Flags) -> bool:
    """`statement` is an `if` with no `else`, that `flags` make true, leaving the block."""
    return (type(statement) is cst.If and statement.orelse is None and leaves_block(statement)
            and truth(statement.test, flags) is True)


def leaves_block(statement: cst.If) -> bool:
    """The body of the `if` ends by leaving the block around it (`continue`, `break`,
    `return`, `raise`), on lines of its own or on the `if`'s line."""
    if type(statement.body) is cst.SimpleStatementSuite:  # `if not update: return loss.item()`
        parts = statement.body.body
    else:
        body = statement.body.body
        last = body[-1] if body else None
        parts = last.body if type(last) is cst.SimpleStatementLine else ()
    return bool(parts) and type(parts[-1]) in (cst.Continue, cst.Break, cst.Return, cst.Raise)


def _bound_names(node: cst.CSTNode) -> set[str]:
    if type(node) is cst.Assign:
        return {name for target in node.targets for name in target_names(target.target)}
    if type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
        return target_names(node.target)  # type: ignore[attr-defined]
    asname = node.asname  # type: ignore[attr-defined]
    return target_names(asname.name) if asname is not None else set()
