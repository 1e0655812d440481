"""The line that computed a loss, when all that is known is the line calling its backward.

A loss written out of tensor ops (`loss = masked_mean(err, mask)`, a hand-written focal
loss) calls no function the sanitizer watches: the only site it has is where
`loss.backward()` ran. The script's source says where the tensor that backward was
called on was last assigned before that line; where that assignment only calls a
function of another module of the script's (`loss = masked_token_loss(logits, tags,
mask)` from a losses module), the line of that function computing what it returns.
Read only when an event needs it.
"""
from __future__ import annotations

import ast
import inspect
import os
import sys
import types

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
    if not assigned:
        return site
    return _helper_site(filename, tree, assigned) or locations.format_site(filename, assigned)


def _helper_site(filename: str, tree: ast.Module, line: int) -> str | None:
    """Where the function another module of the script's defines computed what it
    returned, when the assignment at `line` of `filename` is one call of it (`loss =
    helper(...)`, `loss = losses.helper(...)`): its only `return`'s line, or that of
    the assignment of the name it returns. None for anything else (a method, a helper of
    the same file, a function with several returns)."""
    value = next((node.value for node in ast.walk(tree)
                  if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno == line), None)
    function = _module_function(filename, value.func) if isinstance(value, ast.Call) else None
    try:  # a decorated helper (`functools.wraps`): its own code, not the decorator's wrapper
        function = inspect.unwrap(function) if function is not None else None
    except ValueError:  # a cycle of `__wrapped__`
        return None
    # a module's own function only: a decorator's closure (`timed.<locals>.wrapper`, no
    # `functools.wraps`) or a method runs the helper's code somewhere else
    code = function.__code__ if isinstance(function, types.FunctionType) and "." not in function.__qualname__ \
        else None
    if code is None or os.path.abspath(code.co_filename) == os.path.abspath(filename) \
            or not locations.is_user_file(code.co_filename):
        return None
    definition = locations.code_scope(code.co_filename, code.co_firstlineno, code.co_name)
    helper_tree = locations.parsed_source(code.co_filename)
    returns = [node for node in _own_nodes(definition) if isinstance(node, ast.Return) and node.value is not None] \
        if isinstance(definition, ast.FunctionDef) and helper_tree is not None else []
    if len(returns) != 1:
        return None
    (done,) = returns
    assigned = _assigned_before(helper_tree, done.lineno, done.value.id) \
        if isinstance(done.value, ast.Name) else None  # `return loss`: where loss was computed
    return locations.format_site(code.co_filename, assigned or done.lineno)


def _module_function(filename: str, func: ast.expr) -> types.FunctionType | None:
    """The plain function `func` (`helper`, `module.helper`) names in the module run from
    `filename` (the script itself, `__main__`), looked up without running any code."""
    module = next((module for module in list(sys.modules.values())
                   if isinstance(getattr(module, "__file__", None), str)
                   and os.path.abspath(module.__file__) == os.path.abspath(filename)), None)
    if module is None:
        return None
    if isinstance(func, ast.Name):
        found = vars(module).get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and isinstance(owner := vars(module).get(func.value.id), types.ModuleType):
        found = inspect.getattr_static(owner, func.attr, None)
    else:
        return None
    return found if isinstance(found, types.FunctionType) else None


def _own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of `function`'s body, not those of functions or classes defined in it."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    return found


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
