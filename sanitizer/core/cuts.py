"""Where a loss handed to `backward()` was cut off from the graph, read from the
script's source once that backward has raised ("does not require grad and does not
have a grad_fn"): the `.detach()` calls in what the loss is computed from.

What the loss is computed from is found by name in the function that called
`backward()` (or the script's top level): the variables the backward's receiver
names, the variables their assignments name, and so on, whichever branch assigns
them (the session keeps the `.detach()` calls that ran); a name assigned in a nested
function or class is not followed. Nothing is run again.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from types import TracebackType

from sanitizer.core import locations
from sanitizer.core.loss_line import backward_calls

@dataclass
class Cuts:
    """The `.detach()` calls (`file:line`) in what the loss is computed from."""
    detaches: list[str] = field(default_factory=list)


def cuts_of(tb: TracebackType | None) -> Cuts | None:
    """The cuts in the loss of the `backward()` call the innermost user frame of `tb`
    made; None when its source cannot be read or the call is not found there."""
    frame_tb = None
    while tb is not None:
        if locations.is_user_file(tb.tb_frame.f_code.co_filename):
            frame_tb = tb
        tb = tb.tb_next
    if frame_tb is None:
        return None
    filename, line = frame_tb.tb_frame.f_code.co_filename, frame_tb.tb_lineno
    tree = locations.parsed_source(filename)
    if tree is None:
        return None
    scope = _enclosing_scope(tree, line)
    # `loss.backward()`, `scaler.scale(loss).backward()`, `torch.autograd.backward(loss)`
    receivers = [part for call in backward_calls(scope, line)
                 for part in (call.func.value, *call.args)]  # type: ignore[attr-defined]
    if not receivers:
        return None
    assignments = _assignments(scope)
    found = Cuts()
    seen: set[str] = set()
    pending: list[ast.AST] = list(receivers)
    while pending:
        expression = pending.pop()
        for node in ast.walk(expression):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("detach", "detach_")):
                site = locations.format_site(filename, node.lineno)
                if site not in found.detaches:
                    found.detaches.append(site)
            elif isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                pending.extend(assignments.get(node.id, ()))
    found.detaches.sort(key=lambda site: int(site.rsplit(":", 1)[1]))
    return found


def _enclosing_scope(tree: ast.Module, line: int) -> ast.AST:
    """The innermost function whose lines hold `line`, or the module."""
    scope: ast.AST = tree
    for node in ast.walk(tree):
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.lineno <= line <= (node.end_lineno or node.lineno)
                and (scope is tree or node.lineno >= scope.lineno)):  # type: ignore[attr-defined]
            scope = node
    return scope


def _assignments(scope: ast.AST) -> dict[str, list[ast.expr]]:
    """What each name of `scope` is assigned anywhere in it (`x = ...`, `x += ...`,
    `a, b = ...`: each of `a`, `b` the whole value); not in nested functions or classes."""
    found: dict[str, list[ast.expr]] = {}

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and child.value is not None:
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            found.setdefault(name.id, []).append(child.value)
            visit(child)

    visit(scope)
    return found
