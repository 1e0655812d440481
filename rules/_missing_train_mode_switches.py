"""When a switch to eval mode is made for validation, with training going on after it
(after a backward of the same iteration, every N steps), and when it is none or is
undone: BatchNorm layers frozen on purpose, a mode saved and put back, a loop that
puts every item of a container of models back in train mode, a method that calls
`.train()` itself."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.flowgraph import EXIT_TYPES
from trainlint.analysis.guards import tests_a_remainder
from trainlint.analysis.loops import is_backward, item_container, mode_switch, reachable_nodes
from trainlint.analysis.scopes import dotted_name
from trainlint.analysis.training import method_call
from trainlint.context import FileContext
from trainlint.summaries import BACKWARD, TRAIN


def after_backward_in_a_loop(ctx: FileContext, node: cst.CSTNode, depth: int = 0) -> bool:
    """`node` runs in a loop's iteration after a statement of that iteration that
    back-propagates (`train_one_epoch(...)` then `validate(...)` in the epoch loop),
    in its function or, through a call site, in a caller's (a few calls up)."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.For, cst.While) and type(ancestor.body) is cst.IndentedBlock:
            at = ctx.order_index(node)
            for statement in ancestor.body.body:
                if ctx.order_index(statement) <= at <= ctx.subtree_end(statement):
                    break
                if _back_propagates_in(ctx, statement):
                    # unless the iteration puts the model back in train mode after it
                    return not _restores_after(ctx, node, ancestor.body)
        elif type(ancestor) is cst.FunctionDef:
            return depth < 3 and any(after_backward_in_a_loop(ctx, site, depth + 1)
                                     for site in ctx.call_sites(ancestor))
        elif type(ancestor) in (cst.ClassDef, cst.Lambda):
            return False
    return False


def _restores_after(ctx: FileContext, node: cst.CSTNode, body: cst.CSTNode) -> bool:
    """A `.train()` of `body` runs after `node` (`model.eval(); validate(); model.train()`)."""
    at = ctx.order_index(node)
    for later in ctx.subtree(body):
        if ctx.order_index(later) <= at or type(later) is not cst.Call:
            continue
        mode = mode_switch(ctx, later)
        if mode is not None and mode[1] is not False:
            return True
        summary = ctx.summaries.of_call(later)  # type: ignore[arg-type]
        if summary is not None and summary.does(TRAIN):
            return True
    return False


def _back_propagates_in(ctx: FileContext, statement: cst.CSTNode) -> bool:
    for node in ctx.subtree(statement):
        if is_backward(node):
            return True
        if type(node) is cst.Call:
            summary = ctx.summaries.of_call(node)  # type: ignore[arg-type]
            if summary is not None and summary.does(BACKWARD):
                return True
    return False


def every_n_steps(ctx: FileContext, node: cst.CSTNode, depth: int = 0) -> bool:
    """`node` runs under an `if` of the loop around it that tests a remainder
    (`step % N == 0`), in this function or at a call site of it, and that `if`
    does not put a model back in train mode itself (its validation restores
    the mode; a backward inside it is part of the validation)."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.If and tests_a_remainder(ancestor.test):
            return not any(mode[1] is not False for mode in (mode_switch(ctx, n) for n in reachable_nodes(
                ctx, ancestor.body)) if mode is not None)
        if type(ancestor) in (cst.For, cst.While, cst.Lambda, cst.ClassDef):
            return False
        if type(ancestor) is cst.FunctionDef:
            return depth < 3 and any(every_n_steps(ctx, site, depth + 1)
                                     for site in ctx.call_sites(ancestor))
    return False


_LAYER_WALKS = ("modules", "named_modules", "children", "named_children")


def one_of_its_layers(ctx: FileContext, node: cst.CSTNode, receiver: cst.BaseExpression) -> bool:
    """`m.eval()` where `m` is a loop variable over a model's layers
    (`for m in model.modules(): if isinstance(m, nn.BatchNorm2d): m.eval()`): some
    layers put in eval mode while the rest trains, never the switch to validation."""
    if type(receiver) is not cst.Name:
        return False
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return False
        if type(ancestor) is cst.For and receiver.value in target_names(ancestor.target):
            return type(ancestor.iter) is cst.Call and method_call(ancestor.iter, *_LAYER_WALKS) is not None
    return False


def mode_saved_and_restored(ctx: FileContext, node: cst.CSTNode, receiver: cst.BaseExpression) -> bool:
    """`model.eval()` after its function saved the mode (`was_training = model.training`)
    and before it puts it back with `if was_training: model.train()` (also in a
    `finally:`): where the saved mode was eval, the call changed nothing; where it was
    train, the model goes back to it. The eval leaves the mode the model came in with."""
    function = ctx.enclosing_function(node)
    if function is None:
        return False
    model, at = ctx.code(receiver), ctx.order_index(node)
    saved = {target.target.value for assign in ctx.subtree(function.body)
             if type(assign) is cst.Assign and ctx.order_index(assign) < at
             and ctx.enclosing_function(assign) is function
             and type(assign.value) is cst.Attribute and assign.value.attr.value == "training"
             and ctx.code(assign.value.value) == model
             for target in assign.targets if type(target.target) is cst.Name}
    return bool(saved) and any(
        type(branch) is cst.If and ctx.order_index(branch) > at and type(branch.test) is cst.Name
        and branch.test.value in saved and ctx.enclosing_function(branch) is function
        and any(mode is not None and mode[1] is not False and ctx.code(mode[0]) == model
                for mode in (mode_switch(ctx, inner) for inner in ctx.subtree(branch.body)))
        and _always_reached_after(ctx, node, branch, function)
        for branch in ctx.subtree(function.body))


def _always_reached_after(ctx: FileContext, node: cst.CSTNode, restore: cst.CSTNode,
                          function: cst.FunctionDef) -> bool:
    """`restore` runs whenever `node` did: a statement of a block around `node` after
    it, with no `return`, `raise`, `break` or `continue` written between them, or the
    `finally:` of a `try` that holds `node` (or follows it so)."""
    holder = ctx.parent(restore)
    if type(holder) is cst.IndentedBlock and type(ctx.parent(holder)) is cst.Finally:
        attempt = ctx.parent(ctx.parent(holder))
        if any(a is attempt for a in ctx.ancestors(node)):
            return True
        holder, restore = ctx.parent(attempt), attempt  # a `try` after it: judged as a statement
    if not any(a is holder for a in ctx.ancestors(node)):
        return False  # under another condition (`if epoch > 10: if was_training: ...`), in an `except`
    start, end = ctx.order_index(node), ctx.order_index(restore)
    return not any(start < ctx.order_index(exit) < end and ctx.enclosing_function(exit) is function
                   for exit in ctx.nodes_of(*EXIT_TYPES))


def each_item_put_back(ctx: FileContext, loop: cst.For | cst.While) -> str | None:
    """The container, as written, whose items `loop` runs over when every iteration
    puts its item back in train mode (`for key in models: models[key].train()`, `for m
    in models.values(): m.train()`; ParallelWaveGAN's trainer keeps its generator and
    discriminator in a dict)."""
    found = _items_of_container(loop) if type(loop) is cst.For else None
    if found is None:
        return None
    container, items = found
    for node in ctx.subtree(loop.body):
        mode = mode_switch(ctx, node)
        if (mode is not None and mode[1] is not False and _item_written(mode[0]) in items
                and _every_iteration(ctx, node, loop)):
            return container
    return None


def _items_of_container(loop: cst.For) -> tuple[str, set[str]] | None:
    """For a loop over a container's keys, values or items (`for key in models:`,
    `models.keys()`, `for m in models.values()`, `for key, m in models.items()`): the
    container and how the body writes the item of an iteration (`models[key]`, `m`)."""
    target, iterable = loop.target, loop.iter
    method = iterable.func.attr.value if type(iterable) is cst.Call and type(iterable.func) is cst.Attribute \
        and not iterable.args else None
    container = iterable.func.value if method in ("keys", "values", "items") else iterable  # type: ignore[union-attr]
    written = dotted_name(container)
    if written is None:
        return None
    if method == "keys" and type(target) is cst.Name:
        return written, {f"{written}[{target.value}]"}
    if method is None and type(target) is cst.Name:  # a dict's keys, or a list's models
        return written, {f"{written}[{target.value}]", target.value}
    if method == "values" and type(target) is cst.Name:
        return written, {target.value}
    names = [element.value for element in target.elements] if type(target) in (cst.Tuple, cst.List) else []  # type: ignore[union-attr]
    if method == "items" and len(names) == 2 and all(type(name) is cst.Name for name in names):
        return written, {f"{written}[{names[0].value}]", names[1].value}  # type: ignore[attr-defined]
    return None


def _item_written(receiver: cst.BaseExpression) -> str | None:
    """`m`, or `models[key]`, spelled as `_items_of_container` spells them."""
    if type(receiver) is not cst.Subscript:
        return dotted_name(receiver)
    index = receiver.slice[0].slice if len(receiver.slice) == 1 else None
    container = dotted_name(receiver.value)
    if type(index) is not cst.Index or type(index.value) is not cst.Name or container is None:
        return None
    return f"{container}[{index.value.value}]"


def _every_iteration(ctx: FileContext, node: cst.CSTNode, loop: cst.For) -> bool:
    """`node` runs in every iteration of `loop`: a statement of its body (or of a `with`
    in it), with no `return`, `raise`, `break` or `continue` written before it there."""
    for ancestor in ctx.ancestors(node):
        if ancestor is loop:
            break
        if type(ancestor) not in _EVERY_TIME:
            return False
    at = ctx.order_index(node)
    return not any(type(exit) in EXIT_TYPES and ctx.order_index(exit) < at for exit in ctx.subtree(loop.body))


# what holds a call that runs whenever the block around it does
_EVERY_TIME = (cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine, cst.Expr, cst.Assign,
               cst.With, cst.Attribute, cst.Call, cst.Arg)


def container_switched(ctx: FileContext, eval_node: cst.CSTNode) -> str | None:
    """The container, as written, of the item `eval_node` puts in eval mode
    (`models` of `models["g"].eval()` or `models[key].eval()`)."""
    mode = mode_switch(ctx, eval_node)
    if mode is None or type(mode[0]) is not cst.Subscript:
        return None
    return dotted_name(item_container(mode[0]))


def train_mode_methods(ctx: FileContext) -> tuple[str, ...]:
    """Names of methods, each the file's only function of that name, whose own
    body calls `.train()` / `.train(True)` (not `train` or `eval` themselves)."""
    restoring: set[str] = set()
    for call in ctx.nodes_of(cst.Call):
        mode = mode_switch(ctx, call)
        if mode is None or mode[1] is False:
            continue
        method = ctx.enclosing_function(call)
        if (method is not None and method.name.value not in ("train", "eval")
                and len(ctx.scopes.functions.get(method.name.value, ())) == 1
                and type(ctx.parent(ctx.parent(method))) is cst.ClassDef):
            restoring.add(method.name.value)
    return tuple(sorted(restoring))
