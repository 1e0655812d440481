"""What the calls the flow does not walk into do to train / eval mode: functions of
other modules and methods of objects, with the models they put in eval mode as the
caller writes them (a parameter's argument, `self.model` of an inherited method, the
object itself, the model an object was built with)."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.scopes import argument_slots, dotted_name, receiver_method
from trainlint.analysis.trained_models import construction_of_receiver, given_to
from trainlint.context import FileContext
from trainlint.summaries import BACKWARD, EVAL, TRAIN, Summary


def mode_setting_calls(ctx: FileContext) -> dict[cst.CSTNode, Summary]:
    """Calls that set train/eval mode or back-propagate where the flow does not walk
    into them, with what they do: functions of other modules, and methods of objects
    of this file's classes (`stepper.apply(loss, optimizer)`, `loss_scaler(loss, optimizer)`)."""
    found: dict[cst.CSTNode, Summary] = {}
    for call in ctx.nodes_of(cst.Call):
        summary = ctx.summaries.of_unwalked_call(call)
        if summary is not None and any(e in (TRAIN, EVAL, BACKWARD) for e in summary.events):
            found[call] = summary
    for call, summary in _one_of_the_alternatives(ctx).items():
        if any(e in (TRAIN, EVAL, BACKWARD) for e in summary.events):
            found[call] = summary
    return found


def handed_away(ctx: FileContext) -> dict[cst.CSTNode, list[str]]:
    """Calls that hand models to code out of reach, with those models as written: a
    function the file imports that no summary tells (`enable_dropout(model)` of a
    library, or of a module the project does not hold), or one of the project that
    hands its parameter on to such a function (`Summary.handed_away`). What it does to
    them is not told: it may put them back in train mode. Only modules count (see
    `_modules_handed`): what is derived from one (`model.state_dict()`) cannot switch it."""
    found: dict[cst.CSTNode, list[str]] = {}
    for call in ctx.nodes_of(cst.Call):
        summary = ctx.summaries.of_call(call)  # type: ignore[arg-type]
        if summary is None and ctx.summaries.targets.imported_function(call) is not None:  # type: ignore[arg-type]
            values = [arg.value for arg in call.args if not arg.star]  # type: ignore[attr-defined]
        elif summary is not None and summary.handed_away:
            values = [arg.value for slot, arg in argument_slots(call)  # type: ignore[arg-type]
                      if summary.slot(slot) in summary.handed_away]
        else:
            continue
        models = [model for value in values for model in _modules_handed(ctx, value)]
        if models:
            found[call] = models
    return found


def _modules_handed(ctx: FileContext, value: cst.BaseExpression) -> list[str]:
    """The models, as written, that an argument may hand on: a name or a plain chain of
    attributes (`model`, `model.backbone`), what a name was assigned such a chain
    (`net = model`), and the items of a list, tuple or set written in place
    (`[model, ema]`). A call or a subscript of a model (`model.state_dict()`,
    `model.weight.detach()`) hands on something else than the module."""
    if type(value) in (cst.List, cst.Tuple, cst.Set):
        return [model for element in value.elements  # type: ignore[attr-defined]
                for model in _modules_handed(ctx, element.value)]
    name = dotted_name(value)
    if name is None:
        return []
    binding = ctx.receivers.binding(value) if type(value) is cst.Name else None
    aliased = ctx.receivers.assigned(binding) if binding is not None else []
    return [name, *(held for other in aliased if (held := dotted_name(other)) is not None)]


def _one_of_the_alternatives(ctx: FileContext) -> dict[cst.CSTNode, Summary]:
    """What a call does of a name that imports on different branches bind to one of
    several functions of the project (`if dense: from train.epochs import train_dense as
    train_epoch` / `else: ... train_sparse as train_epoch`). Where the alternatives set
    and read modes alike (both `evaluate_network`s put their `model` in eval mode), that.
    Otherwise one of them, the same at every call of the name, picked to reach a backward
    pass in the mode it finds (no `.train()`, a backward): the run that imports it does
    what this file is judged by. Only for one such name of the file: which alternative of
    a second one goes with it (the same branch) is not told, and a pick of each could
    join two that never run together."""
    alike: dict[cst.CSTNode, Summary] = {}
    picked: dict[str, dict[cst.CSTNode, Summary]] = {}
    for call, names in ctx.summaries.alternatives().items():
        summaries = [ctx.external.get(name) for name in names]
        if any(summary is None for summary in summaries):
            continue  # one of them is out of reach: what it does is not told
        shapes = {_mode_shape(summary) for summary in summaries}  # type: ignore[arg-type]
        if len(shapes) == 1:
            alike[call] = summaries[0]  # type: ignore[assignment]
            continue
        # no `.train()` first, then a backward pass
        pick = min(summaries, key=lambda s: (TRAIN in s.events, BACKWARD not in s.events))  # type: ignore[union-attr]
        picked.setdefault(call.func.value, {})[call] = pick  # type: ignore[attr-defined,assignment]
    if len(picked) == 1:
        alike.update(next(iter(picked.values())))
    return alike


def _mode_shape(summary: Summary) -> tuple[object, ...]:
    """What a function does to modes and backward passes, in order, and which of its
    positional parameters it puts in eval mode."""
    effects = tuple(e for e in summary.events if e in (TRAIN, EVAL, BACKWARD))
    evaluated = tuple(sorted(f"#{summary.params.index(p)}" if p in summary.params else p for p in summary.eval_mode))
    return effects, evaluated


def evaluated_own_models(ctx: FileContext, call: cst.Call, summary: Summary) -> list[str]:
    """`self.model` for `self.evaluate()` whose method (inherited from another module)
    puts its own `self.model` in eval mode: the same object's attribute here, as this
    method names its instance (`trainer.model` of `def fit(trainer)`)."""
    func = call.func
    if type(func) is not cst.Attribute or receiver_method(ctx, func.value) is None:
        return []
    return sorted(ctx.code(func.value) + name[len("self"):] for name in summary.eval_mode if name.startswith("self."))


def evaluated_object(ctx: FileContext, call: cst.Call, summary: Summary) -> list[str]:
    """The object a method is called on (`discr` of `discr.predict_reward(obs)`) when the
    method puts its own object in eval mode (`self.eval()`); not `self` of a method
    inherited from another module (what that object trains is not told here)."""
    func = call.func
    if "self" not in summary.eval_mode or type(func) is not cst.Attribute:
        return []
    if receiver_method(ctx, func.value, classes=True) is not None:
        return []
    return [ctx.code(func.value)]


def evaluated_held_models(ctx: FileContext, call: cst.Call, summary: Summary) -> list[str]:
    """The model an object holds when its method puts `self.model` in eval mode
    (`evaluator.run()`): the argument its one construction handed to the
    parameter its constructor keeps as `self.model` (`Evaluator(model, val_loader)`)."""
    built = construction_of_receiver(ctx, call)
    if built is None:
        return []
    constructor = built[1]
    held = {constructor.stored(name) for name in summary.eval_mode if name.startswith("self.")} - {None}
    return given_to(ctx, *built, held)
