"""Whether the model a `.eval()` switches is one the file trains: written as one, an
item of a container of them, a loop variable over models written out, a local name
the function gives one (in each arm of an `if`), or a parameter some call hands one."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.loops import item_container, mode_switch
from trainlint.analysis.scopes import alternatives, bound_arguments
from trainlint.analysis.summarize import parameter_names
from trainlint.analysis.training import _same_module
from trainlint.context import FileContext


def trained_receiver(ctx: FileContext, eval_node: cst.CSTNode, trained: set[str]) -> bool:
    """`model.eval()` of a model the file trains, also under a local name the
    function gives it (`net = model.module if distributed else model`, `net = model`,
    or in each arm of an `if` statement)."""
    mode = mode_switch(ctx, eval_node)
    receiver = mode[0] if mode is not None else None
    if receiver is None:
        return False
    # an item of a container of models (`self.model["generator"]`) is trained with it
    model = receiver if ctx.code(receiver) in trained else item_container(receiver)
    if ctx.code(model) in trained:
        return _given_a_trained_model(ctx, eval_node, model, trained)
    items = _loop_items(ctx, eval_node, receiver)
    if items:
        return any(ctx.code(item) in trained and _given_a_trained_model(ctx, eval_node, item, trained)
                   for item in items)
    binding = ctx.receivers.binding(receiver) if type(receiver) is cst.Name else None
    values = ctx.receivers.assigned(binding) if binding is not None else []
    func = ctx.enclosing_function(eval_node)
    if not values or any(ctx.enclosing_function(value) is not func for value in values):
        return False
    # `evalmodel = evalmodel.module` keeps the model the name held: no other value
    values = [value for value in values if not _same_module(ctx, value, receiver.value)]  # type: ignore[attr-defined]
    if len(values) > 1 and not _assigned_in_exclusive_arms(ctx, values):
        return False  # `net = model`, then `net = copy.deepcopy(model)`: which one is evaluated is not told
    return any(ctx.code(arm) in trained and _given_a_trained_model(ctx, eval_node, arm, trained)
               for value in values for arm in alternatives(value))


def _assigned_in_exclusive_arms(ctx: FileContext, values: list[cst.BaseExpression]) -> bool:
    """Each value is assigned in another arm of an `if` statement than every other
    (`if use_ema: evalmodel = ema` / `else: evalmodel = model`): none replaces another,
    whichever arm runs is what the name holds after."""
    arms = [_arm_path(ctx, value) for value in values]
    return all(_exclusive(first, second) for i, first in enumerate(arms) for second in arms[i + 1:])


def _arm_path(ctx: FileContext, node: cst.CSTNode) -> dict[cst.CSTNode, bool]:
    """For each `if` statement around `node` (in its function), whether `node` is in
    its body (True) or its `else` / `elif` (False)."""
    path: dict[cst.CSTNode, bool] = {}
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if type(ancestor) is cst.If and child is not ancestor.test:
            path[ancestor] = child is ancestor.body
        child = ancestor
    return path


def _exclusive(first: dict[cst.CSTNode, bool], second: dict[cst.CSTNode, bool]) -> bool:
    return any(branch in second and second[branch] != arm for branch, arm in first.items())


def _loop_items(ctx: FileContext, eval_node: cst.CSTNode, receiver: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The models a loop variable takes, when `receiver` is one over models written
    out (`for model in (self.ema, self.vae): model.eval()`, DALLE2's trainer)."""
    if type(receiver) is not cst.Name:
        return []
    for ancestor in ctx.ancestors(eval_node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return []
        if type(ancestor) is cst.For and receiver.value in target_names(ancestor.target):
            return _written_out(ancestor.target, ancestor.iter, receiver.value)
    return []


def _given_a_trained_model(ctx: FileContext, eval_node: cst.CSTNode, receiver: cst.BaseExpression,
                           trained: set[str]) -> bool:
    """`model.eval()` of a parameter of a function of this file: some call of it
    hands it a model the file trains (not only `evaluate(eval_model, ...)`, a fresh
    copy loaded with the trained weights). Any other receiver: yes."""
    func = ctx.enclosing_function(eval_node)
    if type(receiver) is not cst.Name or func is None:
        return True
    sites = ctx.call_sites(func)
    if not sites or receiver.value not in parameter_names(ctx, func):
        return True
    given = [dict(bound_arguments(ctx, site, func)[0]).get(receiver.value) for site in sites]
    return any(arg is None or _may_hold(ctx, arg, trained) for arg in given)


def _may_hold(ctx: FileContext, value: cst.BaseExpression, trained: set[str], depth: int = 0) -> bool:
    """`value` may be a model the file trains: written as one, one arm of an `if`
    expression, or a variable assigned one (`test_model = ema.module if use_ema
    else model`)."""
    if ctx.code(value) in trained:
        return True
    arms = alternatives(value)
    if len(arms) > 1:
        return any(_may_hold(ctx, arm, trained, depth) for arm in arms)
    if type(value) is not cst.Name or depth > 2:
        return False
    binding = ctx.receivers.binding(value)
    return binding is not None and any(_may_hold(ctx, assigned, trained, depth + 1)
                                       for assigned in ctx.receivers.assigned(binding))


def _written_out(target: cst.BaseExpression, iterable: cst.BaseExpression, name: str) -> list[cst.BaseExpression]:
    """What the loop variable `name` takes from an iterable written out: `for m in (a, b)`,
    `for label, m in (("ema", a), ("vae", b))`, `for i, m in enumerate((a, b))`,
    `for label, m in zip(labels, (a, b))`, `for m in {"ema": a, "vae": b}.values()`,
    `for label, m in {"ema": a, "vae": b}.items()`."""
    if type(iterable) is cst.Call and type(iterable.func) is cst.Attribute and not iterable.args \
            and type(iterable.func.value) is cst.Dict:
        entries = [element for element in iterable.func.value.elements if type(element) is cst.DictElement]
        method = iterable.func.attr.value
        if method == "values" and type(target) is cst.Name and target.value == name:
            return [entry.value for entry in entries]
        if method == "items" and type(target) in (cst.Tuple, cst.List) and len(target.elements) == 2 \
                and type(target.elements[1].value) is cst.Name and target.elements[1].value.value == name:
            return [entry.value for entry in entries]
        return []
    if type(target) is cst.Name:
        if type(iterable) not in (cst.Tuple, cst.List):
            return []
        return [element.value for element in iterable.elements if type(element) is cst.Element]  # type: ignore[attr-defined]
    if type(target) not in (cst.Tuple, cst.List):
        return []
    slots = [element.value for element in target.elements]  # type: ignore[attr-defined]
    position = next((i for i, slot in enumerate(slots) if type(slot) is cst.Name and slot.value == name), None)
    if position is None:
        return []
    if (type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.func.value == "enumerate"
            and len(slots) == 2 and position == 1 and iterable.args):
        return _written_out(slots[1], iterable.args[0].value, name)
    if (type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.func.value == "zip"
            and len(iterable.args) == len(slots) and all(arg.keyword is None and not arg.star for arg in iterable.args)):
        return _written_out(slots[position], iterable.args[position].value, name)
    if type(iterable) not in (cst.Tuple, cst.List):
        return []
    rows = [element.value for element in iterable.elements if type(element) is cst.Element]  # type: ignore[attr-defined]
    items = []
    for row in rows:
        if type(row) not in (cst.Tuple, cst.List) or len(row.elements) != len(slots):  # type: ignore[attr-defined]
            return []
        items.append(row.elements[position].value)  # type: ignore[attr-defined]
    return items
