"""What one iteration of a loop does itself, as opposed to what loops nested
in it do: the difference between a step loop and an epoch loop."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from trainlint.analysis.accumulators import consumed_names
from trainlint.analysis.dataflow import iterated_loader
from trainlint.analysis.loops import hands_an_optimizer, is_backward, optimizer_step, steps_loop_variable
from trainlint.analysis.receivers import DATALOADER, OPTIMIZER, constructor_kind
from trainlint.analysis.scopes import dotted_name
from trainlint.context import FileContext
from trainlint.summaries import BACKWARD, LOOP, STEP

_NESTED = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes under `root` that run once per run of `root`: the bodies of
    nested loops, functions, classes and lambdas are left out (a nested
    loop's header, which runs once, is kept)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if type(node) is cst.For:
            stack.extend(reversed([node.target, node.iter]))
            continue
        if type(node) is cst.While:
            stack.append(node.test)
            continue
        if node is not root and isinstance(node, _NESTED):
            continue
        stack.extend(reversed(list(node.children)))


def trains(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` back-propagates or steps an optimizer."""
    return is_backward(node) or optimizer_step(ctx, node) is not None


def steps_each_iteration(ctx: FileContext, loop: cst.For | cst.While) -> bool:
    """Whether each iteration of `loop` itself trains: its body, outside any
    nested loop, back-propagates or steps an optimizer, directly or through
    a called function (of this file or the project) that does so without a
    loop of its own. A step loop with a micro-batch loop inside steps each
    iteration, and so does one whose step is a loop over its parts (a GAN's
    `for module, opt in phases:`); an epoch loop whose batches are an inner
    loop (or a `train_one_epoch` call), or a loop over loggers, does not."""
    return trains_each_run(ctx, loop.body) or (type(loop) is cst.For and _steps_its_items(ctx, loop))


def trains_each_run(ctx: FileContext, body: cst.CSTNode) -> bool:
    """Whether each run of `body` trains itself (see `steps_each_iteration`)."""
    for node in own_nodes(body):
        if trains(ctx, node):
            return True
        if type(node) is cst.For and node is not body and _steps_its_items(ctx, node):
            return True
        if type(node) is cst.Call:
            summary = ctx.summaries.of_call(node)
            if summary is not None and not summary.does(LOOP) and (summary.does(STEP) or summary.does(BACKWARD)):
                return True
    return False


# what may stand between a statement and the loop's body while it still runs on every iteration
_EVERY_TIME = (cst.IndentedBlock, cst.SimpleStatementLine, cst.Try, cst.With, cst.Assign, cst.AssignTarget)


def builds_its_model_each_iteration(ctx: FileContext, loop: cst.For | cst.While) -> bool:
    """Each iteration of `loop` builds afresh, unconditionally, a model it back-propagates
    (an instance of a class of the project, `model = GPTModel(cfg).to(device)`), and every
    optimizer it steps: its iterations are separate runs (a batch-size probe, a timing per
    configuration), not steps of one training. A model built only on some iterations
    (lazily, under an `if`), or a fresh head on a backbone whose optimizer carries on, is
    not; nor is a step through a helper, which may step anything."""
    models: set[str] = set()
    optimizers: set[str] = set()
    for node in own_nodes(loop.body):
        if type(node) is not cst.Assign or len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
            continue
        if any(type(a) not in _EVERY_TIME for a in _ancestors_below(ctx, node, loop.body)):
            continue
        name = node.targets[0].target.value  # type: ignore[attr-defined]
        if ctx.summaries.targets.construction(node.value) is not None:
            models.add(name)
        elif type(node.value) is cst.Call and constructor_kind(ctx.call_name(node.value)) == OPTIMIZER:
            optimizers.add(name)
    if not models & consumed_names(ctx, loop.body, graph_only=True):
        return False
    built = models | optimizers
    for node in own_nodes(loop.body):
        stepped = optimizer_step(ctx, node)
        if stepped is not None and not (type(stepped) is cst.Name and stepped.value in built):
            return False
        if type(node) is cst.Call and node is not loop.body:
            summary = ctx.summaries.of_call(node)
            if summary is not None and summary.does(STEP):
                return False
    return True


def _ancestors_below(ctx: FileContext, node: cst.CSTNode, root: cst.CSTNode) -> list[cst.CSTNode]:
    """The ancestors of `node` strictly below `root`."""
    found = []
    for ancestor in ctx.ancestors(node):
        if ancestor is root:
            return found
        found.append(ancestor)
    return found


def _steps_its_items(ctx: FileContext, loop: cst.For) -> bool:
    """A loop over the parts of one training step, each back-propagated and stepped
    in turn (`for module, opt in phases:`, see `steps_loop_variable`). A part may
    back-propagate its micro-batches in a loop of its own, then step once (StyleGAN2-ADA's
    phases); a part that steps only inside a nested loop trains for a whole phase."""
    own = list(own_nodes(loop.body))
    if any(is_backward(node) for node in own):
        return steps_loop_variable(loop)
    if not steps_loop_variable(loop, own):
        return False
    # the micro-batches of this step's batch, back-propagated in place or by a helper;
    # not a loop over a whole loader (full-batch descent: each part is a whole pass)
    return any(type(inner) in (cst.For, cst.While) and not _over_a_loader(ctx, inner)
               and any(_back_propagates(ctx, node) for node in ctx.subtree(inner.body))
               for inner in own if inner is not loop.body)


def _back_propagates(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` back-propagates, itself or through a function it calls that does not step."""
    if is_backward(node):
        return True
    summary = ctx.summaries.of_call(node) if type(node) is cst.Call else None
    return summary is not None and summary.does(BACKWARD) and not summary.does(STEP)


def _over_a_loader(ctx: FileContext, loop: cst.CSTNode) -> bool:
    """`loop` iterates a DataLoader or something named for one or for a data set."""
    if type(loop) is not cst.For:
        return False
    iterable = iterated_loader(ctx, loop.iter)
    if type(iterable) is cst.Call and not ctx.receivers.is_kind(iterable, DATALOADER):
        if type(iterable.func) is cst.Name and iterable.func.value == "zip":  # `zip(loader_a, loader_b)`
            return any(_names_a_loader(ctx, arg.value) for arg in iterable.args)
        iterable = iterable.func  # `loader_fn()`
    return _names_a_loader(ctx, iterable)


def _names_a_loader(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    """A DataLoader, or a name made for one or for a data set (`train_loader`, `train_dl`)."""
    if ctx.receivers.is_kind(expr, DATALOADER):
        return True
    name = (dotted_name(expr) or "").rsplit(".", 1)[-1].lower()
    return any(word in name for word in ("loader", "dataset")) or name == "dl" or name.endswith("_dl")


def file_trains(ctx: FileContext) -> bool:
    """The file back-propagates or steps an optimizer somewhere, itself or through a
    function it calls: a file that never does (inference, a demo, the accuracy of
    validation sets, one pass for normalisation statistics) feeds no training."""
    return ctx.shared(_file_trains)


def _file_trains(ctx: FileContext) -> bool:
    for call in ctx.nodes_of(cst.Call):
        if trains(ctx, call) or ctx.call_name(call) in _DIFFERENTIATES:
            return True
        summary = ctx.summaries.of_call(call)  # type: ignore[arg-type]
        if summary is not None and (summary.does(STEP) or summary.does(BACKWARD)):
            return True
        # code out of sight handed an optimizer (`train_step(model, optimizer, x, y)`) may step it
        if summary is None and hands_an_optimizer(ctx, call):  # type: ignore[arg-type]
            return True
    return False


# gradients without `.backward()`: functional training (`torch.func.grad`, an update by hand)
# (`torch.autograd.grad` alone is as often an input's gradient: a saliency map)
_DIFFERENTIATES = frozenset({"torch.func.grad", "torch.func.grad_and_value", "functorch.grad",
                             "functorch.grad_and_value"})
