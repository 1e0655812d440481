"""TL405's models left in eval mode from the start: a class that puts `self.model` in
eval mode where it is set up (`self.model = Net().eval()` in `__init__`, or
`self.model.eval()` in a method its training method calls first) and trains it in a
loop of another method, where nothing may put it back in train mode; and a script
that does the same with a name of the module (`model = Net().eval()`, then a training
loop of the module's own code, its `if __name__ == "__main__":` block included), or a
function with a model it surely builds itself (a module of torch, torchvision, timm or
of the file). Neither where the model's own parameters are frozen: a linear probe keeps
its backbone in eval mode on purpose.

Only what the class itself surely does is read: a class with base classes (whose
methods may switch modes), with subclasses in the file or with decorators, a decorated
training method, a switch under a condition, a loop that does not both back-propagate
and step an optimizer the class builds for the model, and a model (or its class's
instance) that reaches code which may switch its mode are left alone."""

from __future__ import annotations

from typing import Iterator, Sequence

import libcst as cst

from trainlint.analysis.dataflow import code_text_runs, is_constant, target_names
from trainlint.analysis.literals import string_value
from trainlint.analysis.loops import is_backward, lexical_grad_mode, mode_switch, optimizer_step
from trainlint.analysis.names import BUILTIN_NAMES
from trainlint.analysis.receivers import Binding
from trainlint.analysis.scopes import _parameters, assignment_targets, dotted_name, runs_as_script_only
from trainlint.analysis.trained_models import trained_models
from trainlint.analysis.training import MODULE_WRAPPERS, is_torch_nn_class, method_call, module_behind
from trainlint.context import FileContext
from trainlint.summaries import NN_MODULE

# methods of a module that read it or its weights and leave its mode (and its submodules) alone
_READS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "state_dict",
                    "load_state_dict", "zero_grad"})
# methods that return the module itself: harmless only when that result is dropped or kept
# under the same name (`self.model = self.model.to(device)`), not handed on
_RETURNS_ITSELF = frozenset({"to", "cuda", "cpu", "half", "float", "double", "eval", "requires_grad_"})
# the training loops of a script, by variable: each loop's place in source order and the optimizers it steps
_Loops = dict[Binding, list[tuple[int, list[cst.BaseExpression]]]]


def left_in_eval_mode(ctx: FileContext) -> Iterator[tuple[cst.Call, str, str, str]]:
    """Each `.eval()` (the call, the model as written, the method that makes it, the
    method that then trains it) of an attribute of `self` that its class steps an
    optimizer for and trains in a loop of a method, where nothing may put it back in
    train mode (see `_may_reach_train`), and whose parameters the class freezes none of
    (see `_frozen_modules`: a linear probe keeps its backbone in eval mode on purpose)."""
    classes = ctx.nodes_of(cst.ClassDef)
    subclassed = {dotted_name(base.value) for cls in classes for base in cls.bases}  # type: ignore[attr-defined]
    # what the file puts in train mode anywhere, by its last name (`model.train()` of the
    # module a caller also handed to the class)
    put_back = {ctx.code(switch).rsplit(".", 1)[-1] for node in ctx.nodes_of(cst.Call, cst.Attribute)
                if (switch := _switched_to_train(ctx, node)) is not None}
    for cls in classes:
        if cls.bases or cls.decorators or cls.name.value in subclassed:  # type: ignore[attr-defined]
            continue
        methods = {f.name.value: f for f in cls.body.body if type(f) is cst.FunctionDef}  # type: ignore[attr-defined]
        # a decorated training method is left alone: its wrapper may switch modes (`@enable_training`)
        loops = [(trainer, model, loop) for trainer in methods.values() if not trainer.decorators
                 for model, loop in _training_loops(ctx, trainer)]
        stepped = trained_models(ctx, forward=False, within=cls) if loops else set()  # type: ignore[arg-type]
        for trainer, model, loop in loops:
            if model not in stepped or model.split(".", 1)[1] in put_back \
                    or _may_reach_train(ctx, cls, model) \
                    or _freezes_attribute(ctx, cls, model):  # type: ignore[arg-type]
                continue
            for setup in _set_up_first(ctx, trainer, loop, methods):
                for call in _top_level_evals(ctx, setup, model):
                    if not _assigned_after(ctx, cls, call, model):  # type: ignore[arg-type]
                        yield call, model, setup.name.value, trainer.name.value


def _may_reach_train(ctx: FileContext, cls: cst.ClassDef, model: str) -> bool:
    """Code may put `model` (`self.net`) of `cls` back in train mode: a switch in `cls`
    of anything but a module the class builds itself (`self.head = nn.Linear(...)`), the
    instance handed on (`callback(self)`, `vars(self)`), or the attribute (of any
    receiver outside `cls`: `trainer.net`) used other than by its forward, reads of its
    weights, or moves (see `_leaves_mode`): handed to a call (`set_train(self.net)`),
    walked (`.modules()`, `.apply(...)`), kept under another name."""
    attribute = model.split(".", 1)[1]
    for node in ctx.subtree(cls):
        switch = _switched_to_train(ctx, node)
        if switch is not None and not _built_apart(ctx, cls, switch, model):
            return True
        if type(node) is cst.Name and node.value == "self" and not _attribute_receiver(ctx, node) \
                and type(ctx.parent(node)) is not cst.Param:
            return True
    for node in ctx.nodes_of(cst.Attribute):
        if node.attr.value != attribute or _leaves_mode(ctx, node):  # type: ignore[attr-defined]
            continue
        owner = _enclosing_class(ctx, node)
        if owner is cls or dotted_name(node.value) != "self" or owner is None:  # type: ignore[attr-defined]
            return True
    return False


def _attribute_receiver(ctx: FileContext, node: cst.CSTNode) -> bool:
    parent = ctx.parent(node)
    return type(parent) is cst.Attribute and parent.value is node


def _enclosing_class(ctx: FileContext, node: cst.CSTNode) -> cst.ClassDef | None:
    return next((a for a in ctx.ancestors(node) if type(a) is cst.ClassDef), None)  # type: ignore[misc]


def _leaves_mode(ctx: FileContext, attribute: cst.Attribute | cst.Name) -> bool:
    """`attribute` (`self.net`, or a name: `model`) is run forward, its weights read, moved
    in place (`self.net.to(device)` as a statement or kept as `self.net`), or assigned anew."""
    parent = ctx.parent(attribute)
    if type(parent) is cst.Call and parent.func is attribute:
        return True
    if type(parent) is cst.AssignTarget:
        return True
    if type(parent) is not cst.Attribute or parent.value is not attribute:
        return False
    call = ctx.parent(parent)
    if type(call) is not cst.Call or call.func is not parent:
        return False
    if parent.attr.value in _READS or parent.attr.value == "forward":
        return True
    kept = ctx.parent(call)
    return parent.attr.value in _RETURNS_ITSELF and (
        type(kept) is cst.Expr
        or (type(kept) is cst.Assign and all(dotted_name(t.target) == ctx.code(attribute) for t in kept.targets)))


def _built_apart(ctx: FileContext, cls: cst.ClassDef, switched: cst.BaseExpression, model: str) -> bool:
    """`switched` (`self.head` of `self.head.train()`) is another attribute of `self` than
    `model`, that `cls` only ever sets to a new module it builds (`nn.Linear(8, 8)`, see
    `_constructs_module`): it cannot be `model`'s module."""
    name = dotted_name(switched)
    if name is None or name == model or not name.startswith("self.") or name.count(".") != 1:
        return False
    values = [node.value for node in ctx.subtree(cls)  # type: ignore[attr-defined]
              if type(node) in (cst.Assign, cst.AnnAssign, cst.AugAssign)
              and any(dotted_name(target) == name for target in assignment_targets(node))]
    return bool(values) and all(type(value) is cst.Call and _constructs_module(ctx, value) for value in values)


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
    """The loops of `method` that run an attribute of `self` forward with gradients,
    back-propagate and step an optimizer, each with that attribute (`self.model`)."""
    for loop in ctx.own_nodes(method.body):
        if type(loop) not in (cst.For, cst.While):
            continue
        inside = ctx.subtree(loop.body)  # type: ignore[attr-defined]
        if not any(is_backward(node) for node in inside) or not any(optimizer_step(ctx, n) for n in inside):
            continue
        # a forward under `torch.no_grad()` (a frozen feature extractor) does not train it
        run = {dotted_name(node.func) for node in inside  # type: ignore[attr-defined]
               if type(node) is cst.Call and lexical_grad_mode(ctx, node) in (None, "on")}
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


def left_in_eval_by_the_script(ctx: FileContext) -> Iterator[tuple[cst.Call, str, str | None]]:
    """Each `.eval()` (the call, the model's name, the name of its function: None at the
    module's level) of a variable, made by a statement of a code body read as a script
    (see `_script_bodies`): `model = Net().eval()`, or `model.eval()` after `model =
    Net()`, that a later loop of the same body trains: runs it forward with gradients,
    back-propagates and steps an optimizer built from all its parameters (see
    `_built_from`). A function's model must be one it surely builds (see `_built_here`):
    a parameter, a global, an attribute or what a call returns may be switched by other
    code. Only where nothing may put it back in train mode, nor keep it in eval mode on
    purpose: the file switches nothing to train mode, none of the model's parameters are
    frozen (see `_frozen_modules`), and the name is only run forward, read, moved in
    place or assigned before the `.eval()` (see `_kept_as_is`); and the module runs no
    code from text (`exec("model.train()")`)."""
    evals = [(body, call, model) for body, statements in _script_bodies(ctx)
             for statement in statements for call, model in _script_evals(ctx, statement)
             if _made_by(ctx, model, body)]
    if not evals or ctx.shared(code_text_runs) \
            or any(_switched_to_train(ctx, node) is not None for node in ctx.nodes_of(cst.Call, cst.Attribute)):
        return
    loops = _script_training_loops(ctx, list(dict.fromkeys(body for body, _, _ in evals)))
    read_only: dict[Binding, bool] = {}
    for body, call, model in evals:
        if _trained_later(ctx, model, call, loops) and _kept_as_is(ctx, model, call, read_only) \
                and not _freezes_variable(ctx, model):
            yield call, model.value, body.name.value if type(body) is cst.FunctionDef else None


def _script_bodies(ctx: FileContext) -> Iterator[tuple[cst.Module | cst.FunctionDef, Sequence[cst.CSTNode]]]:
    """The code bodies read as scripts, each with its statements in order: the module's
    own, where the body of an `if __name__ == "__main__":` block goes on from the
    statements before it, and each function's own."""
    yield ctx.module, [inner for statement in ctx.module.body for inner in _run_in_place(statement)]
    for function in ctx.nodes_of(cst.FunctionDef):
        if type(function.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
            yield function, function.body.body  # type: ignore[attr-defined,misc]


def _run_in_place(statement: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statements that run where `statement`, one of the module's, stands when the
    module runs as a script: those of the body of `if __name__ == "__main__":`."""
    if type(statement) is cst.If and runs_as_script_only(statement) \
            and type(statement.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
        return statement.body.body  # type: ignore[attr-defined,no-any-return]
    return (statement,)


def _made_by(ctx: FileContext, model: cst.Name, body: cst.Module | cst.FunctionDef) -> bool:
    """`model` is a variable of `body`: of the module, or a local of the function that
    builds it (see `_built_here`)."""
    binding = ctx.receivers.binding(model)
    return binding is not None and binding.owner is body and (body is ctx.module or _built_here(ctx, binding))


def _built_here(ctx: FileContext, model: Binding) -> bool:
    """Every value the variable `model` is assigned is a new module (see
    `_constructs_module`), moved, put in eval mode or wrapped (`Net()`,
    `resnet18(weights=w).to(device).eval()`, `DDP(Net().cuda())`), or the module it
    already holds, moved or wrapped (`model = model.to(device)`, `model =
    DDP(model)`): not one read from elsewhere (`self.model`, `DataParallel(self.model)`)
    or returned by a call the rule cannot read (`self.build_model()`,
    `get_model("resnet")`), whose module other code may switch."""
    values = ctx.receivers.only_assigned(model)
    if values is None:
        return False
    for value in values:
        value = module_behind(ctx, value)
        if type(value) is cst.Call:
            if not _constructs_module(ctx, value):
                return False
        elif ctx.receivers.binding(value) != model:
            return False
    return True


# what calls of these build: a new module, of its maker's code (no hook of the caller's)
_MODULE_MAKERS = ("torchvision.models.", "timm.models.")
_MODULE_FACTORIES = frozenset({"timm.create_model"})
def _module_maker(qualified: str) -> bool:
    """`qualified` builds a new module when called: a module class of `torch.nn` (not a
    wrapper's: what it wraps is the module, built here or not), a model of torchvision or timm."""
    if qualified in MODULE_WRAPPERS:
        return False
    return is_torch_nn_class(qualified) or qualified.startswith(_MODULE_MAKERS) or qualified in _MODULE_FACTORIES


def _constructs_module(ctx: FileContext, call: cst.Call) -> bool:
    """`call` builds a new module of its own (see `new_module`), handed nothing that is or
    may reach a module from outside the function (see `_own_value`, `_setting_parameter`):
    not `nn.Sequential(self.backbone, nn.Linear(512, 10))` nor
    `create_feature_extractor(self.model, ...)`, whose module other code may switch, nor a
    wrapper of a module given (`DDP(cfg.model)`)."""
    if ctx.call_name(call) in MODULE_WRAPPERS:
        # `DDP(Net())` is the module it wraps: built here only where that one is
        wrapped = call.args[0].value if call.args else None
        return type(wrapped) is cst.Call and _constructs_module(ctx, wrapped)
    return new_module(ctx, call) and all(
        _own_value(ctx, arg.value, set()) or _setting_parameter(ctx, call, arg) for arg in call.args)


def new_module(ctx: FileContext, call: cst.Call) -> bool:
    """`call` makes a new module: a class of `torch.nn` (`nn.Linear(8, 8)`; a wrapper
    handed a module is read as that module before, see `module_behind`), a model of
    torchvision or timm, or a class of the file or of another module of the project that
    derives from `torch.nn`'s (`Net()`, also of `from models import Net`). A class the
    project cannot tell is a module (a library's) is not read: what its methods switch
    is not known here."""
    qualified = ctx.qualified_name(call.func)
    if qualified is not None:
        return _module_maker(qualified) or _project_module_class(ctx, qualified)
    return type(call.func) is cst.Name and call.func.value in ctx.shared(_module_classes)


def _project_module_class(ctx: FileContext, qualified: str) -> bool:
    """The project says the class `qualified` (`models.Net`) of another of its modules
    derives, through its files, from a class of `torch.nn` (see `NN_MODULE`)."""
    return f"{qualified}.{NN_MODULE}" in ctx.external


# classes of `torch.nn` that hold the modules they are handed: a parameter given them may
# be a module from outside (`nn.Sequential(backbone, head)`), whatever its default says
_MODULE_HOLDERS = frozenset({
    "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Transformer",
    "torch.nn.TransformerEncoder", "torch.nn.TransformerDecoder", "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
})
# arguments that `torch.nn`, torchvision and timm name for a size, never a module
_SIZE_KEYWORDS = frozenset({
    "num_classes", "in_features", "out_features", "in_channels", "out_channels", "input_size",
    "hidden_size", "num_layers", "embed_dim", "num_heads", "d_model", "nhead", "num_embeddings",
    "embedding_dim", "num_features", "kernel_size",
})
_CONVOLUTIONS = ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
_RECURRENT = ("RNN", "LSTM", "GRU")
# the first parameters of layers of `torch.nn`, in order: what an argument passed by
# position stands for (`nn.Linear(512, hidden)`: `hidden` is the `out_features`)
_POSITIONAL_PARAMETERS: dict[str, tuple[str, ...]] = {
    "torch.nn.Linear": ("in_features", "out_features"),
    **{f"torch.nn.{conv}": ("in_channels", "out_channels", "kernel_size") for conv in _CONVOLUTIONS},
    **{f"torch.nn.BatchNorm{n}d": ("num_features",) for n in (1, 2, 3)},
    "torch.nn.Embedding": ("num_embeddings", "embedding_dim"),
    **{f"torch.nn.{cell}": ("input_size", "hidden_size", "num_layers") for cell in _RECURRENT},
    "torch.nn.MultiheadAttention": ("embed_dim", "num_heads"),
    "torch.nn.TransformerEncoderLayer": ("d_model", "nhead"),
    "torch.nn.TransformerDecoderLayer": ("d_model", "nhead"),
}
_SCALARS = frozenset({"int", "float", "str", "bool"})


def _setting_parameter(ctx: FileContext, call: cst.Call, arg: cst.Arg) -> bool:
    """`arg`, handed to `call` (a new module), is a parameter of its function, never
    rebound there, known to hold a setting, not a module given in: handed to an argument
    that a class of `torch.nn` or a model of torchvision or timm names for a size
    (`resnet18(num_classes=classes)`, see `_SIZE_KEYWORDS`), or, to any but a class that
    holds modules (`nn.Sequential`, see `_MODULE_HOLDERS`), one with a number, string or
    bool for default or annotation (`nn.Linear(512, hidden)` of `hidden: int`,
    `Net(width)` of `width=64`), also by position to a layer of `torch.nn` (`nn.Linear(512,
    hidden)`, see `_POSITIONAL_PARAMETERS`). Any other may be a module that other code switches
    (`IntermediateLayerGetter(backbone, ...)`, `ConvBn2d(conv, bn)`, `Wrapper(backbone)`,
    `nn.Sequential(head)` of `head=0`, `Net(width)` of `width`)."""
    param = _own_parameter(ctx, arg.value)
    if param is None:
        return False
    qualified = ctx.qualified_name(call.func)
    if qualified is not None and _module_maker(qualified) and _parameter_named(call, arg, qualified) in _SIZE_KEYWORDS:
        return True
    return qualified not in _MODULE_HOLDERS and _scalar_parameter(param)


def _parameter_named(call: cst.Call, arg: cst.Arg, qualified: str) -> str | None:
    """The parameter of `qualified` (what `call` calls) that `arg` is passed for: its
    keyword, or, by position after no `*args`, one that `_POSITIONAL_PARAMETERS` knows."""
    if arg.keyword is not None:
        return arg.keyword.value
    if arg.star:
        return None
    index = 0
    for given in call.args:
        if given is arg:
            names = _POSITIONAL_PARAMETERS.get(qualified, ())
            return names[index] if index < len(names) else None
        if given.star or given.keyword is not None:
            return None
        index += 1
    return None


def _own_parameter(ctx: FileContext, value: cst.BaseExpression) -> cst.Param | None:
    """The parameter `value` names of its function, bound by nothing in its body: not
    `*args` nor `**kwargs`."""
    function = ctx.enclosing_function(value)
    binding = ctx.receivers.binding(value) if type(value) is cst.Name and function is not None else None
    if binding is None or binding.owner is not function or any(ctx.receivers.bound_at(binding)):
        return None
    return next((param for param in _parameters(function.params)  # type: ignore[union-attr]
                 if param.name.value == value.value and param.star not in ("*", "**")), None)  # type: ignore[attr-defined]


def _scalar_parameter(param: cst.Param) -> bool:
    """`param` is given a number, string or bool by default, or annotated as one."""
    default, annotation = param.default, param.annotation
    return (default is not None and (type(default) in _LITERALS or is_constant(default, "True")
                                     or is_constant(default, "False"))) \
        or (annotation is not None and type(annotation.annotation) is cst.Name
            and annotation.annotation.value in _SCALARS)  # type: ignore[attr-defined]


def _root_name(value: cst.BaseExpression) -> str | None:
    """`args` of `args.model.dim` or `cfg["dim"]`."""
    while type(value) in (cst.Attribute, cst.Subscript):
        value = value.value  # type: ignore[attr-defined]
    return value.value if type(value) is cst.Name else None  # type: ignore[attr-defined]


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def _own_value(ctx: FileContext, value: cst.BaseExpression, seen: set[Binding]) -> bool:
    """`value`, handed to a module's constructor, reaches no module from outside the
    function: a literal (`512`, `"relu"`, `True`), arithmetic or a container of such, a
    module built here (see `_constructs_module`), a builtin's result over such
    (`len("ab")`), a setting read from an object other than `self` (`args.classes`), or
    a local variable only ever assigned such (`seen`: those asked already). Not an
    attribute of `self`, a parameter, a global, or what another call returns."""
    if type(value) in _LITERALS or (type(value) is cst.Name and value.value in ("True", "False", "None")):  # type: ignore[attr-defined]
        return True
    if type(value) is cst.UnaryOperation:
        return _own_value(ctx, value.expression, seen)  # type: ignore[attr-defined]
    if type(value) is cst.BinaryOperation:
        return _own_value(ctx, value.left, seen) and _own_value(ctx, value.right, seen)  # type: ignore[attr-defined]
    if type(value) in (cst.List, cst.Tuple, cst.Set):
        return all(_own_value(ctx, element.value, seen) for element in value.elements)  # type: ignore[attr-defined]
    if type(value) is cst.Dict:
        return all(type(entry) is cst.DictElement and _own_value(ctx, entry.key, seen)
                   and _own_value(ctx, entry.value, seen) for entry in value.elements)  # type: ignore[attr-defined]
    if type(value) is cst.Call:
        builtin = type(value.func) is cst.Name and value.func.value in BUILTIN_NAMES \
            and ctx.qualified_name(value.func) is None  # type: ignore[attr-defined]
        return _constructs_module(ctx, value) or (  # type: ignore[arg-type]
            builtin and all(_own_value(ctx, arg.value, seen) for arg in value.args))  # type: ignore[attr-defined]
    if type(value) in (cst.Attribute, cst.Subscript):
        # a setting read from a config (`args.classes`, `cfg["dim"]`), not an attribute of
        # the object (`self.backbone`), which may hold a module
        root = _root_name(value)
        return root is not None and root != "self"
    if type(value) is not cst.Name:
        return False
    binding = ctx.receivers.binding(value)
    if binding is None or binding in seen or binding.owner is not ctx.enclosing_function(value):
        return False
    seen.add(binding)
    values = ctx.receivers.only_assigned(binding)
    return values is not None and all(_own_value(ctx, assigned, seen) for assigned in values)


def _module_classes(ctx: FileContext) -> frozenset[str]:
    """The classes of the module's top level that derive, also through others of the
    file (`class Wide(Net)`) or of the project (`class Wide(models.Net)`), from a class
    of `torch.nn` (`class Net(nn.Module)`)."""
    return frozenset(cls.name.value for cls in ctx.module.body if type(cls) is cst.ClassDef and any(
        qualified is not None and (is_torch_nn_class(qualified) or _project_module_class(ctx, qualified))
        for owner in ctx.receivers.lineage(cls) for base in owner.bases
        for qualified in (ctx.qualified_name(base.value),)))


def _script_evals(ctx: FileContext, statement: cst.CSTNode) -> Iterator[tuple[cst.Call, cst.Name]]:
    """The `.eval()` calls of a plain name that `statement`, one of a script's own (see
    `_script_bodies`), makes on every run: `model.eval()`, `model = Net().eval()`."""
    if type(statement) is not cst.SimpleStatementLine:
        return
    for small in statement.body:
        if type(small) is cst.Expr:
            switch = mode_switch(ctx, small.value)
            if switch is not None and switch[1] is False and type(switch[0]) is cst.Name:
                yield small.value, switch[0]  # type: ignore[misc]
        elif type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
            value = small.value  # `Net().eval()`: what it builds is in eval mode
            if method_call(value, "eval") is not None and not value.args:  # type: ignore[attr-defined]
                yield value, small.targets[0].target  # type: ignore[misc]


def _script_training_loops(ctx: FileContext, bodies: list[cst.Module | cst.FunctionDef]) -> _Loops:
    """The loops of `bodies` (the module's code outside functions and classes, a
    function's own) that back-propagate, by each variable of that body they run forward
    with gradients: the loop's place in source order, and the optimizers it steps. Read
    once per file, outermost loops alone: a loop nested in one holds nothing its outer
    loop does not."""
    trained: _Loops = {}
    for body in bodies:
        end = -1  # the last node of the outermost loop read so far
        for loop in ctx.own_nodes(body if body is ctx.module else body.body):  # type: ignore[union-attr]
            if type(loop) not in (cst.For, cst.While) or ctx.order_index(loop) <= end:
                continue
            end = ctx.subtree_end(loop)
            inside = ctx.subtree(loop.body)  # type: ignore[attr-defined]
            if not any(is_backward(node) for node in inside):
                continue
            run = {ctx.receivers.binding(node.func) for node in inside  # type: ignore[attr-defined]
                   if type(node) is cst.Call and type(node.func) is cst.Name  # type: ignore[attr-defined]
                   and lexical_grad_mode(ctx, node) in (None, "on")}
            stepped = [step for node in inside if (step := optimizer_step(ctx, node)) is not None]
            for binding in run:
                # a global run by a function's loop is not the function's script
                if binding is not None and binding.owner is body:
                    trained.setdefault(binding, []).append((ctx.order_index(loop), stepped))
    return trained


def _trained_later(ctx: FileContext, model: cst.Name, call: cst.Call, loops: _Loops) -> bool:
    """A loop of `model`'s script after `call` (see `_script_training_loops`) runs
    `model` forward with gradients, back-propagates, and steps an optimizer whose every
    assignment builds it from `model` (`SGD(model.parameters(), lr=0.1)`): a frozen
    teacher, or a loop whose optimizer holds other parameters, is not trained there."""
    binding = ctx.receivers.binding(model)
    position = ctx.order_index(call)
    return binding is not None and any(
        later > position and any(_built_from(ctx, step, binding) for step in stepped)
        for later, stepped in loops.get(binding, ()))


def _built_from(ctx: FileContext, optimizer: cst.BaseExpression, model: Binding | None) -> bool:
    """Every value the variable `optimizer` is assigned is a call handed all of `model`'s
    parameters (see `_hands_all_parameters`): not those of a part of it
    (`model.fc.parameters()`) nor a selection of them, which train a head over a
    backbone that may be kept in eval mode on purpose (a linear probe)."""
    binding = ctx.receivers.binding(optimizer) if model is not None else None
    values = ctx.receivers.only_assigned(binding) if binding is not None else None
    return bool(values) and all(
        type(value) is cst.Call and _hands_all_parameters(ctx, value, model)  # type: ignore[arg-type]
        for value in values)  # type: ignore[union-attr]


def _hands_all_parameters(ctx: FileContext, call: cst.Call, model: Binding) -> bool:
    """`call` (an optimizer) is handed all of `model`'s parameters as its first argument
    or `params=` (see `_all_of`); not a selection of some (`[p for n, p in
    model.named_parameters() if n.startswith("fc.")]`, `list(model.parameters())[-2:]`)."""
    given = next((arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "params"), None)
    return given is not None and _all_of(ctx, given, model)


def _all_of(ctx: FileContext, value: cst.BaseExpression, model: Binding) -> bool:
    """`value` holds all of `model`'s parameters: `model.parameters()` (or
    `.named_parameters()`), alone, chained with others (`itertools.chain(model.parameters(),
    head.parameters())`), as a parameter group's `params` (`[{"params": ...}]`,
    `[dict(params=...)]`), or those of them that require gradients, all of them where the
    file freezes none of `model`'s (`filter(lambda p: p.requires_grad, ...)`,
    `[p for p in ... if p.requires_grad]`)."""
    if type(value) in (cst.List, cst.Tuple):
        return any(type(element) is cst.Element and _all_of(ctx, _group_params(element.value), model)
                   for element in value.elements)  # type: ignore[attr-defined]
    if type(value) is cst.Call and ctx.qualified_name(value.func) == "itertools.chain":  # type: ignore[attr-defined]
        return any(arg.star == "" and _all_of(ctx, arg.value, model) for arg in value.args)  # type: ignore[attr-defined]
    owner = method_call(_requiring_grad(value) or value, "parameters", "named_parameters")
    return type(owner) is cst.Name and ctx.receivers.binding(owner) == model


def _group_params(group: cst.BaseExpression) -> cst.BaseExpression:
    """The `params` of a parameter group written as a dict (`{"params": x, "lr": 0.1}`,
    `dict(params=x)`), else `group` itself."""
    if type(group) is cst.Dict:
        return next((entry.value for entry in group.elements  # type: ignore[attr-defined]
                     if type(entry) is cst.DictElement and string_value(entry.key) == "params"), group)
    if type(group) is cst.Call and type(group.func) is cst.Name and group.func.value == "dict":  # type: ignore[attr-defined]
        return next((arg.value for arg in group.args  # type: ignore[attr-defined]
                     if arg.keyword is not None and arg.keyword.value == "params"), group)
    return group


def _requiring_grad(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """What `value` keeps the elements of that require gradients, filtering on nothing
    else: `x` of `filter(lambda p: p.requires_grad, x)` or `[p for p in x if
    p.requires_grad]` (a generator as well, or one filtering on nothing); None for any
    other filter or selection."""
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "filter" \
            and len(value.args) == 2 and value.args[1].star == "" \
            and type(test := value.args[0].value) is cst.Lambda and len(test.params.params) == 1 \
            and _is_requires_grad(test.body, test.params.params[0].name):
        return value.args[1].value
    if type(value) in (cst.ListComp, cst.GeneratorExp) and type(value.elt) is cst.Name \
            and value.for_in.inner_for_in is None and type(value.for_in.target) is cst.Name \
            and value.for_in.target.value == value.elt.value \
            and all(_is_requires_grad(test.test, value.elt) for test in value.for_in.ifs):  # type: ignore[attr-defined]
        return value.for_in.iter  # type: ignore[attr-defined]
    return None


def _is_requires_grad(test: cst.BaseExpression, name: cst.Name) -> bool:
    """`test` is `name.requires_grad`."""
    return type(test) is cst.Attribute and test.attr.value == "requires_grad" \
        and type(test.value) is cst.Name and test.value.value == name.value  # type: ignore[attr-defined]


def _frozen_modules(ctx: FileContext) -> tuple[cst.BaseExpression, ...]:
    """What the file may freeze the parameters of: `model` of a loop over its parameters
    that sets their `requires_grad` to anything but True (`for p in model.parameters():
    p.requires_grad = False`, `param.requires_grad_(name.startswith("fc."))`, also over a
    part of them or numbered: `list(model.parameters())[:-2]`,
    `enumerate(model.named_parameters())`), or of `model.requires_grad_(False)`;
    the loop itself where what it lists cannot be told (`for p in params_of(model):`),
    which may be the model's; otherwise what it is set on, which no model's name matches
    for a tensor (`x.requires_grad_(False)`)."""
    frozen = []
    for node in ctx.nodes_of(cst.Attribute):
        parent = ctx.parent(node)
        if node.attr.value == "requires_grad" and type(parent) is cst.AssignTarget:  # type: ignore[attr-defined]
            value = ctx.parent(parent).value  # type: ignore[union-attr]
        elif node.attr.value == "requires_grad" and type(parent) is cst.AnnAssign and parent.target is node:  # type: ignore[attr-defined]
            value = parent.value  # type: ignore[union-attr]
        elif node.attr.value == "requires_grad_" and type(parent) is cst.Call and parent.func is node \
                and parent.args:  # type: ignore[attr-defined]
            value = parent.args[0].value  # type: ignore[union-attr]
        else:
            continue
        if value is not None and not is_constant(value, "True"):
            frozen.append(_parameters_owner(ctx, node.value) or node.value)  # type: ignore[attr-defined]
    return tuple(frozen)


def _parameters_owner(ctx: FileContext, name: cst.BaseExpression) -> cst.BaseExpression | cst.For | None:
    """The module whose parameters `name` is bound to by a loop around it (`model` of
    `for name, param in model.named_parameters():` or of `for i, (n, p) in
    enumerate(model.named_parameters()):`), or that loop where what it lists is not
    read here and it does not back-propagate."""
    if type(name) is not cst.Name:
        return None
    for loop in ctx.ancestors(name):
        if type(loop) is cst.For and name.value in target_names(loop.target):  # type: ignore[attr-defined]
            owner = method_call(_parameters_listed(loop.iter), "parameters", "named_parameters")  # type: ignore[attr-defined]
            if owner is not None:
                return owner
            # a loop that back-propagates goes over batches (`x.requires_grad_(False)`)
            trains = any(is_backward(node) for node in ctx.subtree(loop.body))  # type: ignore[attr-defined]
            return None if trains else loop  # type: ignore[return-value]
    return None


def _parameters_listed(value: cst.BaseExpression) -> cst.BaseExpression:
    """`x` of `list(x)[:-2]`, `list(x)` or `enumerate(x)`: the parameters listed, a part
    of them or numbered."""
    while True:
        if type(value) is cst.Subscript:
            value = value.value
        elif type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in ("list", "enumerate") \
                and value.args and value.args[0].star == "":
            value = value.args[0].value
        else:
            return value


# A part of the model frozen (`model.backbone.requires_grad_(False)`) needs no look here:
# reading the part is already a use that may switch it (see `_leaves_mode`).
def _freezes_attribute(ctx: FileContext, cls: cst.ClassDef, model: str) -> bool:
    """`cls` freezes parameters of its attribute `model` (`self.model`)."""
    frozen = ctx.shared(_frozen_attributes)
    return (cls, model) in frozen or (cls, _UNTOLD) in frozen


def _frozen_attributes(ctx: FileContext) -> frozenset[tuple[cst.ClassDef | None, str | None]]:
    """Each class with the attributes of `self` it freezes parameters of (see `_frozen_modules`)."""
    return frozenset((_enclosing_class(ctx, frozen), _UNTOLD if type(frozen) is cst.For else dotted_name(frozen))
                     for frozen in ctx.shared(_frozen_modules))


# what a freeze is of where the loop's parameters cannot be told: any model of its scope
_UNTOLD = "?"


def _freezes_variable(ctx: FileContext, model: cst.Name) -> bool:
    """The file freezes parameters of the variable `model`, or its scope freezes
    parameters it cannot tell the owner of."""
    binding = ctx.receivers.binding(model)
    return binding in ctx.shared(_frozen_variables) or (
        binding is not None and binding.owner in ctx.shared(_untold_freeze_scopes))


def _untold_freeze_scopes(ctx: FileContext) -> frozenset[cst.CSTNode]:
    """The functions (or the module) with a loop freezing parameters of what it cannot tell."""
    return frozenset(ctx.enclosing_function(frozen) or ctx.module
                     for frozen in ctx.shared(_frozen_modules) if type(frozen) is cst.For)


def _frozen_variables(ctx: FileContext) -> frozenset[Binding]:
    """The variables the file freezes parameters of (see `_frozen_modules`), each resolved once."""
    bindings = (ctx.receivers.binding(frozen) for frozen in ctx.shared(_frozen_modules) if type(frozen) is cst.Name)
    return frozenset(binding for binding in bindings if binding is not None)


def _kept_as_is(ctx: FileContext, model: cst.Name, call: cst.Call, read_only: dict[Binding, bool]) -> bool:
    """`model` holds, from `call` on, the module put in eval mode, and nothing may switch
    it: it is bound by plain assignments alone, none after `call` but one that keeps it
    as it is (`model = model.to(device)`), and it is only run forward, read or moved (see
    `_only_read`, asked once per variable and kept in `read_only`)."""
    binding = ctx.receivers.binding(model)
    values = ctx.receivers.only_assigned(binding) if binding is not None else None
    if values is None:
        return False
    for value in values:
        kept = method_call(value, *_RETURNS_ITSELF)
        if ctx.order_index(value) > ctx.order_index(call) and not (
                kept is not None and ctx.receivers.binding(kept) == binding):  # type: ignore[arg-type]
            return False
    if binding not in read_only:
        read_only[binding] = _only_read(ctx, model.value, binding)  # type: ignore[index,arg-type]
    return read_only[binding]  # type: ignore[index]


def _only_read(ctx: FileContext, name: str, binding: Binding) -> bool:
    """Every read of the variable `binding` (spelled `name`) is a forward, a read of its
    weights or a move (see `_leaves_mode`), not a call it is handed to (`set_train(model)`,
    `DDP(model)`), a walk of its layers (`.modules()`, `.apply(...)`) or another name. A
    function's local is looked for in that function alone: a file of many functions
    naming their model alike reads each function's names once."""
    owner = binding.owner
    spelled = ctx.receivers.spelled(name) if owner is ctx.module else ctx.receivers.spelled_within(name, owner)
    for node in spelled:
        parent = ctx.parent(node)
        if type(node) is not cst.Name or (type(parent) is cst.Attribute and parent.attr is node):
            continue
        if ctx.receivers.binding(node) == binding and not _leaves_mode(ctx, node):
            return False
    return True
