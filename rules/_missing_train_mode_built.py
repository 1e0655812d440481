"""TL405's models left in eval mode from the start: a class that puts `self.model` in
eval mode where it is set up (`self.model = Net().eval()` in `__init__`, or
`self.model.eval()` in a method its training method calls first) and trains it in a
loop of another method, where none of its own methods ever puts it back in train mode.

Only what the class itself surely does is read: a class with base classes (whose
methods may switch modes) or with subclasses in the file, a switch under a condition,
and a loop that does not both back-propagate and step an optimizer are left alone."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from trainlint.analysis.loops import is_backward, mode_switch, optimizer_step
from trainlint.analysis.scopes import assignment_targets, dotted_name
from trainlint.analysis.training import method_call
from trainlint.context import FileContext


def left_in_eval_mode(ctx: FileContext, stepped: set[str]) -> Iterator[tuple[cst.Call, str, str, str]]:
    """Each `.eval()` (the call, the model as written, the method that makes it, the
    method that then trains it) of an attribute of `self` among `stepped` (the models whose
    parameters the file steps) that a method of its class trains in a loop without any
    method of the class putting it back in train mode."""
    classes = ctx.nodes_of(cst.ClassDef)
    subclassed = {dotted_name(base.value) for cls in classes for base in cls.bases}  # type: ignore[attr-defined]
    # what the file puts in train mode anywhere, by its last name (`trainer.model.train()`)
    put_back = {ctx.code(switch).rsplit(".", 1)[-1] for node in ctx.nodes_of(cst.Call, cst.Attribute)
                if (switch := _switched_to_train(ctx, node)) is not None}
    for cls in classes:
        if cls.bases or cls.name.value in subclassed:  # type: ignore[attr-defined]
            continue
        methods = {f.name.value: f for f in cls.body.body if type(f) is cst.FunctionDef}  # type: ignore[attr-defined]
        if any(_switched_to_train(ctx, node) is not None for node in ctx.subtree(cls)):
            continue
        for trainer in methods.values():
            for model, loop in _training_loops(ctx, trainer):
                if model not in stepped or model.split(".", 1)[1] in put_back:
                    continue
                for setup in _set_up_first(ctx, trainer, loop, methods):
                    for call in _top_level_evals(ctx, setup, model):
                        if not _assigned_after(ctx, cls, call, model):
                            yield call, model, setup.name.value, trainer.name.value


def _assigned_after(ctx: FileContext, cls: cst.ClassDef, call: cst.Call, model: str) -> bool:
    """A method of `cls` assigns `model` anew other than before `call`: earlier in its
    method, by the statement of `call` itself, or in `__init__` when `call` is in another
    method (a new module is in train mode)."""
    method = ctx.enclosing_function(call)
    for node in ctx.subtree(cls):
        if type(node) not in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            continue
        if not any(dotted_name(target) == model for target in assignment_targets(node)):
            continue
        if any(a is node for a in ctx.ancestors(call)):
            continue
        assigning = ctx.enclosing_function(node)
        if assigning is method:
            if ctx.order_index(node) > ctx.order_index(call):
                return True
        elif assigning is None or assigning.name.value != "__init__" or method.name.value == "__init__":  # type: ignore[union-attr]
            return True
    return False


def _switched_to_train(ctx: FileContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """What `node` may put in train mode: `model` of `model.train()`, `model.train(flag)`,
    or of an assignment of `model.training`."""
    mode = mode_switch(ctx, node)
    if mode is not None and mode[1] is not False:
        return mode[0]
    if type(node) is cst.Attribute and node.attr.value == "training" and type(ctx.parent(node)) is cst.AssignTarget:
        return node.value
    return None


def _training_loops(ctx: FileContext, method: cst.FunctionDef) -> Iterator[tuple[str, cst.For | cst.While]]:
    """The loops of `method` that run an attribute of `self` forward, back-propagate and
    step an optimizer, each with that attribute (`self.model`)."""
    for loop in ctx.own_nodes(method.body):
        if type(loop) not in (cst.For, cst.While):
            continue
        inside = ctx.subtree(loop.body)  # type: ignore[attr-defined]
        if not any(is_backward(node) for node in inside) or not any(optimizer_step(ctx, n) for n in inside):
            continue
        run = {dotted_name(node.func) for node in inside if type(node) is cst.Call}  # type: ignore[attr-defined]
        for model in sorted(name for name in run if name is not None and name.startswith("self.")
                            and name.count(".") == 1):
            yield model, loop  # type: ignore[misc]


def _set_up_first(ctx: FileContext, trainer: cst.FunctionDef, loop: cst.CSTNode,
                  methods: dict[str, cst.FunctionDef]) -> Iterator[cst.FunctionDef]:
    """The methods that surely run before `loop` once the object exists: `__init__`, and
    those `trainer` calls on `self` as statements of its own body before the loop
    (`self.setup()`)."""
    if "__init__" in methods and methods["__init__"] is not trainer:
        yield methods["__init__"]
    for statement in trainer.body.body:  # type: ignore[attr-defined]
        if ctx.order_index(statement) >= ctx.order_index(loop):
            return
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            callee = method_call(small.value, *methods) if type(small) is cst.Expr else None
            name = small.value.func.attr.value if callee is not None else None  # type: ignore[attr-defined]
            if dotted_name(callee) == "self" and name not in ("__init__", trainer.name.value):  # type: ignore[arg-type]
                yield methods[name]  # type: ignore[index]


def _top_level_evals(ctx: FileContext, method: cst.FunctionDef, model: str) -> Iterator[cst.Call]:
    """The `.eval()` calls on `model` that every run of `method` makes: in a statement of
    its own body (`self.model.eval()`, `self.model = Net().eval()`), under no condition."""
    for statement in method.body.body:  # type: ignore[attr-defined]
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Expr:
                switch = mode_switch(ctx, small.value)
                if switch is not None and switch[1] is False and dotted_name(switch[0]) == model:
                    yield small.value  # type: ignore[misc]
            elif type(small) is cst.Assign and len(small.targets) == 1 \
                    and dotted_name(small.targets[0].target) == model:
                value = small.value  # `Net().eval()`: what it builds is in eval mode
                if method_call(value, "eval") is not None and not value.args:  # type: ignore[attr-defined]
                    yield value  # type: ignore[misc]
