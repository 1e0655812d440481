"""The code of a function that one call of it runs, when the call fixes a flag.

One epoch function often serves both phases: `def run_epoch(model, loader,
train): model.train() if train else model.eval(); ...; if train:
loss.backward()`. A call that gives the flag a constant (`run_epoch(model,
val_loader, train=False)`, or leaves it to a constant default) never runs the
branches that test it the other way: what that call does is the function
without them.
"""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.guards import given_argument
from trainlint.analysis.literals import constant_text
from trainlint.analysis.loops import mode_switch, train_mode_call
from trainlint.context import FileContext
from trainlint.summaries import constant_truth

# what a flag holds: a constant as `constant_text` writes it
Flags = dict[str, str]

_BINDING = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.WithItem)


def flag_parameters(ctx: FileContext, function: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `function` that an `if` of its own (statement or expression)
    tests and that it never rebinds: the flags a call may fix."""
    tested = {node.value for branch in ctx.own_nodes(function.body) if type(branch) in (cst.If, cst.IfExp)
              for node in ctx.subtree(branch.test) if type(node) is cst.Name}  # type: ignore[attr-defined]
    params = {param.name.value for param in (*function.params.posonly_params, *function.params.params,
                                             *function.params.kwonly_params)}
    return frozenset(params & tested - rebound_names(ctx, function))


def fixed_flags(call: cst.Call, function: cst.FunctionDef, params: frozenset[str]) -> Flags:
    """The flags `params` of `function` (see `flag_parameters`) that `call` gives a
    constant: written in the call or, where the call leaves the parameter out (and
    unpacks nothing that may hold it), its constant default."""
    flags: Flags = {}
    for name in params:
        text = constant_text(given_argument(call, function, name))
        if text is not None:
            flags[name] = text
    return flags


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
