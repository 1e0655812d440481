"""Facts about training and evaluation loops that the TL4xx rules share.

- Events: which calls back-propagate, step an optimizer or a scheduler, or
  clear gradients.
- Grad mode: whether a node runs under `torch.no_grad()` /
  `torch.inference_mode()`, entered by a `with`, a decorator (bare, called,
  aliased, or a wrapper of the file), or at every call site of its function.
- Calls across functions of one file: `CallFlow` runs a `Flow` transfer
  through the bodies of the file's own functions where they are called, so a
  loop split into `main()` / `train_one_epoch()` / `validate()` is one loop;
  `reachable_nodes` lists what one iteration of a loop may run.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, Literal

import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.flow import Facts, Flow, Paths
from trainlint.analysis.flowgraph import EventFilter, FlowGraph
from trainlint.analysis.lambdas import called_lambda
from trainlint.analysis.receivers import GRAD_SCALER, OPTIMIZER, SCHEDULER, Binding
from trainlint.analysis.scopes import (
    _parameters, bound_arguments, dotted_name, head_name, named_scaler, receiver_method,
)
from trainlint.analysis.training import MODULE_CHAIN, code_bodies, method_call, unchain_module
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.summaries import STEP

GradMode = Literal["off", "on", "unknown"]

NO_GRAD = frozenset({"torch.autograd.no_grad", "torch.autograd.inference_mode"})
ENABLE_GRAD = "torch.autograd.enable_grad"
SET_GRAD_ENABLED = "torch.autograd.set_grad_enabled"
# decorators that say nothing about grad mode
_NEUTRAL_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})
# packages whose decorators run or register a function without touching grad
# mode: torch's own, and the entry points of command-line frameworks
_NEUTRAL_PACKAGES = ("torch.", "functools.", "typing.", "hydra.", "click.", "typer.", "fire.", "pyrallis.", "absl.")
_MAX_INLINE_DEPTH = 4


# -- events -------------------------------------------------------------------
def is_backward(node: cst.CSTNode) -> bool:
    """`loss.backward()`, `scaler.scale(loss).backward()`, `accelerator.backward(loss)`."""
    receiver = method_call(node, "backward")
    if receiver is None or type(node) is not cst.Call:
        return False
    # `MyFunction.backward(ctx, grad)` calls an autograd.Function's hook directly: a
    # class, given a context and the gradients (also `*grads`, or `grad_out=g`), which a
    # tensor's `backward(gradient, retain_graph, create_graph, inputs)` never takes;
    # `D_loss.backward()` is a GAN's loss
    head = dotted_name(receiver)
    if head is None or not head.rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
        return True
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    # `D_out.backward(g, True)`: a tensor's gradient and retain_graph
    tensor_like = len(positional) == 2 and type(positional[1]) is cst.Name and positional[1].value in ("True", "False")
    return not ((len(positional) >= 2 and not tensor_like) or any(arg.star == "*" for arg in node.args) or any(
        arg.keyword is not None and arg.keyword.value not in _TENSOR_BACKWARD_KEYWORDS for arg in node.args))


# a tensor's `backward()` keywords (`retain_variables`: before PyTorch 0.4)
_TENSOR_BACKWARD_KEYWORDS = frozenset({"gradient", "retain_graph", "create_graph", "inputs", "retain_variables"})


def is_optimizer(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    """`expr` holds an optimizer: built from one, passed one, stepped by a
    GradScaler, or both stepped and cleared with `zero_grad()` in this file
    (also as an item of a container: `optims["g"].step()` and
    `for o in optims.values(): o.zero_grad()`)."""
    receivers = ctx.receivers
    if receivers.is_kind(expr, OPTIMIZER):
        return True
    if receivers.kind(expr) is not None:
        return False
    variables, containers, _ = ctx.shared(_stepped_and_cleared)
    binding = receivers.binding(expr)
    if binding is not None and binding in variables:
        return True
    container = receivers.binding(expr.value) if type(expr) is cst.Subscript else None
    return container is not None and container in containers


def names_an_optimizer(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    """`expr` holds an optimizer (see `is_optimizer`), or is named for one (`optimizer`,
    `opt_g`, `self.optim`): what code out of sight is handed to step."""
    return is_optimizer(ctx, expr) or named_for_an_optimizer(expr)


def named_for_an_optimizer(expr: cst.BaseExpression) -> bool:
    """`optimizer`, `opt_g`, `self.optim`, `optimizers["backbone"]`: the name alone."""
    if type(expr) is cst.Subscript:  # `optimizers["backbone"]`
        expr = expr.value
    name = dotted_name(expr)
    return bool(name) and optimizer_name(name.rsplit(".", 1)[-1])


# one of several optimizers, named for the model it steps (`optimizerD`, `optimizer_G`, `optim_disc`)
# (not a schedule's, a scaler's, a warm-up's or a stepper's: `optimizer_scheduler`, `optim_lr`)
_ONE_OF_OPTIMIZERS = re.compile(r"^(?:optim|optimizer|optimiser)_?(?!(?i:.*(?:sched|lr|warm|scal|step)))[A-Za-z0-9]+$")


def unknown_step(ctx: FileContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The receiver of `x.step()`, given no argument, where nothing in the file tells what
    `x` holds (an optimizer handed in and never cleared here: a GAN's `opt_d`) and its
    name says an optimizer's: one of several (`optimizerD`, `optimizer_G`, `optim_disc`) or
    one by the names code out of sight is handed to step (`opt_d`, `self.optimizer`)."""
    stepped = method_call(node, "step")
    if stepped is None or node.args or ctx.receivers.kind(stepped) is not None:  # type: ignore[attr-defined]
        return None
    one_of = _ONE_OF_OPTIMIZERS.match((dotted_name(stepped) or "").rpartition(".")[2])
    return stepped if one_of or named_for_an_optimizer(stepped) else None


def steps_unresolved_optimizer(ctx: FileContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The receiver of `x.step()` (a `closure=` at most), where no statement of the file
    binds `x` (a global set elsewhere, `cfg.opt`) and the same function also clears it
    (`opt.zero_grad(); loss.backward(); opt.step()`): most likely an optimizer, but not
    known to be one, so only a rule that loses a finding by missing it asks (a helper
    that steps its own pass); `learner.step(x)` and `sched.step()` never cleared are not."""
    stepped = method_call(node, "step")
    if stepped is None or not _plain_step(node) or ctx.receivers.binding(stepped) is not None:
        return None
    unresolved = ctx.shared(_stepped_and_cleared)[2]
    return stepped if (ctx.enclosing_function(node), ctx.code(stepped)) in unresolved else None


def _plain_step(call: cst.Call) -> bool:
    """`step()` or `step(closure=...)`: an optimizer's step's arguments, not a batch's."""
    return all(arg.keyword is not None and arg.keyword.value == "closure" for arg in call.args)


def optimizer_name(name: str) -> bool:
    return bool(_OPTIMIZER_NAME.match(name))


def hands_an_optimizer(ctx: FileContext, call: cst.Call) -> bool:
    """`call` hands code out of sight (no function of this file) an optimizer, which
    it may step (`train_step(model, optimizer, x, y)`, `backward_and_step(loss, opt_g)`)."""
    return ctx.local_callee(call) is None and any(names_an_optimizer(ctx, arg.value) for arg in call.args)


# `optimizer`, `optimizers`, `optim`, `opt_g`, `optD`, `d_opt`, `gen_optimizer`; not argparse's
# `opt` / `opts`, nor `optimal_threshold`, `optimized`, `adopt`
_OPTIMIZER_NAME = re.compile(r"^(optim(izer|iser)?s?|opt_\w+|opt[A-Z]\w*|\w+_(opt|optim|optimizer|optimiser)s?"
                             r"|[A-Za-z]\w*(Opt|Optim|Optimizer))$")


def _stepped_and_cleared(
    ctx: FileContext,
) -> tuple[set[Binding], set[Binding], set[tuple[cst.FunctionDef | None, str]]]:
    """Variables both stepped and cleared with `zero_grad()` in this file, and
    containers an item of which is stepped (`optims["g"].step()`) and whose items
    are cleared (`optims["g"].zero_grad()`). A loop variable cleared clears what
    it ranges over (see `ranged_bindings`). And receivers with no binding (a global
    no statement of the file defines, `args.opt`), by their function and code, both
    stepped as an optimizer is (see `steps_unresolved_optimizer`) and cleared in that
    function."""
    receivers = ctx.receivers
    stepped: set[Binding] = set()
    cleared: set[Binding] = set()
    stepped_items: set[Binding] = set()
    cleared_items: set[Binding] = set()
    unresolved: dict[bool, set[tuple[cst.FunctionDef | None, str]]] = {True: set(), False: set()}
    for node in ctx.nodes_of(cst.Call):
        receiver = method_call(node, "step", "zero_grad")
        if receiver is None:
            continue
        assert type(node) is cst.Call and type(node.func) is cst.Attribute
        step = node.func.attr.value == "step"
        binding = receivers.binding(receiver)
        if binding is not None:
            (stepped if step else cleared).add(binding)
        elif type(receiver) in (cst.Name, cst.Attribute) and (not step or _plain_step(node)):
            unresolved[step].add((ctx.enclosing_function(node), ctx.code(receiver)))
        container = receivers.binding(receiver.value) if type(receiver) is cst.Subscript else None
        if container is not None:
            (stepped_items if step else cleared_items).add(container)
        if not step:
            variables, containers = ranged_bindings(ctx, receiver)
            cleared |= variables
            cleared_items |= containers
    return stepped & cleared, stepped_items & cleared_items, unresolved[True] & unresolved[False]


def ranged_bindings(ctx: FileContext, expr: cst.BaseExpression) -> tuple[set[Binding], set[Binding]]:
    """What the loop variable `expr` takes its values from: the variables of a list
    or tuple written there, held by the variable it iterates, or handed in by the
    file's calls for the parameter it iterates (`reset_grad([opt_g, opt_d])`); and
    the containers themselves (`self.optims` of `for o in self.optims.values():`)."""
    receivers = ctx.receivers
    variables: set[Binding] = set()
    containers: set[Binding] = set()
    container = receivers.ranged_over(expr)
    for source in _values_of(ctx, container) if container is not None else []:
        if type(source) in (cst.List, cst.Tuple):
            elements = (receivers.binding(e.value) for e in source.elements)  # type: ignore[attr-defined]
            variables |= {binding for binding in elements if binding is not None}
        elif type(source) in (cst.Name, cst.Attribute):
            binding = receivers.binding(source)
            if binding is not None:
                containers.add(binding)
    return variables, containers


def _values_of(ctx: FileContext, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`expr`, what is assigned to the variable it reads, and, when it is a parameter
    of its function, the argument the file's calls of that function give it, when they
    all give the same (`clear([opt_g])` here and `clear([opt_d])` there: what one call
    clears is not what the other does, and neither is known)."""
    found = [expr]
    binding = ctx.receivers.binding(expr)
    if binding is None:
        return found
    found += ctx.receivers.assigned(binding)
    func = ctx.enclosing_function(expr)
    if type(expr) is cst.Name and func is not None and binding.owner is func:
        given = given_argument(ctx, func, expr.value)
        found += [given] if given is not None else []
    return found


def given_argument(ctx: FileContext, func: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """What the file's calls of `func` give its parameter `name`, when they all give
    the same (as written); None when they give different ones, or none."""
    given = [value for call in ctx.call_sites(func)
             for param, value in bound_arguments(ctx, call, func)[0] if param == name]
    return given[0] if given and len({ctx.code(value) for value in given}) == 1 else None


def optimizer_step(ctx: FileContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The optimizer that `node` steps: `opt.step()` or `scaler.step(opt)`.
    A step given a closure (`opt.step(closure)`, L-BFGS) is not counted: the
    closure does its own clearing and backward."""
    receiver = method_call(node, "step")
    if receiver is None or type(node) is not cst.Call:
        return None
    if ctx.receivers.is_kind(receiver, GRAD_SCALER):
        return node.args[0].value if node.args else None
    if not node.args and is_optimizer(ctx, receiver):
        return receiver
    return None


def steps_another_after(ctx: FileContext, clip: cst.CSTNode, stepped: set[str]) -> bool:
    """Another optimizer than those `stepped` (as written) steps after `clip`, in the
    same iteration and with no backward pass or clear in between (`opt_enc.step()`,
    then the decoder's clip and `opt_dec.step()`): the clip may be for it."""
    container = next((a for a in ctx.ancestors(clip)
                      if type(a) in (cst.For, cst.While, cst.FunctionDef, cst.Module)), ctx.module)
    at = ctx.order_index(clip)
    later = sorted((node for node in ctx.subtree(container)
                    if type(node) is cst.Call and ctx.order_index(node) > at), key=ctx.order_index)
    for node in later:
        if is_backward(node) or clears_grads(ctx, node):
            return False  # new gradients: whatever steps next does not see the clipped ones
        optimizer = optimizer_step(ctx, node)
        if optimizer is not None and ctx.code(optimizer) not in stepped:
            return True
    return False


def scheduler_step(ctx: FileContext, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The scheduler that `node` steps, when it was built from
    `torch.optim.lr_scheduler` or a known schedule factory."""
    receiver = method_call(node, "step")
    if receiver is not None and ctx.receivers.is_kind(receiver, SCHEDULER):
        return receiver
    return None


def clears_grads(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`x.zero_grad(...)`, `p.grad = None`, `p.grad.zero_()`, `del p.grad`. A gradient
    set from other gradients (`master.grad = flatten([p.grad for p in params])`)
    leaves those where they were: no clear."""
    if method_call(node, "zero_grad") is not None:
        return True
    receiver = method_call(node, "zero_", "detach_", "fill_")
    if receiver is not None:
        if type(receiver) is cst.Attribute and receiver.attr.value == "data":
            receiver = receiver.value
        return type(receiver) is cst.Attribute and receiver.attr.value == "grad"
    if type(node) is cst.Assign:
        return (any(is_grad_attribute(t.target) for t in node.targets)  # type: ignore[attr-defined]
                and not any(is_grad_attribute(n) for n in iter_nodes(node.value)))  # type: ignore[attr-defined, arg-type]
    if type(node) is cst.Del:
        return is_grad_attribute(node.target)  # type: ignore[attr-defined]
    return False


def clears_parameters_by_name(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` clears the gradients of only the parameters a test of their names picks in
    a loop over a model's named parameters (`for name, p in model.named_parameters(): if
    "prototypes" in name: p.grad = None`): a part of the model, frozen for a while."""
    if type(node) is cst.Call and method_call(node, "zero_grad") is not None:
        return False
    tested = False
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.While, cst.ClassDef):
            return False
        if type(ancestor) is cst.If and child is not ancestor.test:
            tested = True
        if type(ancestor) is cst.For:
            if method_call(ancestor.iter, "named_parameters") is None:
                return False
            target = ancestor.target
            if type(target) is not cst.Tuple or len(target.elements) != 2 or type(target.elements[0].value) is not cst.Name:
                return False
            name = target.elements[0].value.value
            return tested and _tests_name(ctx, node, ancestor, name)
        child = ancestor
    return False


def _tests_name(ctx: FileContext, node: cst.CSTNode, loop: cst.For, name: str) -> bool:
    """An `if` between `loop` and `node`, with `node` in its body, tests the parameter's
    name (`"head" in name`, `name.startswith("fc")`)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is loop:
            return False
        if (type(ancestor) is cst.If and child is ancestor.body
                and any(type(n) is cst.Name and n.value == name for n in iter_nodes(ancestor.test))):
            return True
        child = ancestor
    return False


# names of calls that touch gradients without clearing them
_NOT_CLEARING = frozenset(
    {"clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "no_grad", "enable_grad",
     "set_grad_enabled", "requires_grad_", "grad", "inference_mode"}
)


# words of a name that, with "grad", say a call may clear gradients (`clear_grads`,
# `reset_gradients`, `set_grads_to_none`, `cancel_gradients_last_layer`); gradients
# clipped, averaged, synchronized or logged (`clip_gradients`, `average_gradients`)
# are still there
_CLEARING_WORDS = ("zero", "clear", "reset", "none", "free", "cancel", "drop", "flush", "wipe", "empty",
                   "del", "remove", "discard")


def may_clear_grads(ctx: FileContext, node: cst.CSTNode) -> bool:
    """A call this file cannot see into whose name says it may clear gradients
    (`self.clear_grads()`, `reset_gradients(model)`, `zero_all(opt)`). A function
    of another module of the project is seen through its summary instead, and
    tensors of zeros (`torch.zeros`, `h.new_zeros`) or `nonzero()` are no clear."""
    if type(node) is not cst.Call or ctx.local_callee(node) is not None:
        return False
    if ctx.summaries.of_external_call(node) is not None:
        return False
    return clearing_name(node)  # type: ignore[arg-type]


def clearing_name(call: cst.Call) -> bool:
    """Whether the name of what `call` calls says it may clear gradients (see
    `may_clear_grads`), whatever it is."""
    dotted = dotted_name(call.func)
    if dotted is None:
        return False
    last = dotted.rsplit(".", 1)[-1]
    lowered = last.lower()
    if last in _NOT_CLEARING:
        return False
    words = re.split(r"_+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", last).lower())
    return "zero" in words or ("grad" in lowered and any(word in lowered for word in _CLEARING_WORDS))


def sets_gradients(node: cst.CSTNode) -> bool:
    """`p.grad = g`: a gradient put in place (mixed-precision master
    weights, gradients computed by hand), not cleared: the value is neither
    `None` nor zeros. It still ends what earlier backward passes left."""
    if type(node) is not cst.Assign or not all(is_grad_attribute(t.target) for t in node.targets):
        return False
    value = node.value
    if type(value) is cst.Name and value.value == "None":
        return False
    if type(value) is cst.Call:
        name = dotted_name(value.func) or ""
        return name.rsplit(".", 1)[-1] not in ("zeros", "zeros_like", "new_zeros")
    return True


def is_grad_attribute(target: cst.BaseExpression) -> bool:
    """`p.grad` (also inside a tuple or list of targets)."""
    if type(target) in (cst.Tuple, cst.List):
        return any(is_grad_attribute(e.value) for e in target.elements)
    return type(target) is cst.Attribute and target.attr.value == "grad"


def train_mode_call(node: cst.CSTNode) -> tuple[cst.BaseExpression, bool | None] | None:
    """(`model`, on) for `model.train()` / `.train(True)` (True), `model.eval()`
    / `.train(False)` (False), `.train(flag)` (None: unknown), and the same
    applied to every module (`model.apply(lambda m: m.train())`). The model may
    be an item of a container of them (`self.model["generator"].eval()`)."""
    applied = _applied_mode(node)
    if applied is not None:
        return applied
    receiver = method_call(node, "train", "eval")
    if receiver is None or type(node) is not cst.Call:
        return None
    receiver = unchain_module(receiver)  # `model.to(device).train()` sets `model`
    if type(item_container(receiver)) not in (cst.Name, cst.Attribute):
        return None
    mode = _mode_set(node)
    return (receiver, mode[0]) if mode is not None else None


def _mode_set(node: cst.Call) -> tuple[bool | None] | None:
    """(on,) of a `.train()` / `.eval()` call: (True,) for `.train()` / `.train(True)`,
    (False,) for `.eval()` / `.train(False)`, (None,) for `.train(flag)`; None for
    arguments a module's switch does not take."""
    assert type(node.func) is cst.Attribute
    if node.func.attr.value == "eval":
        return (False,) if not node.args else None
    if not node.args:
        return (True,)
    first = node.args[0]
    if len(node.args) > 1 or (first.keyword is not None and first.keyword.value != "mode"):
        return None
    value = first.value
    if type(value) is cst.Name and value.value in ("True", "False"):
        return (value.value == "True",)
    return (None,)


def built_in_mode(ctx: FileContext, node: cst.CSTNode) -> tuple[cst.BaseExpression, bool | None] | None:
    """(`model`, on) for the `.train()` / `.eval()` call (see `train_mode_call`) that
    ends the chain building what a plain assignment binds to a name or `self.attr`
    (`model = Net(...).eval()`, `model = Net(...).to(device).eval()`, `model =
    load(path).eval().to(device)`): the module bound there is switched as it is built.
    None where a later `.train()` / `.eval()` of the chain sets the mode instead, or the
    chain starts from a name (`train_mode_call` tells that one)."""
    receiver = method_call(node, "train", "eval")
    if receiver is None or type(node) is not cst.Call or type(unchain_module(receiver)) is not cst.Call:
        return None
    built: cst.CSTNode = node
    while type(parent := ctx.parent(built)) is cst.Attribute and parent.value is built:  # type: ignore[union-attr]
        call = ctx.parent(parent)  # type: ignore[arg-type]
        if type(call) is not cst.Call or call.func is not parent or method_call(call, *MODULE_CHAIN) is None:
            return None
        if parent.attr.value in ("train", "eval"):  # type: ignore[union-attr]
            return None
        built = call
    assign = ctx.parent(built)
    if type(assign) is not cst.Assign or assign.value is not built or len(assign.targets) != 1 \
            or type(assign.targets[0].target) not in (cst.Name, cst.Attribute):
        return None
    built_class = ctx.local_class(unchain_module(receiver).func)  # type: ignore[attr-defined]
    if built_class is not None and (not built_class.bases or _method_of(built_class, node.func.attr.value)):  # type: ignore[attr-defined]
        return None  # a class of the file's own: no module, or an `eval()` that computes metrics
    callee = ctx.local_callee(node)
    mode = _mode_set(node) if callee is None or _calls_super(callee) else None
    return (assign.targets[0].target, mode[0]) if mode is not None else None


def item_container(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`models` of `models[key]` (and of `models[a][b]`); any other `expr` itself."""
    while type(expr) is cst.Subscript:
        expr = expr.value
    return expr


def mode_switch(ctx: FileContext, node: cst.CSTNode) -> tuple[cst.BaseExpression, bool | None] | None:
    """`train_mode_call`, but not a call of the class's own method that is named
    `train` or `eval` (`self.eval()` of a trainer whose `eval()` computes metrics):
    the file has its code, and what that code does is followed through the call. An
    override that calls `super().train(mode)` is still a switch of the mode. An arm of
    an `if` expression whose other arm switches the same model the other way
    (`model.train() if split == "train" else model.eval()`) sets the mode by a flag, as
    `model.train(flag)` does: unknown (None)."""
    mode = train_mode_call(node)
    if mode is None:
        return None
    choice = ctx.parent(node)
    if type(choice) is cst.IfExp and node in (choice.body, choice.orelse):
        other = train_mode_call(choice.orelse if node is choice.body else choice.body)
        if (other is not None and other[1] is not None and mode[1] is not None and other[1] != mode[1]
                and ctx.code(other[0]) == ctx.code(mode[0])):
            return mode[0], None
    if receiver_method(ctx, mode[0]) is None:
        # `trainer.train(epoch)` of a `trainer = Trainer(...)` whose class, in this file,
        # has a `train` method of its own and no base class (no module's `train`)
        method = _own_method(ctx, mode[0], node.func.attr.value)  # type: ignore[attr-defined]
        return None if method is not None and not _calls_super(method) else mode
    callee = ctx.local_callee(node)
    return mode if callee is None or _calls_super(callee) else None


def _own_method(ctx: FileContext, receiver: cst.BaseExpression, name: str) -> cst.FunctionDef | None:
    """The method `name` of the class of this file, with no base class, whose only
    construction the variable `receiver` is assigned (`t = Trainer(...)`)."""
    binding = ctx.receivers.binding(receiver) if type(receiver) is cst.Name else None
    values = ctx.receivers.assigned(binding) if binding is not None else []
    if len(values) != 1 or type(values[0]) is not cst.Call or type(values[0].func) is not cst.Name:
        return None
    classes = [node for node in ctx.nodes_of(cst.ClassDef) if node.name.value == values[0].func.value]  # type: ignore[attr-defined]
    if len(classes) != 1 or classes[0].bases or ctx.qualified_name(values[0].func) is not None:  # type: ignore[attr-defined]
        return None
    body = classes[0].body.body if type(classes[0].body) is cst.IndentedBlock else ()  # type: ignore[attr-defined]
    return next((s for s in body if type(s) is cst.FunctionDef and s.name.value == name), None)


def _method_of(owner: cst.ClassDef, name: str) -> bool:
    """`owner` defines a method `name` of its own that does not call its base class's."""
    body = owner.body.body if type(owner.body) is cst.IndentedBlock else ()
    return any(type(s) is cst.FunctionDef and s.name.value == name and not _calls_super(s) for s in body)


def _calls_super(function: cst.FunctionDef) -> bool:
    """`function` calls a method of its base class (`super().train(mode)`)."""
    return any(type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Call
               and dotted_name(node.func.value.func) == "super" for node in iter_nodes(function.body))


def _applied_mode(node: cst.CSTNode) -> tuple[cst.BaseExpression, bool | None] | None:
    """`model.apply(lambda m: m.train())`: the mode that call sets on every module of `model`."""
    receiver = method_call(node, "apply")
    if receiver is None or type(node) is not cst.Call or len(node.args) != 1:
        return None
    function = node.args[0].value
    if (type(function) is not cst.Lambda or len(function.params.params) != 1
            or type(function.body) is not cst.Call):
        return None
    mode = train_mode_call(function.body)
    if mode is None or type(mode[0]) is not cst.Name or mode[0].value != function.params.params[0].name.value:
        return None
    receiver = unchain_module(receiver)
    return (receiver, mode[1]) if type(receiver) in (cst.Name, cst.Attribute) else None


# -- grad mode ----------------------------------------------------------------
def context_grad_mode(ctx: FileContext, expr: cst.BaseExpression) -> GradMode | None:
    """What entering `with expr:` does to grad mode (None: nothing known)."""
    if type(expr) in (cst.Name, cst.Attribute):
        held = _held_context_mode(ctx, expr)
        if held is not None:
            return held
    func = expr.func if type(expr) is cst.Call else expr
    name = ctx.qualified_name(func)
    if name in NO_GRAD:
        if name == "torch.autograd.inference_mode" and type(expr) is cst.Call and expr.args:
            return _constant_mode(expr.args[0].value, when_true="off", when_false=None)
        return "off"
    if name == ENABLE_GRAD:
        return "on"
    if name == SET_GRAD_ENABLED:
        if type(expr) is cst.Call and expr.args:
            return _constant_mode(expr.args[0].value, when_true="on", when_false="off")
        return "unknown"
    local = ctx.local_function(func)
    if local is not None:
        return "off" if _mentions_no_grad(ctx, local) else None
    if (name is None or not name.startswith("torch.")) and _looks_grad_related(func):
        return "unknown"  # `with no_grad():` imported from a module of the project, or unresolved
    return None


def _held_context_mode(ctx: FileContext, variable: cst.BaseExpression) -> GradMode | None:
    """What entering `with ctx:` does when `ctx` holds a context built in this file
    (`ctx = torch.no_grad()`, `ctx = torch.inference_mode() if fast else
    torch.no_grad()`): the mode all its values agree on; "unknown" where they do
    not, or where it is a parameter that a caller may set to anything else."""
    binding = ctx.receivers.binding(variable)
    if binding is None:
        return None
    modes = {_built_context_mode(ctx, value) for value in ctx.receivers.assigned(binding)}
    if modes <= {None}:
        return None
    owner = binding.owner
    parameter = type(owner) is cst.FunctionDef and binding.name in {p.name.value for p in _parameters(owner.params)}
    if len(modes) == 1 and not parameter:
        return modes.pop()
    return "unknown"


def _built_context_mode(ctx: FileContext, value: cst.BaseExpression) -> GradMode | None:
    """The grad mode of a context built by `value`: a call, or a choice between two."""
    if type(value) is cst.IfExp:
        modes = {_built_context_mode(ctx, value.body), _built_context_mode(ctx, value.orelse)}
        return modes.pop() if len(modes) == 1 else "unknown"
    return context_grad_mode(ctx, value) if type(value) is cst.Call else None


def decorator_grad_mode(ctx: FileContext, decorator: cst.Decorator) -> GradMode | None:
    """`@torch.no_grad`, `@torch.no_grad()`, `@th.inference_mode()`, a wrapper
    of this file built on them ("off"); a decorator that cannot be resolved
    ("unknown"); one that does not touch grad mode (None)."""
    expr = decorator.decorator
    mode = context_grad_mode(ctx, expr)
    if mode is not None:
        return mode
    func = expr.func if type(expr) is cst.Call else expr
    if type(func) is cst.Name and func.value in _NEUTRAL_DECORATORS:
        return None
    name = ctx.qualified_name(func)
    if name is not None and (name.startswith(_NEUTRAL_PACKAGES) or "." not in name):
        return None
    if name is None and ctx.local_function(func) is not None:
        return None  # a decorator of this file that never mentions no_grad
    if name is None and dotted_name(func) is not None and _assigned_no_grad(ctx, func):
        return "off"
    return "unknown"


def lexical_grad_mode(ctx: FileContext, node: cst.CSTNode) -> GradMode | None:
    """Grad mode set around `node` inside its own function: the innermost
    grad-mode `with`, or `torch.set_grad_enabled(False)` written as a statement
    before it in an enclosing block (an inference script's first line), else the
    function's decorators."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.With:
            for item in reversed(ancestor.items):
                mode = context_grad_mode(ctx, item.item)
                if mode is not None:
                    return mode
        elif type(ancestor) in (cst.IndentedBlock, cst.Module):
            mode = _set_before(ctx, ancestor, child)
            if mode is not None:
                return mode
        elif type(ancestor) is cst.Lambda:
            return None
        elif type(ancestor) is cst.FunctionDef:
            return _decorators_mode(ctx, ancestor)
        child = ancestor
    return None


def _set_before(ctx: FileContext, block: cst.IndentedBlock | cst.Module, child: cst.CSTNode) -> GradMode | None:
    """The mode the last `torch.set_grad_enabled(...)` statement of `block` before
    `child` sets. The block's settings are read once (not once per statement asked
    about: every statement of a long block asks)."""
    settings = ctx.shared(_grad_settings_memo)
    if block not in settings:
        settings[block] = _grad_settings(ctx, block)
    place = ctx.order_index(child)
    mode = None
    for statement, set_mode in settings[block]:
        if ctx.order_index(statement) >= place:
            break
        mode = set_mode
    return mode


def _grad_settings_memo(ctx: FileContext) -> dict[cst.CSTNode, list[tuple[cst.CSTNode, GradMode | None]]]:
    return {}


def _grad_settings(ctx: FileContext, block: cst.IndentedBlock | cst.Module) -> list[tuple[cst.CSTNode, GradMode | None]]:
    """The `torch.set_grad_enabled(...)` statements of `block`, in order, with the mode
    each sets (None: not a constant)."""
    found: list[tuple[cst.CSTNode, GradMode | None]] = []
    for statement in block.body:
        if type(statement) is cst.SimpleStatementLine:
            for part in statement.body:
                call = part.value if type(part) is cst.Expr else None
                if type(call) is cst.Call and ctx.call_name(call) == SET_GRAD_ENABLED and len(call.args) == 1:
                    found.append((statement, _constant_mode(call.args[0].value, "on", "off")))
    return found


def function_grad_mode(ctx: FileContext, func: cst.FunctionDef, _depth: int = 0) -> GradMode | None:
    """Grad mode the body of `func` runs under: its decorators, else its call
    sites in this file (all of them known): "off" when every one enters no_grad,
    "unknown" when only some do (one function that trains, then evaluates under
    `torch.no_grad()`: what its body records depends on the call)."""
    mode = _decorators_mode(ctx, func)
    if mode is not None or _depth > _MAX_INLINE_DEPTH:
        return mode
    modes = []
    for call in ctx.call_sites(func):
        mode = lexical_grad_mode(ctx, call)
        caller = ctx.enclosing_function(call)
        if mode is None and caller is func:
            continue  # a recursive call runs in the mode of the call that entered it
        if mode is None and caller is not None:
            mode = function_grad_mode(ctx, caller, _depth + 1)
        modes.append(mode)
    if modes and all(mode == "off" for mode in modes):
        return "off"
    if "off" in modes or "unknown" in modes:
        return "unknown"
    return None


def grad_mode_at(ctx: FileContext, node: cst.CSTNode) -> GradMode | None:
    """Grad mode at `node`, within its function and through its call sites."""
    mode = lexical_grad_mode(ctx, node)
    if mode is not None:
        return mode
    func = ctx.enclosing_function(node)
    return function_grad_mode(ctx, func) if func is not None else None


def _decorators_mode(ctx: FileContext, func: cst.FunctionDef) -> GradMode | None:
    modes = {decorator_grad_mode(ctx, d) for d in func.decorators} - {None}
    for mode in ("unknown", "off", "on"):
        if mode in modes:
            return mode  # type: ignore[return-value]
    return None


def _constant_mode(value: cst.BaseExpression, when_true: GradMode | None, when_false: GradMode | None) -> GradMode | None:
    if type(value) is cst.Name and value.value == "True":
        return when_true
    if type(value) is cst.Name and value.value == "False":
        return when_false
    return "unknown"


def _looks_grad_related(func: cst.BaseExpression) -> bool:
    dotted = (dotted_name(func) or "").lower()
    return "grad" in dotted or "inference" in dotted


def _mentions_no_grad(ctx: FileContext, func: cst.FunctionDef) -> bool:
    """A function of this file that enters no_grad / inference_mode: a wrapper
    (`with torch.no_grad(): return fn(...)`, `return torch.no_grad()(fn)`)."""
    for node in ctx.subtree(func.body):
        if type(node) in (cst.Name, cst.Attribute) and ctx.qualified_name(node) in NO_GRAD:
            return True
    return False


def _assigned_no_grad(ctx: FileContext, func: cst.BaseExpression) -> bool:
    """`evaluating = torch.no_grad()` at module level, used as `@evaluating`."""
    if type(func) is not cst.Name:
        return False
    for stmt in ctx.module.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if (
                    type(small) is cst.Assign
                    and any(type(t.target) is cst.Name and t.target.value == func.value for t in small.targets)
                    and type(small.value) is cst.Call
                    and ctx.qualified_name(small.value.func) in NO_GRAD
                ):
                    return True
    return False


# -- functions of the file ------------------------------------------------------
def reachable_nodes(ctx: FileContext, root: cst.CSTNode, methods: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under `root`, and under the bodies of the file's functions
    that it calls (transitively), and of the lambdas it calls through the name
    bound to one (`clear = lambda: opt.zero_grad()`, then `clear()`): what one
    run of `root` may execute. `methods`: also of the methods it calls on
    instances of the file's classes (`trainer.reset()`)."""
    seen: set[cst.FunctionDef | cst.Lambda] = set()
    stack = [root]
    while stack:
        for node in ctx.subtree(stack.pop()):
            yield node
            callee: cst.FunctionDef | cst.Lambda | None = ctx.local_callee(node)
            if callee is None and methods and type(node) is cst.Call:
                callee = ctx.summaries.targets.method_run(node)
            if callee is None:
                callee = called_lambda(ctx, node)
            if callee is not None and callee not in seen:
                seen.add(callee)
                stack.append(callee.body)


def runs_on_every_call(ctx: FileContext, call: cst.Call) -> bool:
    """Every run of the function around `call` that returns runs it: no branch,
    loop, `try` handler or earlier `return` of the function can skip it (a path
    that raises does not return)."""
    func = ctx.enclosing_function(call)
    if func is None:
        return False
    ran = frozenset({call})
    flow = Flow(ctx, lambda facts, node: ran if node is call else facts, events=_is_call)
    ends = flow.run(func.body) | flow.returned
    return bool(ends) and all(path.facts for path in ends)


def _is_call(node: cst.CSTNode) -> bool:
    return type(node) is cst.Call


def calling_loops(ctx: FileContext, func: cst.FunctionDef,
                  _depth: int = 0) -> list[tuple[cst.For | cst.While, cst.Call]]:
    """The loops of the file whose iterations run `func`, each with the call of its
    body that does: a call of `func` in a loop (`for batch in loader:
    self._train_step(batch)`, `trainer.train_step(batch)` of `trainer =
    Trainer(...)`), or of a function that calls it outside any loop of its own
    (transitively, a few calls deep)."""
    found: list[tuple[cst.For | cst.While, cst.Call]] = []
    for site in (*ctx.call_sites(func), *ctx.summaries.targets.method_calls(func)):
        loop = innermost_loop(ctx, site)
        caller = ctx.enclosing_function(site)
        if loop is not None:
            found.append((loop, site))
        elif caller is not None and caller is not func and _depth < _MAX_INLINE_DEPTH:
            found.extend(calling_loops(ctx, caller, _depth + 1))
    return found


def innermost_loop(ctx: FileContext, node: cst.CSTNode) -> cst.For | cst.While | None:
    """The innermost loop around `node` in its own function (or module code)."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.For, cst.While):
            return ancestor  # type: ignore[return-value]
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
    return None


COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
Loop = cst.For | cst.While | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp


def repeating_loop(ctx: FileContext, node: cst.CSTNode) -> Loop | None:
    """The innermost loop around `node` in its own function (or module code) whose
    iterations each run it: a `for` / `while` statement, or a comprehension, a loop
    written as an expression (`[model(x) for x, _ in loader]`). A `for`'s iterable,
    that of a comprehension's first `for`, and a loop's `else` run once, outside the
    iterations (`for p in model(x):` runs the model once)."""
    child, below = node, node
    for ancestor in ctx.ancestors(node):
        kind = type(ancestor)
        if kind in (cst.For, cst.While) and child is ancestor.body:  # type: ignore[attr-defined]
            return ancestor  # type: ignore[return-value]
        if kind is cst.While and child is ancestor.test:  # type: ignore[attr-defined]
            return ancestor  # type: ignore[return-value]
        if kind in COMPREHENSIONS and not (child is ancestor.for_in and below is ancestor.for_in.iter):  # type: ignore[attr-defined]
            return ancestor  # type: ignore[return-value]
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
        child, below = ancestor, child
    return None


def loop_body(loop: Loop) -> cst.CSTNode:
    """What each iteration of `loop` runs: a statement's body; a comprehension's
    element, conditions and inner loops (itself: its first iterable rarely matters)."""
    return loop.body if type(loop) in (cst.For, cst.While) else loop  # type: ignore[union-attr]


def stepping_loops(ctx: FileContext) -> set[cst.CSTNode]:
    """Loops one iteration of which may step an optimizer, in its own body or
    in a function of the file it calls (transitively): what
    `reachable_nodes(ctx, loop.body)` would find, worked out once for all
    loops from the steps upwards."""
    found: set[cst.CSTNode] = set()
    functions: set[cst.FunctionDef] = set()
    pending: list[cst.CSTNode] = [call for call in ctx.nodes_of(cst.Call) if optimizer_step(ctx, call) is not None]
    while pending:
        node = pending.pop()
        child = node
        for ancestor in ctx.ancestors(node):
            if type(ancestor) in (cst.For, cst.While) and child is ancestor.body:
                found.add(ancestor)
            elif type(ancestor) is cst.FunctionDef and child is ancestor.body and ancestor not in functions:
                functions.add(ancestor)
                pending.extend(ctx.call_sites(ancestor))
            child = ancestor
    return found


def steps_loop_variable(loop: cst.CSTNode, within: Iterable[cst.CSTNode] | None = None) -> bool:
    """A loop over the parts of one training step, each stepped in turn: the optimizer
    it steps is (an attribute of) its own loop variable (`for opt in optimizers:
    opt.step()`, a GAN's `for phase in phases: ... phase.opt.step()`). `within`: the
    nodes of the body to look at (all of them by default)."""
    if type(loop) is not cst.For:
        return False
    items = target_names(loop.target)
    for node in iter_nodes(loop.body) if within is None else within:
        receiver = method_call(node, "step")
        # `scaler.step(opt)`: a GradScaler steps the loop's optimizer (not `scheduler.step(epoch)`)
        if receiver is None:
            continue
        if (type(node) is cst.Call and node.args and node.args[0].keyword is None
                and named_scaler(receiver)):
            receiver = node.args[0].value
        head = head_name(receiver)
        if head is not None and head.value in items:
            return True
    return False


def _clear(facts: Facts) -> Facts:
    return frozenset()


# -- flow through calls ------------------------------------------------------------
def run_each_iteration(
    ctx: FileContext, transfer: Callable[[Facts, cst.CSTNode], Facts], events: EventFilter | None = None,
    kept: Callable[[Facts], Facts] = _clear,
) -> None:
    """Run `transfer` over every body of the file with "same iteration"
    semantics: facts end at the start of each loop iteration, and where a
    training loop ends, but for what `kept` keeps of them (what stays true once
    it happened). `events`: the nodes `transfer` reacts to (see `Flow`)."""
    if not any(method_call(call, "step") is not None for call in ctx.nodes_of(cst.Call)) and not any(
            summary.does(STEP) for summary in ctx.external.values()):
        return  # these rules are all about the optimizer step: nothing to order
    flow = CallFlow(ctx, transfer, loop_back=kept, per_iteration=True, events=events)
    for body in code_bodies(ctx):
        flow.run_if_events(body)


class CallFlow:
    """`Flow` whose paths continue into the bodies of the file's functions at
    their call sites (facts of every path out of the callee, `return`s
    included, are merged). Recursion and deep chains stop being followed."""

    def __init__(
        self,
        ctx: FileContext,
        transfer: Callable[[Facts, cst.CSTNode], Facts],
        loop_back: Callable[[Facts], Facts] | None = None,
        per_iteration: bool = False,
        events: EventFilter | None = None,
        by_call_site: bool = False,
        loop_exit: Callable[[cst.For | cst.While, Facts], Facts] | None = None,
    ) -> None:
        self.ctx = ctx
        self.transfer = transfer
        self.loop_back = loop_back
        # maps the facts of the paths leaving a loop (see `Flow`)
        self.loop_exit = loop_exit
        # facts of a training loop's iterations also end where the loop ends:
        # what follows (a later phase, another function of main()) is not
        # the same iteration
        self._per_iteration = per_iteration and loop_back is not None
        self.program = ctx.shared(FlowGraph).program(events, loop_back is not None, through_calls=True)
        self._active: list[cst.FunctionDef] = []
        # the calls the walk went through to reach the node being transferred, outermost
        # first: a transfer may read the arguments a callee was entered with
        self.call_sites: list[cst.CSTNode] = []
        # `by_call_site`: each call site walks its callee (a transfer that reads the
        # call sites sees each), instead of reusing another site's walk with the same facts
        self._by_call_site = by_call_site
        self._cache: dict[tuple[cst.FunctionDef, Facts, cst.CSTNode | None], Facts] = {}

    def run(self, body: cst.BaseSuite | cst.Module, facts: Facts = frozenset()) -> Paths:
        return self._flow().run(body, facts)

    def run_repeated(self, node: cst.CSTNode, body: cst.BaseSuite, facts: Facts = frozenset()) -> Paths:
        """See `Flow.run_repeated`."""
        return self._flow().run_repeated(node, body, facts)

    def run_if_events(self, body: cst.BaseSuite | cst.Module) -> None:
        """See `Flow.run_if_events`: a callee is only entered from an event."""
        if self.program.holds_events(body):
            self.run(body)

    def _flow(self) -> Flow:
        # the bound methods are made per Flow, not kept on self: kept, they
        # would tie this object, and the tree it reads, into a reference cycle
        loop_exit = self._leave_loop if self._per_iteration or self.loop_exit is not None else None
        return Flow(self.ctx, self._step, self.loop_back, loop_exit, program=self.program)

    def _leave_loop(self, loop: cst.For | cst.While, facts: Facts) -> Facts:
        if self.loop_exit is not None:
            facts = self.loop_exit(loop, facts)
        # a loop over the optimizers of one step ends inside the iteration: what follows
        # it (a clip, the clears) belongs to the same step
        steps = self._per_iteration and loop in self.ctx.shared(stepping_loops) and not steps_loop_variable(loop)
        return self.loop_back(facts) if steps and self.loop_back else facts

    def _step(self, facts: Facts, node: cst.CSTNode) -> Facts:
        facts = self.transfer(facts, node)
        callee = self.ctx.local_callee(node)
        if callee is None or callee in self._active or len(self._active) >= _MAX_INLINE_DEPTH:
            return facts
        key = (callee, facts, node if self._by_call_site else None)
        if key not in self._cache:
            self._active.append(callee)
            self.call_sites.append(node)
            try:
                flow = self._flow()
                ends = flow.run(callee.body, facts) | flow.returned
                self._cache[key] = frozenset().union(*(p.facts for p in ends)) if ends else facts
            finally:
                self._active.pop()
                self.call_sites.pop()
        return self._cache[key]
