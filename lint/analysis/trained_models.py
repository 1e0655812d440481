"""Which models a file trains, as written: put in train mode, their parameters read
for an optimizer, handed to an optimizer or to the builder of its parameter groups,
trained by an object the file builds (`PPO(actor_critic)` building `Adam(actor_critic.parameters())`),
or run in a forward pass whose result is back-propagated, also through the file's
helpers. An EMA copy that only samples, or a frozen feature extractor, is none of these.

TL107 asks a narrower question, by binding: whose parameters an optimizer of the file
receives (`HalfPrecisionTraining._trained_models`). Neither answers the other's: TL107
from here would flag float16 models whose parameters are only read (a teacher's
`count(teacher.parameters())`) and miss groups from `model.bias_parameters()`; TL405
from there would lose the models it knows only from a back-propagated forward."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.accumulators import consumed_names
from trainlint.analysis.dataflow import names_in
from trainlint.analysis.loops import lexical_grad_mode, mode_switch
from trainlint.analysis.receivers import OPTIMIZER, constructor_kind
from trainlint.analysis.scopes import argument_slots, bound_arguments, dotted_name, handed_receiver, receiver_method
from trainlint.analysis.training import code_bodies, method_call, unchain_module
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.summaries import STEP, Summary


def trained_models(ctx: FileContext, forward: bool = True, within: cst.CSTNode | None = None) -> set[str]:
    """Models the file trains, as written: put in train mode, their parameters read
    (for an optimizer), handed to an optimizer factory, or (`forward`) run in a forward
    pass whose result is back-propagated. An EMA copy that only samples, or a frozen
    feature extractor, is none of these. `within` reads only the calls of that code (a
    class's own optimizer, not another class's of the same attribute name)."""
    trained: set[str] = set()
    for body in code_bodies(ctx) if forward else ():
        consumed = consumed_names(ctx, body, graph_only=True)
        trained |= consumed | _run_by_helpers(ctx, body, consumed)
    calls = ctx.nodes_of(cst.Call) if within is None else [n for n in ctx.subtree(within) if type(n) is cst.Call]
    for call in calls:
        mode = mode_switch(ctx, call)
        if mode is not None and mode[1] is not False:
            trained |= _with_kept_names(ctx, mode[0])
        owner = method_call(call, "parameters", "named_parameters")
        if owner is not None and not _walked_by_hand(ctx, call):
            trained |= _with_kept_names(ctx, unchain_module(owner))
        name = dotted_name(call.func) or ""  # type: ignore[attr-defined]
        if "optim" in name.rsplit(".", 1)[-1].lower():
            for arg in call.args:  # type: ignore[attr-defined]
                trained |= _with_kept_names(ctx, arg.value)
        if constructor_kind(ctx.call_name(call)) == OPTIMIZER:  # type: ignore[arg-type]
            trained |= _grouped_models(ctx, call)  # type: ignore[arg-type]
        trained.update(_optimized_models(ctx, call))  # type: ignore[arg-type]
    return trained


def _with_kept_names(ctx: FileContext, model: cst.BaseExpression) -> set[str]:
    """`model` as written, and the attributes of `self` its function keeps it in
    (`self.model = model` of a constructor whose optimizer is built from
    `model.parameters()`)."""
    found = {ctx.code(model)}
    function = ctx.enclosing_function(model)
    if type(model) is not cst.Name or function is None:
        return found
    for node in ctx.own_nodes(function.body):
        if type(node) is cst.Assign and type(node.value) is cst.Name and node.value.value == model.value:
            found.update(ctx.code(target.target) for target in node.targets
                         if type(target.target) is cst.Attribute
                         and receiver_method(ctx, target.target.value) is function)
    return found


def _run_by_helpers(ctx: FileContext, body: cst.CSTNode, consumed: set[str], depth: int = 0) -> set[str]:
    """What the functions of the file that `body` calls for a value it back-propagates
    (`loss = self._forward(x)`, then `loss.backward()`) read to compute what they
    return, as the caller names it: `self.model` of a method called on `self`, the
    argument given to a parameter, a module-level name; through such calls a few deep.
    A value returned under a grad mode (or by a decorated function) is not counted."""
    found: set[str] = set()
    for call in ctx.calls_in_order(body):
        helper = ctx.local_callee(call)
        if helper is None or depth > 2 or ctx.code(call.func) not in consumed:
            continue
        # what it returns with gradients on (not a teacher's targets under `torch.no_grad()`)
        returned = set().union(*(names_in(node.value, ctx) for node in ctx.own_nodes(helper.body)
                                 if type(node) is cst.Return and node.value is not None
                                 and lexical_grad_mode(ctx, node) is None))
        inside = consumed_names(ctx, helper.body, handed=returned, graph_only=True)
        inside |= _run_by_helpers(ctx, helper.body, inside, depth + 1)
        found |= _as_called(ctx, call, helper, inside)
    return found


def _as_called(ctx: FileContext, call: cst.Call, helper: cst.FunctionDef, names: set[str]) -> set[str]:
    """`names` of `helper`'s body as the code that makes `call` names them: a
    parameter as the argument given to it (when that is a name), the first parameter of
    a method called on `self` as `self` (see `handed_receiver`), a name the helper does
    not bind as is."""
    given: dict[str, cst.BaseExpression] = {**dict(bound_arguments(ctx, call, helper)[0]),
                                            **handed_receiver(ctx, call, helper)}
    local = ctx.scopes.scope_for(helper).locals
    found: set[str] = set()
    for name in names:
        head, dot, rest = name.partition(".")
        if head in given:
            outer = dotted_name(given[head])
            if outer is not None:
                found.add(outer + dot + rest)
        elif head != "self" and head not in local:
            found.add(name)
    return found


def _grouped_models(ctx: FileContext, optimizer: cst.Call) -> set[str]:
    """Models handed to the call that builds an optimizer's parameter groups
    (`AdamW(param_groups_lrd(model, wd))`, or through one variable: MAE's and BEiT's
    layer-wise decay builder, in another module)."""
    found: set[str] = set()
    for arg in optimizer.args:
        value = arg.value
        if type(value) is cst.Name:
            binding = ctx.receivers.binding(value)
            assigned = ctx.receivers.assigned(binding) if binding is not None else []
            value = assigned[0] if len(assigned) == 1 else value
        if type(value) is cst.Call:
            found.update(ctx.code(inner.value) for inner in value.args
                         if dotted_name(inner.value) is not None)
    return found


def _walked_by_hand(ctx: FileContext, call: cst.CSTNode) -> bool:
    """`ema.parameters()` iterated by the code itself (`for pe, pm in zip(ema.parameters(),
    model.parameters()): pe.mul_(d).add_(pm, ...)`, an EMA or momentum teacher's update):
    the weights are read, not handed to an optimizer that trains them."""
    for ancestor in ctx.ancestors(call):
        if type(ancestor) is cst.For:
            return any(node is call for node in iter_nodes(ancestor.iter))
        if type(ancestor) in (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef):
            return False
    return False


def _optimized_models(ctx: FileContext, call: cst.Call) -> list[str]:
    """The models an object trains when its method `call` runs steps an optimizer
    (`agent.update(rollouts)`): the arguments its constructions handed to the
    parameters its constructor hands to the optimizer it builds, directly or as the
    attributes it keeps them in (`PPO(actor_critic)` building
    `Adam(actor_critic.parameters())`)."""
    summary = ctx.summaries.of_unwalked_call(call)
    if summary is None or not summary.does(STEP) or type(call.func) is not cst.Attribute:
        return []
    found: list[str] = []
    # each construction of the class whose method runs (`agent = A2C(...)` on two branches)
    for built in ctx.summaries.targets.constructions_of_its_class(call.func.value):
        constructor = ctx.summaries.of_constructor(built)
        if constructor is not None:
            optimized = {constructor.stored(name) if name.startswith("self.") else name
                         for name in constructor.optimizes}
            found += given_to(ctx, built, constructor, optimized - {None})  # type: ignore[arg-type]
    return found


def construction_of_receiver(ctx: FileContext, call: cst.Call) -> tuple[cst.Call, Summary] | None:
    """The one call that built the object a method is called on (`evaluator = Evaluator(...)`
    for `evaluator.run()`), with what its constructor does."""
    func = call.func
    if type(func) is not cst.Attribute:
        return None
    built = ctx.summaries.targets.construction(func.value)
    constructor = ctx.summaries.of_constructor(built) if built is not None else None
    return (built, constructor) if built is not None and constructor is not None else None


def given_to(ctx: FileContext, built: cst.Call, constructor: Summary, params: set[str]) -> list[str]:
    """The arguments of the construction `built` bound to `params` of its constructor, as written."""
    return sorted(ctx.code(arg.value) for slot, arg in argument_slots(built) if constructor.slot(slot) in params)
