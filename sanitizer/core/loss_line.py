"""The line that computed a loss, when all that is known is the line calling its backward.

A loss written out of tensor ops (`loss = masked_mean(err, mask)`, a hand-written focal
loss) calls no function the sanitizer watches: the only site it has is where
`loss.backward()` ran. The script's source says where the tensor that backward was
called on was last assigned before that line. Read only when an event needs it.
"""
from __future__ import annotations

import ast

from sanitizer.core import locations


def loss_site(site: str | None) -> str | None:
    """`site` moved to the assignment of the tensor its `x.backward()` runs on (`loss = ...`
    a few lines above, `scaler.scale(loss).backward()` and `(loss / n).backward()` alike);
    `site` itself when its line calls no backward or the assignment is not found."""
    found = locations.parse_site(site) if site else None
    tree = locations.parsed_source(found[0]) if found else None
    if found is None or tree is None:
        return site
    filename, line = found
    receivers = [_receiver(call.func.value) for call in backward_calls(tree, line)]  # type: ignore[attr-defined]
    name = next((receiver for receiver in receivers if receiver is not None), None)
    if name is None:
        return site
    assigned = _assigned_before(tree, line, name)
    return locations.format_site(filename, assigned) if assigned else site


def backward_calls(scope: ast.AST, line: int) -> list[ast.Call]:
    """The `x.backward(...)` calls of `scope` whose lines hold `line`."""
    return [node for node in ast.walk(scope)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward" and node.lineno <= line <= (node.end_lineno or node.lineno)]


def _receiver(expr: ast.expr) -> str | None:
    """The name (`loss`, `out.loss`, `out` of `out["loss"]`) behind what backward is called on."""
    while True:
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return ast.unparse(expr)
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "scale"
                and expr.args):  # scaler.scale(loss)
            expr = expr.args[0]
        elif isinstance(expr, ast.BinOp):  # loss / accumulation_steps
            expr = expr.left
        elif isinstance(expr, ast.Subscript):  # out["loss"]: a forward's dict computed it where it was assigned
            expr = expr.value
        else:
            return None


def _targets(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[ast.expr]:
    """What an assignment binds, tuples unpacked (`loss, logs = compute_loss(...)`)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    flat: list[ast.expr] = []
    for target in targets:
        flat += target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    return flat


def _assigned_before(tree: ast.Module, line: int, name: str) -> int | None:
    """The line of the last statement before `line` that surely ran and assigned `name`,
    walking back out of the blocks holding `line` up to its function; None where that is
    not known (an assignment in an `if` or a loop before it may or may not have run)."""
    path: list[tuple[list[ast.stmt], int]] = []
    blocks: list[list[ast.stmt]] = [tree.body]
    while blocks:
        block = blocks.pop()
        index = next((i for i, stmt in enumerate(block)
                      if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)), None)
        if index is None:
            continue
        path.append((block, index))
        stmt = block[index]
        blocks = [getattr(stmt, field) for field in ("body", "orelse", "finalbody")
                  if isinstance(getattr(stmt, field, None), list)]
        blocks += [handler.body for handler in getattr(stmt, "handlers", [])]
    for block, index in reversed(path):
        if isinstance(block[index], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None  # the function holding `line` did not assign it: a parameter
        for stmt in reversed(block[:index]):
            found = _assigns(stmt, name)
            if found is not None:
                return found or None
    return None


def _assigns(stmt: ast.stmt, name: str) -> int | None:
    """`stmt`'s line if it assigns `name`; 0 if it may or may not (in a branch or a loop);
    None if it does not."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return stmt.lineno if any(ast.unparse(target) == name for target in _targets(stmt)) else None
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        for inner in reversed(stmt.body):
            found = _assigns(inner, name)
            if found is not None:
                return found
        return None
    assigned = any(isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                   and any(ast.unparse(target) == name for target in _targets(node)) for node in ast.walk(stmt))
    return 0 if assigned else None
