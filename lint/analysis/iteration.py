"""What one iteration of a loop does itself, as opposed to what loops nested
in it do: the difference between a step loop and an epoch loop."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from lint.analysis.loops import is_backward, optimizer_step
from lint.context import FileContext

_NESTED = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes under `root` that run once per run of `root`: the bodies of
    nested loops, functions, classes and lambdas are left out (a nested
    loop's header, which runs once, is kept)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, cst.For):
            stack.extend(reversed([node.target, node.iter]))
            continue
        if isinstance(node, cst.While):
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
    a function of this file whose own body (outside its loops) does. A step
    loop with a micro-batch loop inside steps each iteration; an epoch loop
    whose batches are an inner loop, or a loop over loggers, does not."""
    for node in own_nodes(loop.body):
        if trains(ctx, node):
            return True
        callee = ctx.local_callee(node)
        if callee is not None and any(trains(ctx, inner) for inner in own_nodes(callee.body)):
            return True
    return False
