"""Copies of a loop's batches to the device made with `non_blocking=True`.

`for x, y in loader: x = x.to(device, non_blocking=True)` promises an
asynchronous copy, which only pinned memory gives: TL502 asks which loader the
loop draws from, and a function's summary says which of its parameters it
draws such batches from (`Summary.copies_non_blocking`), for its callers, also
through the calls it hands them on to (`Summary.copies_through`).
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trainlint.analysis.dataflow import bound_names, is_constant, iterated_loader, keyword, target_names
from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import argument_slots
from trainlint.analysis.training import ancestors_within, method_call
from trainlint.analysis.walk import children, only
from trainlint.context import FileContext

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def non_blocking_copies(ctx: FileContext, loop: cst.For) -> list[cst.Call]:
    """The `.to(..., non_blocking=True)` / `.cuda(non_blocking=True)` calls of `loop`'s
    body on its batches: the loop's target, what unpacking or indexing it binds
    (`x, y = batch`), or an item of a comprehension over one (`[t.cuda(non_blocking=True)
    for t in batch]`); not in a loop nested in it that binds the batch name again."""
    batches = _batch_names(loop)
    found: list[cst.Call] = []
    for node in _own_batch_nodes(loop):
        receiver = method_call(node, "to", "cuda")
        if receiver is not None and _non_blocking(node) and (  # type: ignore[arg-type]
                _reads(receiver, batches) or _comprehension_item(ctx, node, receiver, batches, loop)):
            found.append(node)  # type: ignore[arg-type]
    return found


def copied_parameters(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...]) -> frozenset[str]:
    """The parameters of `func` whose batches a loop of its own draws (`for x, y in
    enumerate(loader):`) and copies with `non_blocking=True`, each holding what the caller
    handed: never bound again in `func`, which writes no `pin_memory` either (it may pin
    the loader it is handed)."""
    if "non_blocking" not in ctx.source or ("pin_memory" in ctx.source and "pin_memory" in ctx.code(func)):
        return frozenset()
    own = ctx.own_nodes(func.body)
    rebound = {name for node in own for name in bound_names(node)}
    found: set[str] = set()
    for loop in only(own, cst.For):
        iterable = iterated_loader(ctx, loop.iter)  # type: ignore[attr-defined]
        if (type(iterable) is cst.Name and iterable.value in params and iterable.value not in rebound
                and non_blocking_copies(ctx, loop)):  # type: ignore[arg-type]
            found.add(iterable.value)
    return frozenset(found)


def handed_parameters(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...],
                      target: Callable[[cst.Call], str | None]) -> tuple[tuple[str, str, str], ...]:
    """(param, callee, slot) for each call of `func`'s own code that hands a parameter on as
    the caller gave it (`run_epoch(model, loader)` in `def train(model, loader)`): never
    bound again in `func`, which writes no `pin_memory` (it may pin the loader first).
    Where the callee copies the batches of what that slot holds with `non_blocking=True`,
    so does `func` of its parameter (see `Summary.copies_through`)."""
    if "pin_memory" in ctx.source and "pin_memory" in ctx.code(func):
        return ()
    own = ctx.own_nodes(func.body)
    rebound = {name for node in own for name in bound_names(node)}
    kept = set(params) - rebound
    found: dict[tuple[str, str, str], None] = {}
    for call in only(own, cst.Call) if kept else ():
        handed = [(slot, arg.value.value) for slot, arg in argument_slots(call)  # type: ignore[arg-type]
                  if type(arg.value) is cst.Name and arg.value.value in kept]
        callee = target(call) if handed else None  # type: ignore[arg-type]
        if callee is not None:
            found.update(((param, callee, slot), None) for slot, param in handed)
    return tuple(found)


def _comprehension_item(ctx: FileContext, call: cst.CSTNode, receiver: cst.BaseExpression, batches: set[str],
                        loop: cst.For) -> bool:
    """`receiver` is a part of a batch drawn by a comprehension around `call` (RAFT's
    `image1, image2, flow, valid = [x.cuda() for x in data_blob]`)."""
    for ancestor in ancestors_within(ctx, call, loop):
        if type(ancestor) not in _COMPREHENSIONS:
            continue
        clause: cst.CompFor | None = ancestor.for_in  # type: ignore[attr-defined]
        while clause is not None:
            if _reads(receiver, target_names(clause.target)) and _reads(clause.iter, batches):
                return True
            clause = clause.inner_for_in
    return False


def _non_blocking(call: cst.Call) -> bool:
    """A `non_blocking=True` copy to a device: not `.to("cpu", ...)`, where pinning
    the batches would change nothing."""
    arg = keyword(call, "non_blocking")
    return arg is not None and is_constant(arg.value, "True") and not _to_host(call)


def _to_host(call: cst.Call) -> bool:
    """`call` names the CPU as where it copies to, in a literal: `.to("cpu", ...)`,
    `.to(device="cpu")`, `.to(torch.device("cpu"))`."""
    device = keyword(call, "device")
    target = device.value if device is not None else next(
        (arg.value for arg in call.args if arg.keyword is None and arg.star == ""), None)
    if type(target) is cst.Call and target.args and _called_name(target) == "device":
        target = target.args[0].value
    return (string_value(target) or "").partition(":")[0] == "cpu"


def _called_name(call: cst.Call) -> str | None:
    """`device` for `torch.device(...)` or `device(...)`."""
    func = call.func
    if type(func) is cst.Attribute:
        return func.attr.value
    return func.value if type(func) is cst.Name else None


def _reads(expr: cst.BaseExpression, names: set[str]) -> bool:
    """`x`, `batch[0]` or `batch["x"]` for a batch name."""
    while type(expr) is cst.Subscript:
        expr = expr.value
    return type(expr) is cst.Name and expr.value in names


def _own_batch_nodes(loop: cst.For) -> list[cst.CSTNode]:
    """The nodes of the loop's body, but those of a loop nested in it that binds
    the batch name again (a validation pass `for batch in val_loader:` inside the
    training loop): what they copy is that loop's batch, judged by that loop."""
    names = target_names(loop.target)
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.For and target_names(node.target) & names:
            continue
        found.append(node)
        stack.extend(reversed(children(node)))
    return found


def _batch_names(loop: cst.For) -> set[str]:
    """Names bound by the loop target, and by unpacking or indexing them in
    the loop body (`x, y = batch`, `images = batch[0]`), outside a loop nested
    in it that binds the batch name again."""
    names = target_names(loop.target)
    for node in _own_batch_nodes(loop):
        if type(node) is cst.Assign and _reads(node.value, names):
            for target in node.targets:
                names |= target_names(target.target)
    return names
