"""Evaluation loops a function runs on models it is handed, for its summary
(`Summary.forwards`, `Summary.evaluated_forwards`): what a caller in another
module needs to tell that calling it evaluates with grad on.

A function qualifies when nothing of it needs the autograd graph (no
backward, no step, no gradient cleared, no `torch.autograd.grad`, no
optimizer built, taken as a parameter or handed to code out of sight, as far
as names tell), it has no decorator (a grad mode, or a wrapper that may set
one; `staticmethod` and `classmethod` only say what binds its first
parameter), it is no module's `forward` (which runs its layers, not data), and a
model it names by a parameter (or by an attribute of `self`) is called in a
loop of its own with no grad mode around the call (itself, or by a function
of the file it hands the model to: see `_forwarded`). The model is either left
in the mode the caller gave it (the function switches no mode of it, and
binds the name to nothing else) or put in eval mode by the function itself
before the call; the latter counts only where the function's module runs
every call of it with a grad mode set (no finding there: RAFT's `validate`,
called under `torch.no_grad()` by its own script's main and with gradients on
by the training script).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, TypeVar

import libcst as cst

from trainlint.analysis.dataflow import bound_names, bound_parts
from trainlint.analysis.loops import (
    ENABLE_GRAD, NO_GRAD, SET_GRAD_ENABLED, clears_grads, function_grad_mode, is_backward, lexical_grad_mode,
    mode_switch, named_for_an_optimizer, optimizer_name, repeating_loop,
)
from trainlint.analysis.receivers import OPTIMIZER, constructor_kind
from trainlint.analysis.scopes import (
    argument_slots, as_receiver_path, bound_arguments, decorated, dotted_name, is_method,
    named_parameters,
    receiver_name,
)
from trainlint.analysis.training import method_call
from trainlint.context import FileContext

# what needs the graph besides a backward, a step and a clear
_GRAPH_USERS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
Links = tuple[tuple[str, str, str], ...]  # (model, what a call of another module names, the slot it is handed in)
NO_FORWARDS: tuple[frozenset[str], frozenset[str], Links, Links] = (frozenset(), frozenset(), (), ())
# what a call runs, as a summary names it (`trainlint.analysis.summarize.CallTargets.target`)
Target = Callable[[cst.Call], "str | None"]
_MODEL_METHODS = frozenset({"forward", "__call__"})
Found = TypeVar("Found")


def models_called(func: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    """What a call of `func` runs: the model itself (also `model.forward` written out), and for `model.module` also
    `model`, whose DistributedDataParallel (or DataParallel, FSDP) wrapper holds it
    and put it in eval mode along with itself."""
    if type(func) is cst.Attribute and func.attr.value == "forward":
        return (func.value, *models_called(func.value)[1:])  # `model.forward(x)` written out
    if type(func) is cst.Attribute and func.attr.value == "module":
        return func, func.value
    return (func,)


def loop_forwards(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...], method: bool,
                  target: Target = lambda call: None,
                  ) -> tuple[frozenset[str], frozenset[str], Links, Links]:
    """(models left in the caller's mode, models put in eval mode here, models left in
    the caller's mode that a function of another module may run, models put in eval
    mode here that one may run) whose forward `func` runs in a loop of its own with
    grad on (see the module's docstring), or in one of a function of its file it hands
    them to (a wrapper: `def validate(model, loader): return _run_eval(model, loader)`,
    see `_wrapped`), each as a parameter or, for a method, `self.<attribute>`; the last
    two as (model, what the call of the other module names, the slot it hands the
    model), for its summary's `forwards_through` and `evaluated_through`. `target`: what
    a call runs, as its summary names it."""
    kept, evaluated, linked, evaluated_linked = _loop_forwards(ctx, func, params, method, target, 1)
    if (evaluated or evaluated_linked) and function_grad_mode(ctx, func) is None:
        evaluated, evaluated_linked = frozenset(), ()  # its own module reports these forwards
    return kept, evaluated, linked, evaluated_linked


def _loop_forwards(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...], method: bool,
                   target: Target, depth: int,
                   ) -> tuple[frozenset[str], frozenset[str], Links, Links]:
    """`loop_forwards`, whatever grad mode the calls of `func` in its module set."""
    # a module's own `forward` running its layers in a loop is no evaluation of data
    if decorated(func) or (method and func.name.value in _MODEL_METHODS):
        return NO_FORWARDS
    receiver = receiver_name(ctx, func) if method else None
    # (call, model, (callee, slot) of a link or None, put in eval mode by a wrapped function)
    candidates: list[tuple[cst.Call, str, tuple[str, str] | None, bool]] = []
    for call in ctx.calls_in_order(func.body):
        if repeating_loop(ctx, call) is None:
            if depth <= _CALLS_FOLLOWED:
                candidates.extend(_wrapped(ctx, call, func, params, method, target, depth))
            continue
        direct, through = _forwarded(ctx, call, func, target)
        name = next((name for model in (*models_called(call.func), *direct)
                     if (name := _handed_model(model, params, receiver)) is not None), None)
        if name is not None:
            candidates.append((call, name, None, False))
            continue
        candidates.extend((call, name, (callee, slot), False) for model, callee, slot in through
                          if (name := _handed_model(model, params, receiver)) is not None)
        if not through and depth <= _CALLS_FOLLOWED:
            candidates.extend(_wrapped(ctx, call, func, params, method, target, depth))
    if not candidates:
        return NO_FORWARDS
    nodes = ctx.own_nodes(func.body)
    rebound = _rebound(ctx, nodes, receiver)
    candidates = [item for item in candidates if item[1] not in rebound]
    if not candidates or _needs_a_graph(ctx, nodes, params):
        return NO_FORWARDS
    candidates = [item for item in candidates if lexical_grad_mode(ctx, item[0]) is None]
    if not candidates:
        return NO_FORWARDS
    switches = [(ctx.order_index(node), as_receiver_path(ctx.code(mode[0]), receiver), mode[1]) for node in nodes
                if (mode := mode_switch(ctx, node)) is not None]
    kept: set[str] = set()
    evaluated: set[str] = set()
    linked: dict[tuple[str, str, str], None] = {}
    evaluated_linked: dict[tuple[str, str, str], None] = {}
    for call, name, via, switched_there in candidates:
        # a switch of the model, or of a part of it (`model.module.eval()`)
        touched = [(at, model, is_on) for at, model, is_on in switches
                   if model == name or model.startswith(name + ".")]
        before = [(model, is_on) for at, model, is_on in touched if at < ctx.order_index(call)]
        if switched_there or (before and before[-1] == (name, False)):
            if via is None:
                evaluated.add(name)
            else:
                evaluated_linked.setdefault((name, *via), None)
        elif not touched:
            if via is None:
                kept.add(name)
            else:
                linked.setdefault((name, *via), None)
    return (frozenset(kept), frozenset(evaluated), tuple(item for item in linked if item[0] not in kept),
            tuple(item for item in evaluated_linked if item[0] not in evaluated))


def loop_methods(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...], method: bool,
                 ) -> tuple[tuple[str, str], ...]:
    """(parameter, method) of each parameter whose public method other than a forward
    `func` calls in a loop of its own with no grad mode around the call (SASRec's
    `model.predict(*batch)` per user), with the conditions of `loop_forwards` on a model
    left in the caller's mode (no decorator, nothing that needs the graph, no switch of
    its mode, nothing else bound to it): `Summary.method_forwards`, which a caller judges
    by the class of the model it hands (see `layer_methods`)."""
    if decorated(func) or (method and func.name.value in _MODEL_METHODS):
        return ()
    called: dict[tuple[str, str], None] = {}
    for call in ctx.calls_in_order(func.body):
        name = call.func.attr.value if type(call.func) is cst.Attribute else ""  # type: ignore[attr-defined]
        owner = call.func.value if name else None  # type: ignore[attr-defined]
        if type(owner) is cst.Name and owner.value in params and not name.startswith("_") \
                and name not in _NOT_FORWARDS and name != "module" \
                and repeating_loop(ctx, call) is not None and lexical_grad_mode(ctx, call) is None:
            called.setdefault((owner.value, name), None)
    if not called:
        return ()
    nodes = ctx.own_nodes(func.body)
    if _needs_a_graph(ctx, nodes, params):
        return ()
    touched = _rebound(ctx, nodes, None) | {ctx.code(mode[0]) for node in nodes if (mode := mode_switch(ctx, node))}
    return tuple(item for item in called
                 if not any(model == item[0] or model.startswith(item[0] + ".") for model in touched))


def layer_methods(ctx: FileContext, init: cst.FunctionDef) -> frozenset[str]:
    """`Class.method` of each method of the class whose `__init__` is `init` that runs its
    layers (see `runs_layers`): `Summary.layer_methods`."""
    cls = ctx.parent(ctx.parent(init) or init)
    if init.name.value != "__init__" or type(cls) is not cst.ClassDef:
        return frozenset()
    body = cls.body.body  # type: ignore[attr-defined]
    last = {name: at for at, statement in enumerate(body) for name in _class_names_bound(statement)}
    return frozenset(f"{cls.name.value}.{method.name.value}" for at, method in enumerate(body)
                     if type(method) is cst.FunctionDef and last.get(method.name.value) == at
                     and runs_layers(ctx, method))


def _class_names_bound(statement: cst.CSTNode) -> set[str]:
    """The names a statement of a class body may bind: a `def` its own; any other its
    targets, defs and imports anywhere inside, so that a later `score = no_grad()(score)`
    or a second `def score` makes the class's `score` another function than a `def`
    read before it."""
    if type(statement) in (cst.FunctionDef, cst.ClassDef):
        return {statement.name.value}  # type: ignore[attr-defined]
    names: set[str] = set()
    pending = [statement]
    while pending:
        node = pending.pop()
        names |= bound_names(node)
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            names.add(node.name.value)  # type: ignore[attr-defined]
        elif type(node) is cst.ImportAlias:
            alias = dotted_name(node.asname.name if node.asname is not None else node.name)  # type: ignore[union-attr]
            names.add((alias or "").partition(".")[0])
        pending.extend(node.children)
    return names


def _needs_a_graph(ctx: FileContext, nodes: Sequence[cst.CSTNode], params: tuple[str, ...]) -> bool:
    """Code of `nodes` needs the autograd graph, or a parameter is named for an optimizer."""
    return any(_needs_graph(ctx, node) for node in nodes) or any(optimizer_name(param) for param in params)


def _rebound(ctx: FileContext, nodes: Sequence[cst.CSTNode], receiver: str | None) -> set[str]:
    """The names `nodes` bind, as `_handed_model` names models."""
    return {as_receiver_path(name, receiver) for node in nodes for name in _bound(node)}


def _left_alone(ctx: FileContext, nodes: Sequence[cst.CSTNode], receiver: str | None) -> Callable[[str], bool]:
    """Whether a model (as `_handed_model` names it) is neither bound anew by `nodes` nor
    switched to a mode there, itself or a module of it."""
    rebound = _rebound(ctx, nodes, receiver)
    switched = {as_receiver_path(ctx.code(mode[0]), receiver) for node in nodes
                if (mode := mode_switch(ctx, node)) is not None}
    return lambda name: name not in rebound and not any(
        model == name or model.startswith(name + ".") for model in switched)


def _wrapped(ctx: FileContext, call: cst.Call, caller: cst.FunctionDef, params: tuple[str, ...], method: bool,
             target: Target, depth: int) -> list[tuple[cst.Call, str, tuple[str, str] | None, bool]]:
    """The models of the caller (as `_handed_model` names them) that `call` hands a
    function of the file whose own loops run their forward, as `_loop_forwards` of it
    tells (`return _run_eval(model, loader)`, `self._run_eval(self.model, loader)`),
    each with the link it goes through and whether that function puts it in eval mode
    itself (see `_followed_into`)."""
    if not _hands_a_model(call, params, receiver_name(ctx, caller) if method else None):
        return []
    followed = _followed_into(
        ctx, call, caller, params, method, _followed,
        lambda function, own, on_class: _loop_forwards(ctx, function, own, on_class, target, depth + 1), depth)
    if followed is None:
        return []
    (kept, evaluated, linked, evaluated_linked), mine = followed
    found: list[tuple[cst.Call, str, tuple[str, str] | None, bool]] = []
    for names, switched in ((kept, False), (evaluated, True)):
        found.extend((call, handed, None, switched) for name in sorted(names) if (handed := mine(name)) is not None)
    for items, switched in ((linked, False), (evaluated_linked, True)):
        found.extend((call, handed, (callee_name, slot), switched) for name, callee_name, slot in items
                     if (handed := mine(name)) is not None)
    return found


def _followed_into(ctx: FileContext, call: cst.Call, caller: cst.FunctionDef, params: tuple[str, ...], method: bool,
                   memo: Callable[[FileContext], dict[tuple[cst.FunctionDef, int], Any]],
                   read: Callable[[cst.FunctionDef, tuple[str, ...], bool], Found], depth: int,
                   ) -> tuple[Found, Callable[[str], str | None]] | None:
    """What `read` finds in the function of the file that `call` runs, given that
    function's own parameters (`self`, or a classmethod's `cls`, left out: see
    `is_method`) and whether it is a method, kept in `memo` by function and depth; with
    what names the models it finds as the caller does (see `_handed_model`): the
    argument handed to a parameter, or `self.<attribute>` of a method called on `self`
    from a method; None for what the caller does not hand it. None where `call` runs no
    function of the file, or one not followed: the caller itself, one with a decorator
    (see `decorated`), a module's `forward`, an `__init__`."""
    callee = ctx.local_callee(call)
    if callee is None or callee is caller or decorated(callee) or callee.name.value in _MODEL_METHODS \
            or callee.name.value == "__init__":
        return None
    on_class = is_method(ctx, callee)
    positional = [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)]
    own = named_parameters(callee) - ({positional[0]} if on_class and positional else set())
    followed = ctx.shared(memo)
    if (callee, depth + 1) not in followed:
        followed[(callee, depth + 1)] = read(callee, tuple(own), on_class)
    arguments = dict(bound_arguments(ctx, call, callee)[0])
    # a method called on its instance from a method names the same attributes of it,
    # whatever each calls its receiver (`self.validate()` of `def validate(trainer)`)
    receiver = receiver_name(ctx, caller) if method else None
    on_self = (receiver is not None and receiver_name(ctx, callee) is not None and type(call.func) is cst.Attribute
               and type(call.func.value) is cst.Name and call.func.value.value == receiver)

    def as_the_caller_names(name: str) -> str | None:
        if name.startswith("self."):
            return name if on_self else None
        value = arguments.get(name)
        return _handed_model(value, params, receiver) if value is not None else None

    return followed[(callee, depth + 1)], as_the_caller_names


def called_forwards(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...], method: bool,
                    target: Target = lambda call: None) -> tuple[frozenset[str], tuple[tuple[str, str, str], ...]]:
    """The parameters of a function whose forward it runs itself, as a helper that
    `_forwarded` of another module follows when the modules are linked
    (`Summary.called_forwards`): `def predict(model, x): return model(x)`, with the
    same conditions as a helper of the caller's own file, also through functions of
    its file it hands them to (`_CALLS_FOLLOWED` deep with itself); then those it hands
    so to a function of another module, with what the call names and the slot
    (`Summary.called_through`). For a method, the attributes of its instance whose
    forward it runs so, as `self.<attribute>` (see `_instance_forwards`)."""
    if func.name.value in _MODEL_METHODS:
        return frozenset(), ()
    if method:
        return _instance_forwards(ctx, func), ()
    run, through = _run_params(ctx, func, target, 1)
    return (frozenset(run) & frozenset(params),
            tuple((param, name, slot) for param, found in sorted(through.items()) if param in params
                  for name, slot in dict.fromkeys(found)))


def _instance_forwards(ctx: FileContext, method: cst.FunctionDef) -> frozenset[str]:
    """The attributes of the instance whose forward `method` runs itself, outside loops
    of its own and with no grad mode around the call, where it needs no graph, does not
    switch their mode and does not rebind them: a trainer's hook that a subclass of
    another module calls in its evaluation loop (`def validation_step(self, batch):
    return self.model(batch[0])`)."""
    receiver = receiver_name(ctx, method)
    if receiver is None or decorated(method):
        return frozenset()
    run = {name for call in ctx.calls_in_order(method.body)
           if lexical_grad_mode(ctx, call) is None and repeating_loop(ctx, call) is None
           for model in models_called(call.func)
           if type(model) is cst.Attribute and (name := _handed_model(model, (), receiver)) is not None}
    if not run:
        return frozenset()
    nodes = ctx.own_nodes(method.body)
    if any(_needs_graph(ctx, node) for node in nodes):
        return frozenset()
    left_alone = _left_alone(ctx, nodes, receiver)
    return frozenset(name for name in run if left_alone(name))


def wrapped_forwards(ctx: FileContext, func: cst.FunctionDef, params: tuple[str, ...], method: bool,
                     target: Target, depth: int = 1) -> Links:
    """(model, what the call names, the slot it is handed in) of each model (a parameter,
    or `self.<attribute>` of a method) that `func` hands, outside loops of its own and
    with no grad mode around the call, to a function of another module (itself, or through
    functions of its file it hands the model to so, `_CALLS_FOLLOWED` deep): the link of
    the modules tells whether that function evaluates it in a loop of its own
    (`Summary.wrapped_forwards`: `def validate(self): return evaluate(self.model,
    self.val_loader)`). With the conditions of `loop_forwards`, and no switch of the
    model's mode in `func`."""
    if decorated(func) or (method and func.name.value in _MODEL_METHODS):
        return ()
    receiver = receiver_name(ctx, func) if method else None
    found: dict[tuple[str, str, str], None] = {}
    for call in ctx.calls_in_order(func.body):
        if not _hands_a_model(call, params, receiver) or repeating_loop(ctx, call) is not None \
                or lexical_grad_mode(ctx, call) is not None:
            continue
        callee = ctx.local_callee(call)
        if callee is None:
            name = target(call)
            if name is not None:
                found.update(((handed, name, slot), None) for slot, arg in argument_slots(call)
                             if (handed := _handed_model(arg.value, params, receiver)) is not None)
            continue
        followed = None if depth >= _CALLS_FOLLOWED else _followed_into(
            ctx, call, func, params, method, _wrappers_followed,
            lambda function, own, on_class: wrapped_forwards(ctx, function, own, on_class, target, depth + 1), depth)
        if followed is None:
            continue
        inner, mine = followed
        for name, callee_name, slot in inner:
            if (handed := mine(name)) is not None:
                found[(handed, callee_name, slot)] = None
    if not found:
        return ()
    nodes = ctx.own_nodes(func.body)
    if _needs_a_graph(ctx, nodes, params):
        return ()
    left_alone = _left_alone(ctx, nodes, receiver)
    return tuple(item for item in found if left_alone(item[0]))


def _hands_a_model(call: cst.Call, params: tuple[str, ...], receiver: str | None) -> bool:
    """`call` may hand on a model of the caller: an argument names one (see
    `_handed_model`), or a method calls a method on its instance (whose attributes it
    shares), `receiver` being the caller's name of it (None for no method)."""
    func = call.func
    return (receiver is not None and type(func) is cst.Attribute and type(func.value) is cst.Name
            and func.value.value == receiver) \
        or any(_handed_model(arg.value, params, receiver) is not None for arg in call.args)


def _followed(ctx: FileContext) -> dict[tuple[cst.FunctionDef, int], tuple]:
    """What `_loop_forwards` found of each function of the file a wrapper's call was
    followed into, by depth: filled as the walks go (a function called by many)."""
    return {}


def _wrappers_followed(ctx: FileContext) -> dict[tuple[cst.FunctionDef, int], tuple]:
    """The same for `wrapped_forwards`."""
    return {}


def _handed_model(model: cst.BaseExpression, params: tuple[str, ...], receiver: str | None) -> str | None:
    """The model `model` names: a parameter, or an attribute of the method's instance
    (`receiver` its name there, None for no method), as `self.<attribute>`."""
    if type(model) is cst.Name:
        return model.value if model.value in params else None
    name = dotted_name(model) if receiver is not None and type(model) is cst.Attribute else None
    if name is None or not name.startswith(receiver + ".") or name.count(".") != 1:  # type: ignore[operator]
        return None
    return as_receiver_path(name, receiver)


def _forwarded(ctx: FileContext, call: cst.Call, caller: cst.FunctionDef, target: Target, depth: int = 1,
               ) -> tuple[list[cst.BaseExpression], list[tuple[cst.BaseExpression, str, str]]]:
    """The arguments of `call` whose forward the function of the file it calls runs,
    as the caller names them: `model` of `predict(model, x)` where `def predict(model,
    x): return model(x)` calls its parameter, with no decorator, no grad mode around
    that call, no loop of its own around it (an unrolled model the caller may train
    through), nothing that needs the graph, no switch of its mode and nothing else
    bound to it. `_CALLS_FOLLOWED` functions deep: itself, or a function of the file it
    hands the parameter to so (`run_batch(model, x)` returning `predict(model, x).argmax(-1)`),
    and so on.
    Then the arguments that a function of another module may run so, each with what
    the call of it names and the slot it is handed in, for the link of the modules
    to tell (`run_batch(model, x)` returning `predictors.predict(model, x)`)."""
    callee = ctx.local_callee(call)
    if callee is None:
        name = target(call) if depth <= _CALLS_FOLLOWED else None
        return [], [] if name is None else [(arg.value, name, slot) for slot, arg in argument_slots(call)]
    if callee is caller or decorated(callee) or callee.name.value in _MODEL_METHODS:
        return [], []
    run, through = _run_params(ctx, callee, target, depth)
    arguments, _ = bound_arguments(ctx, call, callee)
    return ([value for param, value in arguments if param in run],
            [(value, name, slot) for param, value in arguments for name, slot in through.get(param, ())])


def _run_params(ctx: FileContext, callee: cst.FunctionDef, target: Target, depth: int,
                ) -> tuple[set[str], dict[str, list[tuple[str, str]]]]:
    """The parameters of `callee` whose forward it runs (see `_forwarded`), then those
    it hands a function of another module, with what the call names and the slot; kept
    per file, not to be changed: a function is asked again at every call of it."""
    memo = ctx.shared(_run_params_memo)
    key = (callee, target, depth)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _read_run_params(ctx, callee, target, depth)
    return found


def _run_params_memo(ctx: FileContext) -> dict[tuple[cst.FunctionDef, Target, int],
                                                tuple[set[str], dict[str, list[tuple[str, str]]]]]:
    return {}


def _read_run_params(ctx: FileContext, callee: cst.FunctionDef, target: Target, depth: int,
                     ) -> tuple[set[str], dict[str, list[tuple[str, str]]]]:
    if decorated(callee):
        return set(), {}
    params = named_parameters(callee)
    run: set[str] = set()
    through: dict[str, list[tuple[str, str]]] = {}
    for inner in ctx.calls_in_order(callee.body):
        if lexical_grad_mode(ctx, inner) is not None or repeating_loop(ctx, inner) is not None:
            continue
        direct, later = _forwarded(ctx, inner, callee, target, depth + 1) if depth < _CALLS_FOLLOWED else ([], [])
        run.update(model.value for model in (*models_called(inner.func), *direct)
                   if type(model) is cst.Name and model.value in params)
        for model, name, slot in later:
            if type(model) is cst.Name and model.value in params:
                through.setdefault(model.value, []).append((name, slot))
    if not run and not through:
        return set(), {}
    nodes = ctx.own_nodes(callee.body)
    if any(_needs_graph(ctx, node) for node in nodes):
        return set(), {}
    rebound = {name for node in nodes for name in _bound(node)}
    switched = {ctx.code(mode[0]).split(".", 1)[0] for node in nodes if (mode := mode_switch(ctx, node)) is not None}
    run -= rebound | switched
    return run, {param: found for param, found in through.items() if param not in run | rebound | switched}


# how many functions deep, the first included, a call's forward is followed (the
# caller's file's and, at the end of the chain, one of another module)
_CALLS_FOLLOWED = 4


def _needs_graph(ctx: FileContext, node: cst.CSTNode) -> bool:
    """A backward, a step, a clear, `torch.autograd.grad`, an optimizer built, or one
    handed to code out of sight (named for one: the variables' kinds are not read here)."""
    if is_backward(node) or clears_grads(ctx, node) or method_call(node, "step") is not None:
        return True
    if type(node) is not cst.Call:
        return False
    name = ctx.call_name(node)
    return name in _GRAPH_USERS or constructor_kind(name) == OPTIMIZER or (
        bool(node.args) and ctx.local_callee(node) is None and any(named_for_an_optimizer(arg.value) for arg in node.args))


def _bound(node: cst.CSTNode) -> set[str]:
    """Names and `self.` attributes an assignment binds (not a `with ... as`)."""
    if type(node) is cst.WithItem:
        return set()
    return {name for part in bound_parts(node) if (name := dotted_name(part)) is not None}


# methods of a module that run no forward, or whose name says what they are
_NOT_FORWARDS = frozenset({"forward", "train", "eval", "parameters", "named_parameters", "state_dict",
                           "load_state_dict", "zero_grad", "to", "cuda", "cpu", "half", "float", "apply",
                           "requires_grad_", "register_buffer", "init_weights", "reset_parameters"})
_GRAD_MODES = NO_GRAD | {ENABLE_GRAD, SET_GRAD_ENABLED}


def runs_layers(ctx: FileContext, method: cst.FunctionDef) -> bool:
    """`method` runs its module's layers as its `forward` does: a public method of a
    class that subclasses `nn.Module`, calling `self.<layer>(...)` (an attribute the
    class assigns, or `forward`) or `self(...)`, with no decorator and no grad mode of
    its own (`def log_prob(self, w): return log_softmax(self.out(self.emb(w)), -1)`,
    a2c-ppo's `def act(self, inputs): value, features = self.base(inputs) ...`)."""
    cls = ctx.parent(ctx.parent(method) or method)
    if type(cls) is not cst.ClassDef or method.decorators or method.name.value.startswith("_") \
            or method.name.value in _NOT_FORWARDS:
        return False
    if not any(ctx.qualified_name(base.value) == "torch.nn.Module" for base in cls.bases):
        return False
    nodes = ctx.subtree(method.body)
    if any(type(n) in (cst.Name, cst.Attribute) and ctx.qualified_name(n) in _GRAD_MODES for n in nodes):  # type: ignore[arg-type]
        return False
    layers = ctx.shared(_layers).get(cls, frozenset())
    receiver = receiver_name(ctx, method)
    return receiver is not None and any(
        type(n) is cst.Call and _on_self(n.func, layers, receiver) for n in nodes)  # type: ignore[attr-defined]


def _layers(ctx: FileContext) -> dict[cst.ClassDef, frozenset[str]]:
    """Each class's layers: what its methods assign to attributes of their instance
    (whatever each calls it), and `forward`."""
    found: dict[cst.ClassDef, frozenset[str]] = {}
    for cls in ctx.nodes_of(cst.ClassDef):
        assigned = {"forward"}
        for node in ctx.subtree(cls.body):  # type: ignore[attr-defined]
            if type(node) is cst.AssignTarget and type(target := node.target) is cst.Attribute \
                    and type(target.value) is cst.Name and (function := ctx.enclosing_function(node)) is not None \
                    and target.value.value == receiver_name(ctx, function):
                assigned.add(target.attr.value)
        found[cls] = frozenset(assigned)  # type: ignore[index]
    return found


def _on_self(func: cst.BaseExpression, layers: frozenset[str], receiver: str) -> bool:
    """`self.layer` (an attribute the class assigns, or `forward`) or `self` itself, called,
    `receiver` being what the method calls its instance."""
    return (type(func) is cst.Name and func.value == receiver) or (
        type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == receiver
        and func.attr.value in layers)
