"""Variables in the user's frames that hold tensors with autograd history.

Used by the tensor-leak check: a holder whose graph grows from one sample to the
next keeps past steps' graphs alive. The line that feeds it is found in the source.
"""
from __future__ import annotations

import ast
import inspect
import operator
import re
from collections import deque
from dataclasses import dataclass
from itertools import islice
from types import FrameType, FunctionType, ModuleType
from typing import Any

import torch

from sanitizer.core import locations
from sanitizer.core.naming import own_attributes

MAX_ITEMS = 10_000  # items of a list/dict holder inspected
MAX_PARTS = 8  # tensors of a tuple item inspected (`(loss, logits)`)


@dataclass
class Holder:
    label: str  # "total_loss", "self.history"
    frame_name: str
    filename: str
    first_line: int
    grad_fns: list[Any]
    tensors: list[torch.Tensor]
    owner: type | None = None  # the class of the object whose attribute holds them (`losses.sum`)
    parameters: bool = False  # a model's own parameters, given a history in place

    @property
    def key(self) -> str:
        return f"{self.filename}:{self.frame_name}:{self.label}"


def find_holders(frames: list[FrameType]) -> list[Holder]:
    holders: list[Holder] = []
    seen: set[str] = set()
    for frame in frames:
        code = frame.f_code
        for name, value in list(frame.f_locals.items()):
            for label, tensors in _labelled_tensors(name, value):
                key = f"{code.co_filename}:{code.co_name}:{label}"
                if tensors and key not in seen:
                    seen.add(key)
                    owner = type(value) if label != name else None
                    parameters = label == name and isinstance(value, torch.nn.Module)
                    holders.append(Holder(label, code.co_name, code.co_filename, code.co_firstlineno,
                                          [t.grad_fn for t in tensors], tensors, owner, parameters))
    # a loop variable over those parameters (`for averaged, trained in zip(ema.parameters(), ...)`)
    # is the model's leak seen through one of its parameters: the model is the holder
    owned = {id(t) for holder in holders if holder.parameters for t in holder.tensors}
    return sorted((holder for holder in holders if holder.parameters or not all(id(t) in owned for t in holder.tensors)),
                  key=lambda holder: not holder.parameters)


def _labelled_tensors(name: str, value: Any) -> list[tuple[str, list[torch.Tensor]]]:
    if isinstance(value, torch.nn.Module):
        # a buffer or a tensor attribute of a model (a MoCo queue refilled without detach)
        held = [*value.named_buffers(), *((attr, item) for attr, item in vars(value).items()
                                            if isinstance(item, torch.Tensor))]
        found = [(f"{name}.{attr}", [item]) for attr, item in held[:MAX_ITEMS]
                 if isinstance(item, torch.Tensor) and item.grad_fn is not None]
        # parameters given a history in place (an EMA copy updated outside `no_grad()`)
        updated = [param for _, param in list(value.named_parameters())[:MAX_ITEMS] if param.grad_fn is not None]
        return [(name, updated), *found] if updated else found
    if isinstance(value, dict):
        return _dict_items(name, value)
    direct = _graph_tensors(value)
    if direct or not _is_plain_object(value):
        return [(name, direct)]
    found: list[tuple[str, list[torch.Tensor]]] = []
    for attr, item in list(own_attributes(value).items())[:MAX_ITEMS]:  # type: ignore[attr-defined]
        found += _dict_items(f"{name}.{attr}", item) if isinstance(item, dict) else [(f"{name}.{attr}", _graph_tensors(item))]
    return found


def _dict_items(label: str, value: dict[Any, Any]) -> list[tuple[str, list[torch.Tensor]]]:
    """A dict's own tensors under its name, and each list it holds under its key
    (`history['train_loss']`, a Keras-style history of lists), written as `ast.unparse`
    writes it, so that the line growing it can be found."""
    found = [(label, _graph_tensors(value))]
    for key, item in list(value.items())[:MAX_ITEMS]:
        if isinstance(item, (list, tuple, deque)) and isinstance(key, (str, int)):
            found.append((f"{label}[{key!r}]", _graph_tensors(item)))
    return found


def _graph_tensors(value: Any) -> list[torch.Tensor]:
    """The tensors with a history that `value` holds: itself, or the items of a list,
    tuple, deque or dict, and of the tuples and lists among them (`history.append((loss,
    logits))`), one level down."""
    if isinstance(value, torch.Tensor):
        return [value] if value.grad_fn is not None else []
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, (list, tuple, deque)) or not value or not _may_hold_tensors(value):
        return []
    found = []
    for item in islice(value, MAX_ITEMS):
        if isinstance(item, torch.Tensor):
            if item.grad_fn is not None:
                found.append(item)
        elif type(item) in _NESTED:
            found += [part for part in item[:MAX_PARTS] if isinstance(part, torch.Tensor) and part.grad_fn is not None]
    return found


def _may_hold_tensors(items: list[Any] | tuple[Any, ...] | deque[Any]) -> bool:
    """Whether a tensor, a tuple or a list is among the items `_graph_tensors` looks at:
    their types gathered in C, so that a history of plain numbers (`losses.append(
    loss.item())`, 10,000 floats) costs about a tenth of a loop over its items."""
    try:
        kinds = set(map(type, islice(items, MAX_ITEMS)))
        kinds.update(map(_CLASS, islice(items, MAX_ITEMS)))  # what `isinstance` also asks: a proxy's `__class__`
    except Exception:  # a proxy whose `__class__` raises or is unhashable: the loop looks, as before
        return True
    return any(kind in _NESTED or (isinstance(kind, type) and issubclass(kind, torch.Tensor)) for kind in kinds)


_NESTED = (tuple, list)  # exact types, as `_graph_tensors` tells them
_CLASS = operator.attrgetter("__class__")


def _is_plain_object(value: Any) -> bool:
    """An object whose attributes can be read (not a proxy whose `__dict__` raises)."""
    return (not isinstance(value, (type, ModuleType, FunctionType, torch.nn.Module)) and not callable(value)
            and type(own_attributes(value)) is dict)


def accumulation_site(holder: Holder) -> tuple[str, int, str | None] | None:
    """(file, line, None) of the line that grows the holder: in the frame that holds it,
    or, for an attribute of an object (an AverageMeter's `losses.sum`), in its class's
    code (`self.sum += val * n` in `update()`). A model's parameters given a history in
    place: the update of a loop over them (`ema_p.mul_(d).add_(p, alpha=1 - d)`), not
    the line that made the model, also in a function of the file it is handed to
    (`update_ema(ema, model)`). Of several updates (the branches of an EMA helper), the
    one whose ops made the parameters' history (`copy_` for `CopyBackwards`); when that
    cannot be told (two branches make the same ops), the function's `def` line, and
    the function's name as the third item."""
    scope = locations.code_scope(holder.filename, holder.first_line, holder.frame_name)
    if holder.parameters and scope is not None:
        updates = _parameter_updates(scope, holder.label) or [
            update for function, argument in _handed_to(scope, holder.filename, holder.label)
            for update in _parameter_updates(function, argument)]
        if updates:
            return (holder.filename, *_update_that_ran(updates, holder.tensors))
    line = _growing_line(scope, holder.label)
    if line is not None:
        return holder.filename, line, None
    if holder.owner is not None:
        try:
            filename = inspect.getsourcefile(holder.owner)
        except TypeError:
            return None
        tree = locations.parsed_source(filename) if filename else None
        attribute = holder.label.rsplit(".", 1)[-1]
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and node.name == holder.owner.__name__:
                # each method by its own receiver's name (`self`, or `s`, `this`)
                found = [_growth_lines(method, f"{method.args.args[0].arg}.{attribute}")
                         for method in node.body
                         if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args]
                lines = [line for grows, _ in found for line in grows] or [
                    line for _, assigns in found for line in assigns]
                if lines:
                    return filename, min(lines), None  # type: ignore[return-value]
    return None


# In-place methods of a tensor that change no value: `p.requires_grad_(False)` over a
# target network's parameters freezes it, it does not update it.
NOT_WRITES = frozenset({"requires_grad_", "share_memory_"})


@dataclass(frozen=True)
class _Update:
    line: int
    ops: tuple[str, ...]  # its in-place methods, the last written first: ("add", "mul") of `p.mul_(d).add_(x)`
    function: ast.AST | None  # the function whose loop it is in (None: a module's code)
    loop: int  # the line of that loop
    recorded: bool  # not written through `.data` (`tp.data.mul_(d)`), which autograd does not record


def _parameter_updates(scope: ast.AST, label: str) -> list[_Update]:
    """The updates in `scope` of a parameter of the model `label` in place, in a loop
    over them (`for ema_p, p in zip(ema.parameters(), model.parameters())`): a method of
    torch's in-place form (`mul_`, `add_`, `lerp_`, `copy_`) called on a loop variable,
    or on its `.data`, or on such a call (`ema_p.mul_(d).add_(p)`: one update)."""
    updates = []
    function = scope if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    for function, loop in _loops(scope, function, label.split(".")[0]):
        if not _iterates_parameters(loop.iter, label):
            continue
        names = {node.id for node in ast.walk(loop.target) if isinstance(node, ast.Name)}
        calls = [node for statement in loop.body for node in ast.walk(statement) if _in_place(node)]
        inner = {id(call.func.value) for call in calls}  # written on again by the next call of its chain
        updates += [_Update(call.lineno, _chain(call), function, loop.lineno, not _through_data(call))
                    for call in calls if id(call) not in inner and _receiver(call.func.value) in names]
    return updates


def _loops(node: ast.AST, function: ast.AST | None, name: str) -> list[tuple[ast.AST | None, ast.For | ast.AsyncFor]]:
    """The loops under `node`, each with the function it is in; none of a function whose
    own variable is called `name` (another model than the one `name` holds here)."""
    found = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.For, ast.AsyncFor)):
            found.append((function, child))
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and _local(child, name):
            continue
        inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        found += _loops(child, inner, name)
    return found


def _local(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str) -> bool:
    """Whether `name` is a variable of `function`'s own: a parameter, or assigned in it
    without a `global` or `nonlocal` statement."""
    arguments = function.args
    if name in {argument.arg for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                              *filter(None, [arguments.vararg, arguments.kwarg])]}:
        return True
    nodes = list(ast.walk(function))
    if any(isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names for node in nodes):
        return False
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store) for node in nodes)


def _in_place(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_") and not node.func.attr.startswith("_")
            and node.func.attr not in NOT_WRITES)


def _chain(call: ast.Call) -> tuple[str, ...]:
    """The in-place methods of a chain, the outermost first: ("add", "mul") of `p.mul_(d).add_(x)`."""
    ops = []
    node: ast.expr = call
    while isinstance(node, ast.Call) and _in_place(node):
        assert isinstance(node.func, ast.Attribute)
        ops.append(node.func.attr[:-1].replace("_", "").lower())  # `masked_fill_`: `MaskedFillBackward0`
        node = node.func.value
    return tuple(ops)


def _through_data(call: ast.Call) -> bool:
    node: ast.expr = call
    while isinstance(node, ast.Call) and _in_place(node):
        assert isinstance(node.func, ast.Attribute)
        node = node.func.value
    return isinstance(node, ast.Attribute) and node.attr == "data"


def _update_that_ran(updates: list[_Update], tensors: list[torch.Tensor]) -> tuple[int, str | None]:
    """The line of the update that gave `tensors` their history, as their graph tells
    (`AddBackward0` made from `MulBackward0`: `p.mul_(d).add_(x)`; an update through
    `.data` makes none), the first update when there is one only or none matches; else,
    when more than one could have made it, the `def` line of their function (a module's
    code: the loop's line) and its name."""
    updates = [update for update in updates if update.recorded] or updates
    if len({update.line for update in updates}) == 1:
        return updates[0].line, None
    finals = {update.ops[0] for update in updates}
    lines: set[int] = set()
    for tensor in tensors:
        made = [update for update in updates if _made(update.ops, tensor.grad_fn, finals)] or [
            update for update in updates if update.ops[0] == _op_of(tensor.grad_fn)]
        if len({update.line for update in made}) > 1:
            first = min(made, key=lambda update: update.line)
            function = first.function
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return min([function.lineno] + [d.lineno for d in function.decorator_list]), function.name
            return first.loop, None
        lines.update(update.line for update in made)
    return min(lines or {update.line for update in updates}), None


def _made(ops: tuple[str, ...], node: Any, finals: set[str]) -> bool:
    """Whether the chain `ops` made the history that ends in `node`: its nodes follow one
    another through their first input (the tensor written on), and the node before them
    is none (no history yet: ops on it recorded nothing) or the last op of an update."""
    for op in ops:
        if node is None:
            return True
        if _op_of(node) != op:
            return False
        node = node.next_functions[0][0] if node.next_functions else None
    return node is None or _op_of(node) in finals


def _op_of(node: Any) -> str | None:
    """`add` of `AddBackward0`, `copy` of `CopyBackwards`: the op that made a tensor's history."""
    match = re.fullmatch(r"(\w+?)Backwards?\d*", type(node).__name__)
    return match.group(1).lower() if match else None


def _handed_to(scope: ast.AST, filename: str, label: str) -> list[tuple[ast.AST, str]]:
    """The functions of the file that `scope` calls with `label` as an argument, each
    with the name of its parameter that receives it (`ema` of `update_ema(ema, model)`
    for `def update_ema(average, model)`: `average`)."""
    tree = locations.parsed_source(filename)
    if tree is None:
        return []
    functions = {node.name: node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = []
    for call in ast.walk(scope):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id not in functions:
            continue
        function = functions[call.func.id]
        names = [argument.arg for argument in [*function.args.posonlyargs, *function.args.args]]
        for index, argument in enumerate(call.args):
            if ast.unparse(argument) == label and index < len(names):
                found.append((function, names[index]))
        found += [(function, keyword.arg) for keyword in call.keywords
                  if keyword.arg is not None and ast.unparse(keyword.value) == label]
    return found


def _iterates_parameters(expr: ast.expr, label: str) -> bool:
    """`expr` goes over the parameters of `label` (`label.parameters()`, in a `zip`)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("parameters", "named_parameters") and ast.unparse(node.func.value) == label
               for node in ast.walk(expr))


def _receiver(expr: ast.expr) -> str | None:
    """The variable a method is called on: `p` of `p`, `p.data`, `p.mul_(d)`."""
    while (isinstance(expr, ast.Attribute) and expr.attr == "data") or _in_place(expr):
        expr = expr.func.value if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _growing_line(scope: ast.AST | None, label: str) -> int | None:
    """The line of `scope` that grows `label` (`x += ...`, `x = x + ...`, `x.append(...)`),
    else its assignment."""
    if scope is None:
        return None
    grows, assigns = _growth_lines(scope, label)
    lines = grows or assigns
    return min(lines) if lines else None


def _growth_lines(scope: ast.AST, label: str) -> tuple[list[int], list[int]]:
    """The lines of `scope` that grow `label`, and those that only assign it."""
    holder_label = label
    grows: list[int] = []
    assigns: list[int] = []
    for node in ast.walk(scope):
        if isinstance(node, (ast.AugAssign, ast.Assign)) and _detached(node.value):
            continue
        if isinstance(node, ast.AugAssign) and ast.unparse(node.target) == holder_label:
            grows.append(node.lineno)
        elif isinstance(node, ast.Assign) and any(_written_into(t, holder_label) for t in node.targets):
            grows.append(node.lineno)  # `self.queue[ptr:ptr + n] = k`: written into, in place
        elif isinstance(node, ast.Assign) and any(ast.unparse(t) == holder_label for t in node.targets):
            uses_itself = any(ast.unparse(sub) == holder_label for sub in ast.walk(node.value))
            if uses_itself:
                grows.append(node.lineno)
            elif not isinstance(node.value, ast.Constant):  # `self.avg = 0` of a reset feeds nothing
                assigns.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("append", "extend", "insert") and _same_holder(node.func.value, holder_label)):
            grows.append(node.lineno)
    return grows, assigns


def _same_holder(expr: ast.expr, label: str) -> bool:
    """`expr` is the holder: as written, or as `d.setdefault(key, [])` is `d[key]`."""
    if ast.unparse(expr) == label:
        return True
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "setdefault"
            and expr.args):
        return f"{ast.unparse(expr.func.value)}[{ast.unparse(expr.args[0])}]" == label
    return False


def _written_into(target: ast.expr, label: str) -> bool:
    """`target` is an item or a slice of the holder (`self.queue[i:j]`)."""
    return isinstance(target, ast.Subscript) and ast.unparse(target.value) == label


def _detached(value: ast.expr) -> bool:
    """`loss.item()`, `loss.detach()`, `float(loss)`: values that carry no graph."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute):
        return func.attr in ("item", "detach", "tolist", "numpy")
    return isinstance(func, ast.Name) and func.id in ("float", "int")
