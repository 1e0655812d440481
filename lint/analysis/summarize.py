"""Open summaries (see `trainlint.summaries`) of the functions of one file, read
from its semantic model, and the question rules ask: what does this call do?

A function is keyed by its dotted place in the module (`train`,
`Trainer.fit`, `main.step` for a nested one). A call is recorded with what it
calls, as a key of this file when it can be resolved here (`f(...)`,
`self.m(...)`, `obj.m(...)` on an instance of a class of this file, `m` looked
up in the class's bases when it inherits it) and as a qualified name otherwise
(`.engine.train_one_epoch`, `utils.ModelEMA.update`, `base.Trainer.fit`): the
project resolves those against its other files, base classes included.
"""

from __future__ import annotations

import sys

from bisect import bisect_left
from collections import deque
from typing import Iterator, Mapping

import libcst as cst

from trainlint.analysis.accumulators import consumed_names, detaches, reads_only, stored_elements
from trainlint.analysis.backward_losses import flag_test, function_flags, given_slots, own_backwards, runs_when
from trainlint.analysis.batch_copies import copied_parameters, handed_parameters
from trainlint.analysis.dataflow import (
    DATALOADER as DATALOADER_CLASS, backpropagated_names, backpropagations, bound_names, bound_parts,
    changed_only_elsewhere, dict_entry, reaching, target_names, unpinned_loader,
)
from trainlint.analysis.evaluation import (
    called_forwards, layer_methods, loop_forwards, loop_methods, runs_layers, wrapped_forwards,
)
from trainlint.analysis.flag_resets import flag_write, pinning_writes
from trainlint.analysis.flowgraph import assigned_names
from trainlint.analysis.guards import (
    caller_bound, guard_tests, is_device_check, parameter_default, passes_by_default, skipped_at_first,
    tests_a_remainder,
)
from trainlint.analysis.literals import constant_text, string_value, subscript_key
from trainlint.analysis.names import BUILTIN_NAMES, canonical, lookup
from trainlint.analysis.loops import (
    clearing_name, clears_grads, grad_mode_at, innermost_loop, is_backward, mode_switch, optimizer_step,
    scheduler_step,
)
from trainlint.analysis.no_grad_results import no_grad_branches
from trainlint.analysis.partials import PARTIAL
from trainlint.analysis.precision import (
    SCALER_READS,
    FLOAT16, UNKNOWN, autocast_calls, autocast_enabled, autocast_precision, global_value, grad_scaler_enabled,
    half_conversion, handed_arguments, hook_body, literal_bool, single_assignment, value_of_name, with_precision,
)
from trainlint.analysis.receivers import (
    DATALOADER, Binding, GRAD_SCALER, OPTIMIZER, SAMPLER, SCHEDULER, constructor_kind, named_tuple_classes,
    sampler_shuffle, subclassed_kind,
)
from trainlint.analysis.runtime_patches import module_run, module_runs
from trainlint.analysis.search_paths import search_paths
from trainlint.analysis.torch_binding import module_facts, star_questions
from trainlint.analysis.scopes import (
    argument_slots, as_receiver_path, assigned_parts, assignment_targets, binding_scope, bound_arguments,
    dotted_name, head_name, is_method, named_parameters, named_scaler, owning_class, receiver_method, receiver_name,
    returns_own_value,
)
from trainlint.analysis.training import (
    MODULE_WRAPPERS, ancestors_within, is_clip_call, is_torch_nn_class, loops_within, measures_only, method_call,
    module_behind, replaced_parameter,
    scaled_backward_scaler, unchain_module,
)
from trainlint.analysis.walk import children, iter_nodes, only, own_nodes
from trainlint.context import FileContext
from trainlint.hooks import HookCall, HookLoop, LoopCall, hook_key
from trainlint.mro import c3_order
from trainlint.project import FileFacts, member_of
from trainlint.summaries import (
    BACKWARD, CLIP, DISTRIBUTED_LOADER, EMPTY_CACHE, EVAL, GRAPH, LOOP, MAY_ZERO_GRAD, SCALER_STEP, SCALER_UPDATE,
    NN_MODULE, SCHEDULER_STEP, TORCH_KIND, STEP, STEP_HOOK_REGISTRATIONS, TRAIN, UNPINNED_LOADER, UNSCALE, ZERO_GRAD, GRAPH_EFFECTS,
    Call, Event, Given, Needs, Summary, close, field_items, with_items,
)

_CLIP_METHODS = ("clip_grad_norm_", "clip_grad_value_")
# receivers whose `.step()` with no argument is an optimizer step even when
# the object comes from elsewhere (a parameter, another file's attribute)
_OPTIMIZER_WORDS = ("optim",)
# the names a call with an effect is made by (`opt.step`, `clip_grad_norm_`, ...)
_EFFECT_NAMES = frozenset(
    {"step", "backward", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "unscale_",
     "zero_grad", "zero_", "detach_", "fill_", "empty_cache"}
)
DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"
_SET_EPOCH_PATHS = ("", ".sampler", ".batch_sampler", ".batch_sampler.sampler")
# a named tuple of the file a function returns, built there: its fields, its items by position
BuiltNamedTuple = tuple[tuple[str, ...], dict[int, cst.BaseExpression]]


# -- keys --------------------------------------------------------------------
def function_key(ctx: FileContext, func: cst.FunctionDef) -> str:
    return _path_of(ctx, func)


def _path_of(ctx: FileContext, node: cst.FunctionDef | cst.ClassDef) -> str:
    """`Trainer.fit`, or `main.Trainer` for a class defined inside `main()`: the names
    of the functions and classes around it, outermost first."""
    names = [node.name.value]
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            names.append(ancestor.name.value)
    return ".".join(reversed(names))


def functions(ctx: FileContext) -> Iterator[cst.FunctionDef]:
    for node in ctx.scopes.by_node:
        if type(node) is cst.FunctionDef:
            yield node


def parameter_names(ctx: FileContext, func: cst.FunctionDef) -> tuple[str, ...]:
    """Named parameters in order (`self` of a method left out), then
    `**name` for the var-keyword parameter."""
    params = func.params
    names = tuple(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    names = names[1:] if names and is_method(ctx, func) else names
    if params.star_kwarg is not None:
        names += (f"**{params.star_kwarg.name.value}",)
    return names


# -- the call graph, with classes ----------------------------------------------
class CallTargets:
    """What each call of the file runs, as a summary key or a qualified name."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.keys = {func: function_key(ctx, func) for func in functions(ctx)}
        self._key_set = frozenset(self.keys.values())
        self._functions = {key: func for func, key in self.keys.items()}  # a method defined twice: the last
        self.classes = {
            node.name.value: node for node in ctx.scopes.by_node if type(node) is cst.ClassDef
        }
        # the key prefix of each class's methods: `main.Trainer` for a class defined in `main()`
        self._paths = {name: _path_of(ctx, node) for name, node in self.classes.items()}
        self._bases: dict[str, tuple[str, ...]] = {}
        self._lineages: dict[str, tuple[str, ...]] = {}
        self._c3_orders: dict[str, tuple[str, ...] | None] = {}  # see `_c3`: None where Python refuses it
        # the class calls each variable is assigned, and so the class of its instance
        self._built = self._constructions_by_variable()
        self._instances = {key: self._class_named(calls[0].func) for key, calls in self._built.items()}
        self._targets: dict[cst.Call, str | None] = {}
        self._given: dict[tuple[cst.FunctionDef, str], str | None] = {}  # see `_class_from_callers`
        # each imported base's method a lookup tried: the project resolves them all
        self.imported_methods: set[str] = set()
        self._method_calls: dict[cst.FunctionDef, list[cst.Call]] | None = None  # see `method_calls`

    def target(self, call: cst.Call) -> str | None:
        """What `call` runs; asked by several rules of each call, so kept."""
        try:
            return self._targets[call]
        except KeyError:
            found = self._targets[call] = self._target(call)
            return found

    def _target(self, call: cst.Call) -> str | None:
        func = call.func
        owner = self._class_of(func.value) if type(func) is cst.Attribute else None
        if owner is not None:
            # the class's lineage first: the file's only function of that name may
            # be another class's method (see `local_callee`)
            method = self.method_of(owner, func.attr.value)  # type: ignore[attr-defined]
            if method is not None:
                return method
        local = self.ctx.local_callee(call)
        if local is not None:
            return self.keys.get(local)
        if type(func) is cst.Name and func.value in self.classes and self.ctx.qualified_name(func) is None:
            return f"{self._paths[func.value]}.__init__"
        instance_of = self._class_of(func)  # `model(x)`, `self.model(x)`
        if instance_of is not None:
            return self._call_of_instance(instance_of)
        if owner is not None:
            return f"{owner}.{func.attr.value}"  # type: ignore[attr-defined]
        if type(func) is cst.Attribute:
            around = self._super_of(func.value)
            if around is not None:
                return self.method_of(around, func.attr.value, inherited=True)
        qualified = self.ctx.qualified_name(func)
        if qualified is not None and not qualified.startswith(("torch.", "builtins.")):
            return qualified
        return None

    def imported_function(self, call: cst.Call) -> str | None:
        """What `call` runs where it calls a function the file imports, as a bare name or a
        module's attribute (`prepare(model)`, `helpers.prepare(model)`): not one of torch's
        or of Python's own library (which switch no model's mode), nor a method of an
        object (`ema.update(model)`). Where no summary tells what it does (a library's, a
        module the project does not hold), it may do anything to what it is handed."""
        func = call.func
        if type(func) is cst.Attribute:
            if self.ctx.qualified_name(func.value) is None or self._class_of(func.value) is not None:
                return None
        elif (type(func) is not cst.Name or self.ctx.qualified_name(func) is None  # `model(x)`: a forward
              or self.ctx.local_callee(call) is not None):
            return None
        target = self.target(call)
        if target is None or target.lstrip(".").split(".", 1)[0] in sys.stdlib_module_names:
            return None
        return target

    def runs_own_function(self, call: cst.Call) -> bool:
        """`call` runs a function of this file (its summary follows what that does)."""
        return self.target(call) in self._key_set

    def method_calls(self, func: cst.FunctionDef) -> list[cst.Call]:
        """The calls of the method `func` on an instance of its class that
        `local_callee` leaves unresolved (`trainer.train_step(x)` of `trainer =
        Trainer(...)`, a subclass's instance that inherits it)."""
        if self._method_calls is None:
            self._method_calls = {}
            for call in self.ctx.nodes_of(cst.Call):
                run = self.method_run(call)  # type: ignore[arg-type]
                if run is not None:
                    self._method_calls.setdefault(run, []).append(call)  # type: ignore[arg-type]
        return self._method_calls.get(func, [])

    def method_run(self, call: cst.Call) -> cst.FunctionDef | None:
        """The method of a class of this file that `call` runs on an instance of it,
        where `local_callee` does not tell (`trainer.train_step(x)`)."""
        func = call.func
        if type(func) is not cst.Attribute or self.ctx.local_callee(call) is not None:
            return None
        run = self._functions.get(self.target(call) or "")
        return run if run is not None and run.name.value == func.attr.value else None

    def may_run_code(self, target: str) -> bool:
        """Whether a target names code: a function of this file, or a name of
        another module; not `Trainer.model`, an attribute of a class of this file
        that no method is named after (a model called through `self.model(x)`)."""
        return target in self._key_set or target.split(".", 1)[0] not in self.classes

    def method_of(self, cls: str, method: str, inherited: bool = False) -> str | None:
        """What `method` called on an instance of `cls` runs: the method of the first
        class of its lineage (the class, then its bases, depth first) that defines it
        here, or, reached first, an imported base's (`base.Trainer.evaluate`, which the
        project looks up in that module and that class's own bases); None when no
        class of the lineage has it. `inherited`: the class's own method left out
        (`super().method()`)."""
        unresolved = None  # the first imported base's: it may have the method, unseen
        for owner in self._lineage(cls):
            if inherited and owner == cls:
                continue
            key = f"{self._paths.get(owner, owner)}.{method}"
            if owner not in self.classes:
                # a mixin without the method hands the lookup on to the next base
                # (`class Trainer(LoggingMixin, MemoryMixin)` and `self.tidy()`)
                self.imported_methods.add(key)
                if key in self.ctx.external:
                    return key
                unresolved = unresolved or key
                continue
            if key in self._key_set:
                if unresolved is not None:
                    return unresolved
                return None if not inherited and self._calls_an_override(cls, owner, key) else key
        return unresolved

    def _call_of_instance(self, cls: str) -> str | None:
        """What calling an instance of `cls` runs (`model(x)`): its `__call__`, or the
        `forward` an `nn.Module`'s call runs; for a class imported from another module,
        `utils.LossScaler.__call__`, which the project looks up, then its `forward`."""
        for owner in self._lineage(cls):
            if owner not in self.classes:
                return f"{owner}.__call__"
            for method in ("__call__", "forward"):
                key = f"{self._paths[owner]}.{method}"
                if key in self._key_set:
                    return None if self._calls_an_override(cls, owner, key) else key
        return None

    def _calls_an_override(self, cls: str, owner: str, key: str) -> bool:
        """`key`, a method `cls` inherits from `owner`, calls `self.<m>()` that a class
        between them overrides (a template method): the summary of `key`, read in
        `owner`, would describe `owner`'s `m`. What it does is then left unknown."""
        if owner == cls or owner not in self.classes:
            return False
        function = self._functions.get(key)
        called = {node.func.attr.value for node in iter_nodes(function) if type(node) is cst.Call  # type: ignore[attr-defined]
                  and type(node.func) is cst.Attribute
                  and receiver_method(self.ctx, node.func.value) is function} if function is not None else set()
        for between in self._lineage(cls):
            if between == owner:
                return False
            if between in self.classes and any(f"{self._paths[between]}.{name}" in self._key_set for name in called):
                return True
        return False

    def _lineage(self, cls: str) -> Iterator[str]:
        seen: set[str] = set()
        pending = [cls]
        while pending:
            current = pending.pop()
            if current not in seen:
                seen.add(current)
                yield current
                pending.extend(reversed(self.bases(current)))

    def lineage(self, cls: str) -> tuple[str, ...]:
        """`cls` and the classes it inherits from, in the order methods are looked up
        (imported ones as the file names them, `.base.Trainer`): Python's (C3), depth
        first where Python would refuse the class; worked out once per class. Up to the
        first imported class, whose own bases the file does not see, it is Python's
        order whatever they are; after it, not known."""
        found = self._lineages.get(cls)
        if found is None:
            found = tuple(self._lineage(cls))
            if any(len(self.bases(owner)) > 1 for owner in found):
                found = self._c3(found) or found
            self._lineages[cls] = found
        return found

    def _c3(self, classes: tuple[str, ...]) -> tuple[str, ...] | None:
        """The C3 order of `classes[0]`, whose lineage `classes` is (see
        `trainlint.mro.c3_order`), an imported class taken for one with no bases;
        None where Python would refuse the class."""
        return c3_order(classes[0], classes, self.bases, self._c3_orders)

    def class_path(self, cls: str) -> str:
        """The key prefix of the methods of the file's class `cls` (`main.Trainer` for a
        class defined in `main()`)."""
        return self._paths.get(cls, cls)

    def function(self, key: str) -> cst.FunctionDef | None:
        """The function of the file with the summary key `key`."""
        return self._functions.get(key)

    def imported_bases(self, cls: str) -> list[str]:
        """The classes of `cls`'s lineage imported from another module (`base.BaseTrainer`),
        in the order methods are looked up."""
        return [owner for owner in self._lineage(cls) if owner not in self.classes]

    def inherited_constructor(self, cls: str) -> Summary | None:
        """What the constructor of an imported base does that building an instance of
        `cls` runs (`self.scaler = GradScaler()` in `base.BaseTrainer.__init__`): the
        first such base the project knows a constructor of, when each class of the file
        on the way has no `__init__` or one that calls `super().__init__(...)`."""
        for owner in self._lineage(cls):
            if owner not in self.classes:
                found = self.ctx.external.get(f"{owner}.__init__")
                if found is not None:
                    return found
                continue
            init = self._functions.get(f"{self._paths[owner]}.__init__")
            if init is not None and not any(
                    type(node) is cst.Call and method_call(node, "__init__") is not None  # type: ignore[arg-type]
                    for node in iter_nodes(init.body)):
                return None  # `super().__init__()` (or `Base.__init__(self)`) is not called
        return None

    def scaling_classes(self) -> set[str]:
        """Classes of the file whose methods scale with an attribute of `self`
        (`self.scaler.scale(loss)`): the project is asked what their imported bases'
        constructors build (see `Summary.grad_scalers`)."""
        if "scale(" not in self.ctx.source:
            return set()
        found = set()
        for call in self.ctx.nodes_of(cst.Call):
            receiver = method_call(call, "scale")  # type: ignore[arg-type]
            if type(receiver) is cst.Attribute and (cls := self._instance_class(receiver.value)) is not None:
                found.add(cls.name.value)
        return found

    def bases(self, cls: str) -> tuple[str, ...]:
        """The bases of class `cls` of this file that may define methods it inherits:
        classes of this file (by name) and imported ones (by qualified name); torch's
        and the builtins' are left out (nothing of them is summarized)."""
        found = self._bases.get(cls)
        if found is None:
            node = self.classes.get(cls)
            found = self._bases[cls] = tuple(
                name for arg in (node.bases if node is not None else ()) if arg.keyword is None and not arg.star
                if (name := self._base_name(arg.value, cls)) is not None)
        return found

    def _base_name(self, expr: cst.BaseExpression, cls: str) -> str | None:
        if type(expr) is cst.Name and expr.value == cls:
            qualified = self._imported_before(expr)
        elif type(expr) is cst.Name and expr.value in self.classes and self.ctx.qualified_name(expr) is None:
            return expr.value
        else:
            qualified = self.ctx.qualified_name(expr)
        if qualified is None or qualified.startswith(("torch.", "builtins.")):
            return None
        return qualified

    def _imported_before(self, base: cst.Name) -> str | None:
        """What the base of `class Trainer(Trainer)` names: the class the name was bound to
        before the statement, when an import is all that binds it beside the statement
        (another class or assignment of the name, anywhere in the file, could come
        before: not known)."""
        scope = self.ctx.scope_of(base)
        imported = scope.imports.get(base.value) or set()
        binders = [node for node in iter_nodes(scope.node) if base.value in bound_names(node)
                   or (type(node) in (cst.ClassDef, cst.FunctionDef) and node.name.value == base.value)]  # type: ignore[attr-defined]
        if len(imported) != 1 or len(binders) != 1 or base.value in scope.aliases:
            return None
        return canonical(next(iter(imported)))

    def _super_of(self, expr: cst.BaseExpression) -> str | None:
        """The class of this file whose method calls `super().method()` on `expr`."""
        if type(expr) is not cst.Call or type(expr.func) is not cst.Name or expr.func.value != "super":
            return None
        cls = self._class_around(expr)
        return cls.name.value if cls is not None and self.classes.get(cls.name.value) is cls else None

    def _class_of(self, expr: cst.BaseExpression) -> str | None:
        """The class `expr` is an instance of: `self` in a method, or a
        variable built by calling a class (of this file or imported)."""
        if (cls := self._instance_class(expr)) is not None:
            return cls.name.value
        if type(expr) is cst.Call:  # built in place: `Evaluator(model).run()`
            built = _unchained(expr)
            if self.ctx.call_name(built) in MODULE_WRAPPERS and built.args:  # type: ignore[arg-type]
                # wrapped where it is called: `torch.compile(Net())(x)`, `nn.DataParallel(model)(x)`
                return self._class_of(unchain_module(built.args[0].value))  # type: ignore[attr-defined]
            return self._class_named(built.func)  # type: ignore[attr-defined]
        if not self._instances:
            return None
        for key in self._keys(expr):
            found = self._instances.get(key)
            if found is not None:
                return found
        return self._class_from_callers(expr) if type(expr) is cst.Name else None

    def _class_from_callers(self, name: cst.Name) -> str | None:
        """The class of a parameter that every call of its function in this file
        hands an instance of (`train_one_epoch(model, loader, optimizer, stepper)`
        after `stepper = Stepper()`); None when one call hands something else, or
        the function is not called here."""
        func = self.ctx.enclosing_function(name)
        if func is None or name.value not in parameter_names(self.ctx, func):
            return None
        key = (func, name.value)
        if key in self._given:
            return self._given[key]
        self._given[key] = None  # a function that hands its parameter on to itself
        found = None
        for call in self.ctx.call_sites(func):
            arg = dict(bound_arguments(self.ctx, call, func)[0]).get(name.value)
            cls = self._class_of(arg) if arg is not None else None
            if cls is None or found not in (None, cls):
                return None
            found = cls
        self._given[key] = found
        return found

    def _constructions_by_variable(self) -> dict[tuple[cst.CSTNode, str], list[cst.Call]]:
        found: dict[tuple[cst.CSTNode, str], list[cst.Call]] = {}
        for node in self.ctx.nodes_of(cst.Assign):
            # also built inside a wrapper (`torch.compile(Net())`): calling it runs `Net.forward`
            value = _unchained(module_behind(self.ctx, _unchained(node.value)))  # type: ignore[attr-defined]
            if type(value) is not cst.Call or len(node.targets) != 1:  # type: ignore[attr-defined]
                continue
            cls = self._class_named(value.func)
            keys = self._keys(node.targets[0].target) if cls is not None else []  # type: ignore[attr-defined]
            if keys:
                found.setdefault(keys[0], []).append(value)
        return found

    def constructions(self) -> Iterator[cst.Call]:
        """Each call of a class whose instance a variable of the file keeps."""
        for built in self._built.values():
            yield from built

    def construction(self, expr: cst.BaseExpression) -> cst.Call | None:
        """The call that built the instance `expr` names (`Evaluator(model, loader)`
        for `evaluator` or `self.evaluator`, or itself, built in place), when one call
        of a class builds it."""
        if type(expr) is cst.Call:
            built = _unchained(expr)
            return built if type(built) is cst.Call and self._class_named(built.func) is not None else None
        for key in self._keys(expr):
            built = self._built.get(key)
            if built is not None:
                return built[0] if len(built) == 1 else None
        return None

    def constructions_of_its_class(self, expr: cst.BaseExpression) -> list[cst.Call]:
        """Every call that builds the instance `expr` names as one of the class its
        methods are looked up in (the class of its first construction): both
        `agent = A2C(...)` of two branches, not the `agent = PPO(...)` of a third."""
        if type(expr) is cst.Call:
            built = self.construction(expr)
            return [built] if built is not None else []
        cls = self._class_of(expr)
        for key in self._keys(expr) if cls is not None else ():
            built = self._built.get(key)
            if built is not None:
                return [call for call in built if self._class_named(call.func) == cls]
        return []

    def _keys(self, expr: cst.BaseExpression) -> list[tuple[cst.CSTNode, str]]:
        """Where a variable may be bound: `name` in the scope it is read in
        (then at module level, for a name that scope does not bind), or
        `self.attr` in the class of the method."""
        if type(expr) is cst.Name:
            scope = self.ctx.scope_of(expr)
            keys = [(scope.node, expr.value)]
            if expr.value not in scope.locals and scope is not self.ctx.scopes.module_scope:
                outer = binding_scope(expr.value, scope)
                if outer is not None and outer is not scope and outer.is_function:
                    keys.append((outer.node, expr.value))  # a closure's read of its function's variable
                keys.append((self.ctx.module, expr.value))
            return keys
        if type(expr) is cst.Attribute and (cls := self._instance_class(expr.value)) is not None:
            return [(cls, f"self.{expr.attr.value}")]
        return []

    def _instance_class(self, expr: cst.BaseExpression) -> cst.ClassDef | None:
        """The class whose instance `expr` is: the receiver of one of its methods
        (`self`, or `trainer` of `def fit(trainer)`; see `receiver_method`)."""
        method = receiver_method(self.ctx, expr)
        return owning_class(self.ctx, method) if method is not None else None

    def _class_around(self, node: cst.CSTNode) -> cst.ClassDef | None:
        func = self.ctx.enclosing_function(node)
        cls = self.ctx.parent(self.ctx.parent(func)) if func is not None else None
        return cls if type(cls) is cst.ClassDef else None

    def _class_named(self, func: cst.BaseExpression) -> str | None:
        if type(func) is cst.Name and func.value in self.classes and self.ctx.qualified_name(func) is None:
            return func.value
        qualified = self.ctx.qualified_name(func)
        last = (qualified or "").rsplit(".", 1)[-1]
        if qualified is not None and last[:1].isupper() and not qualified.startswith("torch."):
            return qualified
        return None


# `nn.Module` methods that return the module itself: `Trainer(model).cuda()` is a Trainer
_RETURN_SELF = frozenset({"cuda", "cpu", "to", "float", "double", "half", "bfloat16", "train", "eval",
                          "requires_grad_", "share_memory", "to_empty", "xpu", "mps"})


# methods of dicts, lists and sets: what a meter's loop calls to keep its sums
_CONTAINER_METHODS = ("get", "setdefault", "append", "extend", "items", "values", "keys", "pop", "add")
# a tensor's own methods that compute (see `_computing_loop`)
_TENSOR_METHODS = frozenset({
    "size", "dim", "view", "reshape", "permute", "transpose", "contiguous", "unsqueeze", "squeeze", "flatten",
    "expand", "expand_as", "repeat", "narrow", "chunk", "split", "gather", "index_select", "masked_fill",
    "float", "half", "double", "long", "int", "bool", "to", "type_as", "detach", "clone", "sum", "mean", "max",
    "min", "exp", "log", "log_softmax", "softmax", "sigmoid", "tanh", "relu", "pow", "sqrt", "abs", "argmax",
    "argmin", "topk", "sort", "cumsum", "matmul", "mul", "add", "sub", "div", "neg", "clamp", "norm",
    "new_zeros", "new_ones", "new_full", "new_empty", "item", "tolist", "numpy",
    "update",  # a meter's, a dict's: bookkeeping of the step
})


# contexts that set the grad mode, in a loop that computes (a norm under `torch.no_grad()`)
_GRAD_MODES = frozenset({"torch.autograd.no_grad", "torch.autograd.enable_grad", "torch.autograd.inference_mode",
                         "torch.autograd.set_grad_enabled"})


def _computes(name: str | None) -> bool:
    """A function of torch or math that computes: not one of autograd's (`backward`,
    `grad`) but its grad modes, nor one of `torch.nn`'s (a module, a clip) but its
    functional forms (`F.log_softmax`)."""
    return bool(name) and (name in _GRAD_MODES or name.startswith("torch.nn.functional.") or (  # type: ignore[return-value,union-attr]
        name.startswith(("torch.", "math.")) and not name.startswith(("torch.autograd", "torch.nn."))))  # type: ignore[union-attr]


def _tests_training(test: cst.BaseExpression, receiver: str) -> bool:
    """`self.training` (`receiver` the method's name of its instance), alone or as an
    operand of an `and` chain: true only in train mode."""
    while type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        if _tests_training(test.left, receiver):
            return True
        test = test.right
    return dotted_name(test) == f"{receiver}.training"


def _unchained(value: cst.BaseExpression) -> cst.BaseExpression:
    """The construction behind calls of methods that return the object itself."""
    while (type(value) is cst.Call and type(value.func) is cst.Attribute
           and value.func.attr.value in _RETURN_SELF and type(value.func.value) is cst.Call):
        value = value.func.value
    return value


# -- one function ----------------------------------------------------------------
class _Summarizer:
    def __init__(self, ctx: FileContext, targets: CallTargets, func: cst.FunctionDef) -> None:
        self.ctx = ctx
        self.targets = targets
        self.func = func
        self.signature = parameter_names(ctx, func)
        self.params = tuple(name.lstrip("*") for name in self.signature)
        # the own nodes a summary reads, picked in one pass
        self.nodes = only(ctx.own_nodes(func.body), cst.For, cst.While, cst.AugAssign, cst.Return, cst.Assign, cst.Del)
        self.derived = self._derived_from_params()
        self.detached = self._detached_params()
        self.converted: set[str] = set()  # dotted names converted to float16 here
        self.unjudged_steps = False  # see `Summary.unjudged_steps`
        self.guarded_steps: dict[tuple[str, str], None] = {}  # see `Summary.guarded_steps`
        self.unscales_given: set[str] = set()  # see `Summary.unscales_given`
        self.default_steps: dict[tuple[str, str], None] = {}  # see `Summary.default_steps`
        self.step_tests: dict[tuple[str, str, str, str], None] = {}  # see `Summary.step_tests`
        self._returned: dict[str, int] | None = None  # local names it returns (see `_returned_arguments`)
        self._flags: dict[str, str] | None = None  # see `function_flags`, read by `_gate`

    def summary(self) -> Summary:
        loops = only(self.nodes, cst.For, cst.While)
        phases = [loop for loop in loops if not self._micro_batch_loop(loop) and not self._bookkeeping_loop(loop)
                  and not self._computing_loop(loop)]
        events: list[Event] = [LOOP] if phases else []
        sets: dict[str, set[str]] = {"set_epoch": set(), "half": set(), "eval_mode": set(), "accumulates": set(),
                                     "steps": set(), "known_steps": set(), "scales_backward": set(),
                                     "plain_steps": set(), "unscales": set()}
        # gradients cleared by statements (`p.grad = None`, `del p.grad`), in their place among the calls
        clears = [node for node in only(self.nodes, cst.Assign, cst.Del) if clears_grads(self.ctx, node)]
        # an effect that needs the graph outside `if self.training:` (see `Summary.graph_when_training`)
        untrained = not is_method(self.ctx, self.func) or any(not self._when_training(node) for node in clears)
        for call in self.ctx.calls_in_order(self.func.body):
            while clears and self.ctx.order_index(clears[0]) < self.ctx.order_index(call):
                events.append(self._clear(clears.pop(0)))
            made = list(self._events(call, sets))
            events.extend(made)
            untrained = untrained or (any(effect in GRAPH_EFFECTS for effect in made) and not self._when_training(call))
        events.extend(self._clear(node) for node in clears)
        # `def optimize(opt, losses): torch.stack(losses).mean().backward()`
        sets["backpropagates"] = consumed_names(self.ctx, self.func.body) & set(self.params) if BACKWARD in events else set()
        sets["uncleared_loop_steps"] = self._uncleared_loop_steps(loops) if BACKWARD in events else set()
        sets["optimizes"] = self._optimized()
        returned: list[cst.BaseExpression] = []
        whole: list[cst.BaseExpression] = []  # values returned alone, not in a tuple
        tuples: list[cst.Tuple] = []
        containers: list[cst.BaseExpression] = []  # lists and dicts returned
        # named tuples built there: their fields, and their items by position
        named_tuples: list[BuiltNamedTuple] = []
        for node in only(self.nodes, cst.AugAssign, cst.Return):
            if type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign:
                self._accumulation(node.target, node.value, sets["accumulates"])
            elif type(node) is cst.Return and node.value is not None:
                returned.extend(_returned_items(node.value))
                fielded = self._named_tuple_items(node.value)
                if fielded is not None:  # `return PPOStats(loss, kl)`: a tuple, by position
                    returned.extend(fielded[1].values())
                    named_tuples.append(fielded)
                if type(node.value) not in (cst.Tuple, cst.List, cst.Dict):
                    whole.append(node.value)
                elif type(node.value) is cst.Tuple:
                    tuples.append(node.value)
                else:
                    containers.append(node.value)
        method = is_method(self.ctx, self.func)
        forwards, evaluated_forwards, forwards_through, evaluated_through = loop_forwards(
            self.ctx, self.func, self.params, method, self.targets.target)
        called = called_forwards(self.ctx, self.func, self.params, method, self.targets.target)
        returns_kind, returned_items = self._returned_items(whole, tuples, containers, named_tuples,
                                                            BACKWARD in events)
        updates_if = self._updates_if()
        float16_paths = self._float16_paths()
        return Summary(
            params=self.signature,
            events=tuple(events),
            returns_graph=BACKWARD in events and self._returns_backpropagated(returned),
            returns_half=any(self._converted(r) for r in returned),
            returns_float16=() in float16_paths,
            float16_when=() if () in float16_paths else float16_paths,
            returns_grad_scaler=self._returns_enabled_scaler(),
            returns_distributed_loader="DistributedSampler" in self.ctx.source
            and any(self._distributed_loader(r) for r in whole),
            returns_unpinned_loader=bool(whole) and not tuples and not containers
            and all(self._unpinned_loader(r) for r in whole),
            returns_distributed_sampler=self._returned_sampler(whole + containers)
            if "DistributedSampler" in self.ctx.source else (),
            returns_result_of=self._returned_result(whole + containers),
            stores=self._stores(),
            grad_scalers=self._grad_scalers(),
            forwards=forwards,
            evaluated_forwards=evaluated_forwards,
            forwards_through=forwards_through,
            evaluated_through=evaluated_through,
            called_forwards=called[0],
            called_through=called[1],
            wrapped_forwards=wrapped_forwards(self.ctx, self.func, self.params, method, self.targets.target),
            runs_layers=runs_layers(self.ctx, self.func),
            method_forwards=loop_methods(self.ctx, self.func, self.params, method),
            layer_methods=layer_methods(self.ctx, self.func) if method else frozenset(),
            returns_kind=returns_kind,
            returned_items=returned_items,
            leaves_eval=self._left_in_eval(),
            updates_if=updates_if,
            computed_backwards=own_backwards(self.ctx, self.func, self.params) if BACKWARD in events else (),
            returns_fielded=self._fielded_returns(whole) if BACKWARD in events else (),
            unscales_given=frozenset(self.unscales_given - updates_if),
            no_grad_when=no_grad_branches(self.ctx, self.func),
            copies_non_blocking=copied_parameters(self.ctx, self.func, self.params),
            copies_through=handed_parameters(self.ctx, self.func, self.params, self.targets.target),
            graph_when_training=not untrained,
            unjudged_steps=self.unjudged_steps,
            flag_writes=self._flag_writes(),
            updates_later=self._updated_later(),
            read_params=self._read_params(),
            guarded_steps=tuple(self.guarded_steps),
            default_steps=tuple(self.default_steps),
            step_tests=tuple(self.step_tests),
            defaults=self._defaults(events),
            hook_loops=self._hook_loops(),
            **{name: frozenset(values) for name, values in sets.items()},
        )

    def _hook_loops(self) -> tuple[HookLoop, ...]:
        """The loops of a method that call methods of its own instance (`self.backward(loss)`),
        each with what it hands them: a subclass's override runs there (see `trainlint.hooks`).
        A method looked up by a name built at run time (`getattr(self, name)()`) is none."""
        receiver = receiver_name(self.ctx, self.func)
        owner = self.targets.keys[self.func].rpartition(".")[0]
        if receiver is None or "." in owner or not only(self.nodes, cst.For, cst.While):
            return ()  # no loop, or a class of a function's body: no subclass elsewhere
        found: dict[cst.CSTNode, list[HookCall]] = {}
        hooks: list[cst.Call] = []  # in order
        for call in self.ctx.calls_in_order(self.func.body):
            func = call.func
            loop = innermost_loop(self.ctx, call)
            if (loop is None or type(func) is not cst.Attribute or receiver_method(self.ctx, func.value) is not self.func
                    or not self._may_be_hook(owner, func.attr.value)):
                continue
            hooks.append(call)
            handed = tuple((slot, _value_at(self.ctx, loop, name.value, call)) for slot, name in _handed(call))
            result = _bound_result(self.ctx, call)
            found.setdefault(loop, []).append(HookCall(
                func.attr.value, self._occasional_in(call, loop),
                result and _value_at(self.ctx, loop, result, call, binding=True), handed))
        return tuple(self._hook_loop(loop, calls, hooks) for loop, calls in found.items())

    def _may_be_hook(self, owner: str, method: str) -> bool:
        """`self.<method>()` in a loop of `owner` runs a method a subclass may define: one of
        `owner`'s lineage, or one it leaves to its subclasses (`self.training_step(batch)`
        with no `training_step` of its own), which no attribute of the file is bound as
        (`self.model = model` makes `self.model(x)` no method)."""
        return (self.targets.method_of(owner, method) is not None
                or method not in self.ctx.shared(_assigned_attributes))

    def _hook_loop(self, loop: cst.CSTNode, calls: list[HookCall], hooks: list[cst.Call]) -> HookLoop:
        """What `loop` does itself beside its `calls` of hooks (`hooks`, the calls of the method,
        in order), and where among them it back-propagates or unscales."""
        hook_set = set(hooks)
        runs = [(call, nested) for call in self.ctx.calls_in_order(loop.body)  # type: ignore[attr-defined]
                if (nested := _nesting(self.ctx, call, loop)) is not None]
        own = [call for call, nested in runs if not nested and call not in hook_set]
        effects = {effect for call in own if (effect := effect_of(self.ctx, call)) is not None}
        # `loss.backward()` of the loop's own; a hook's `self.backward(loss)` is the hook's to tell
        receiver = receiver_name(self.ctx, self.func)
        backpropagations_of = [(name, _value_at(self.ctx, loop, name, call), call)
                               for name, _, call in backpropagations(self.ctx, loop.body)  # type: ignore[attr-defined]
                               if BACKWARD in effects and name.partition(".")[0] != receiver]
        backpropagated = sorted({value for _, value, _ in backpropagations_of})
        plain = sorted({value for name, value, call in backpropagations_of
                        if self._backpropagated_as_is(loop, name, value, call)})
        starts = [self.ctx.order_index(hook) for hook in hooks if innermost_loop(self.ctx, hook) is loop]
        # a call of a loop nested in this one (`for opt in optimizers: scaler.unscale_(opt)`),
        # a hook's too, runs on some iterations only: it may unscale, or not
        placed = tuple(placed for call, nested in runs if (nested or call not in hook_set)
                       and (placed := self._placed(call, loop, starts, nested and call in hook_set)) is not None)
        return HookLoop(self.targets.keys[self.func], tuple(calls), tuple(sorted(effects)), tuple(backpropagated),
                        placed=placed, plain=tuple(plain))

    def _backpropagated_as_is(self, loop: cst.CSTNode, name: str, value: str, backward: cst.Call) -> bool:
        """`backward` back-propagates the value `value` of `name` as it is (`loss.backward()`,
        `torch.autograd.backward(loss)`), and no call of the loop is handed that value before it:
        not a scaling context (apex's `with amp.scale_loss(loss, opt) as scaled_loss:`), nor
        a wrapper that may scale it."""
        receiver = method_call(backward, "backward")
        if receiver is None and self.ctx.call_name(backward) == "torch.autograd.backward" and backward.args:
            receiver = backward.args[0].value
        if type(receiver) is not cst.Name or receiver.value != name:
            return False
        at = self.ctx.order_index(backward)
        return not any(
            self.ctx.order_index(call) < at and any(
                type(arg.value) is cst.Name and arg.value.value == name
                and _value_at(self.ctx, loop, name, call) == value for arg in call.args)
            for call in self.ctx.calls_in_order(loop.body))  # type: ignore[attr-defined]

    def _placed(self, call: cst.Call, loop: cst.CSTNode, starts: list[int], hook: bool = False) -> LoopCall | None:
        """`call` of the loop's own code as a `LoopCall`, where `starts` are the places of the
        loop's hook calls: a backward, an `unscale_`, a call of a function of the project
        (which a subclass's module looks up: it may unscale), a call out of reach that is
        handed a GradScaler (`amp_utils.unscale(self.scaler, opt)`) or may reach the
        instance's (see `_may_reach_instance`), or the call of a hook in a loop nested in
        this one (`hook`: a subclass's override, out of reach); None for any other call.
        A call of a loop nested in `loop` runs on some iterations only."""
        effect = effect_of(self.ctx, call) if not hook else None
        callee = self.targets.target(call) if effect is None and not hook else None
        if effect == BACKWARD:
            scaler = scaled_backward_scaler(call)
        else:
            scaler = self._handed_scaler(call) if effect is None else None
        if (effect not in (BACKWARD, UNSCALE) and callee is None and scaler is None and not hook
                and not self._may_reach_instance(call)):
            return None
        return LoopCall(bisect_left(starts, self.ctx.order_index(call)), effect if effect is not None else "",
                        (dotted_name(scaler) or "scaler") if scaler is not None else "", callee or "",
                        self._occasional_in(call, loop) or innermost_loop(self.ctx, call) is not loop)

    def _may_reach_instance(self, call: cst.Call) -> bool:
        """`call`, which the linter cannot follow, may reach what the method's instance holds
        (its GradScaler): a callable of the method's own (`un = lambda: self.scaler.unscale_(opt)`,
        a nested `def`, a parameter), a method of an object the instance holds
        (`self.amp.unscale()`), or a call handed the instance itself (`unscale_all(self)`)."""
        receiver = receiver_name(self.ctx, self.func)
        func = call.func
        if type(func) is cst.Name:
            scope = binding_scope(func.value, self.ctx.scope_of(func))
            if scope is not None and scope.is_function:
                return True
        elif type(func) is cst.Attribute and type(func.value) is not cst.Name:
            head = head_name(func.value)
            if head is not None and head.value == receiver and self.ctx.receivers.kind(func.value) is None:
                return True
        return any(type(arg.value) is cst.Name and arg.value.value == receiver for arg in call.args)

    def _occasional_in(self, call: cst.Call, loop: cst.CSTNode) -> bool:
        """`call` may be skipped on some iterations of `loop`: under any condition of its
        body, or in an exception handler there."""
        for ancestor in self.ctx.ancestors(call):
            if ancestor is loop:
                return False
            if type(ancestor) in (cst.If, cst.IfExp, cst.ExceptHandler, cst.ExceptStarHandler):
                return True
        return False

    def _left_in_eval(self) -> frozenset[str]:
        """`Summary.leaves_eval`: the params (and `self.` attributes) put in eval mode on
        every call, their last switch of mode; none where the function sets a grad mode."""
        if ".eval(" not in self.ctx.source:
            return frozenset()
        exits = [self.ctx.order_index(node) for node in self.ctx.own_nodes(self.func.body)
                 if type(node) in (cst.Return, cst.Raise)]
        left: dict[str, bool] = {}
        for call in self.ctx.calls_in_order(self.func.body):
            mode = mode_switch(self.ctx, call)
            if mode is None:
                continue
            name = mode[0].value if type(mode[0]) is cst.Name and mode[0].value in self.params \
                else self._own_attribute(mode[0])
            if name is None:
                continue
            at = self.ctx.order_index(call)
            left[name] = mode[1] is False and not any(index < at for index in exits) and self._on_every_call(call)
        evaluated = frozenset(name for name, evaluated in left.items() if evaluated)
        if evaluated and any(word in self.ctx.code(self.func) for word in _GRAD_MODE_WORDS):
            return frozenset()
        return evaluated

    def _on_every_call(self, node: cst.CSTNode) -> bool:
        """`node` runs on each call of the function: under no branch, loop or handler of it."""
        for ancestor in self.ctx.ancestors(node):
            if ancestor is self.func:
                return True
            if type(ancestor) in _BRANCHING:
                return False
        return False

    def _given_alone(self, node: cst.CSTNode) -> str | None:
        """The param P when `node` runs on each call that gives P a value: in the body of
        `if P:` or `if P is not None:`, P never rebound, and under no other branch, loop or
        handler of the function."""
        given: str | None = None
        child = node
        for ancestor in self.ctx.ancestors(node):
            if ancestor is self.func:
                return given
            if type(ancestor) is cst.If and child is ancestor.body and given is None:
                test = ancestor.test
                if (type(test) is cst.Comparison and len(test.comparisons) == 1
                        and type(test.comparisons[0].operator) is cst.IsNot
                        and type(test.comparisons[0].comparator) is cst.Name
                        and test.comparisons[0].comparator.value == "None"):
                    test = test.left
                if type(test) is not cst.Name or not self._unchanged_param(test):
                    return None
                given = test.value
            elif type(ancestor) in _BRANCHING:
                return None
            child = ancestor
        return None

    def _exits_before(self, node: cst.CSTNode) -> bool:
        """A `return` or `raise` of the function comes before `node`."""
        at = self.ctx.order_index(node)
        return any(type(exit) in (cst.Return, cst.Raise) and self.ctx.order_index(exit) < at
                   for exit in self.ctx.own_nodes(self.func.body))

    def _own_scaler(self, expr: cst.BaseExpression) -> bool:
        """`expr` is an attribute of the instance a method runs on that holds a GradScaler."""
        return self._own_attribute(expr) is not None and self.ctx.receivers.is_kind(expr, GRAD_SCALER)

    def _updates_if(self) -> frozenset[str]:
        """`Summary.updates_if`: the params P whose `if P:` holds every `update()` of a
        GradScaler the function calls, where nothing else it calls may update one."""
        if ".update(" not in self.ctx.source or "caler" not in self.ctx.source:
            return frozenset()
        found: set[str] | None = None
        for call in self.ctx.calls_in_order(self.func.body):
            updated = method_call(call, "update")
            if updated is not None and (self.ctx.receivers.is_kind(updated, GRAD_SCALER) or named_scaler(updated)):
                flags = self._flags_around(call)
                found = flags if found is None else found & flags
                continue
            if self._hands_scaler(call) or any(self._own_object(arg.value) is not None for arg in call.args):
                return frozenset()  # `hook.after_step(self.scaler)`, `callback(self)`: may update it
            receiver = call.func.value if type(call.func) is cst.Attribute else None
            head = head_name(receiver) if receiver is not None else None
            if head is not None and self._own_object(head) is not None and not (
                    self.ctx.receivers.is_kind(receiver, GRAD_SCALER) or named_scaler(receiver)):  # type: ignore[arg-type]
                return frozenset()  # another method of the instance (`self._update()`): may update its scaler
        return frozenset(found or ())

    def _flags_around(self, node: cst.CSTNode) -> set[str]:
        """The params P of each `if P:` whose body holds `node` in this function, P never rebound."""
        flags: set[str] = set()
        child = node
        for ancestor in self.ctx.ancestors(node):
            if ancestor is self.func:
                break
            if (type(ancestor) is cst.If and child is ancestor.body and type(ancestor.test) is cst.Name
                    and self._unchanged_param(ancestor.test)):
                flags.add(ancestor.test.value)
            child = ancestor
        return flags

    def _returned_items(self, whole: list[cst.BaseExpression], tuples: list[cst.Tuple],
                        containers: list[cst.BaseExpression],
                        named_tuples: list[BuiltNamedTuple],
                        backpropagates: bool) -> tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        """`Summary.returns_kind` and `Summary.returned_items`: what the items of the tuples
        (`tuples`), named tuples built (`named_tuples`, their fields and items by position) and dicts or
        lists (`containers`) its returns write out hold, given the values it returns alone
        (`whole`) and whether it back-propagates."""
        record: tuple[tuple[str, tuple[str, ...]], ...] = ()
        if backpropagates:
            backpropagated = backpropagated_names(self.ctx, self.func.body)
            fielded = [item for fields, items in named_tuples for item in field_items(
                fields, (index for index, value in items.items() if dotted_name(value) in backpropagated))]
            record = with_items(record, GRAPH, [*self._graph_items(tuples + containers), *dict.fromkeys(fielded)])
        loaders = [f"#{index}" for index in self._distributed_loader_items(tuples)]
        loaders += self._distributed_loader_keys(containers, whole, tuples)
        record = with_items(record, DISTRIBUTED_LOADER, loaders)
        record = with_items(record, UNPINNED_LOADER, self._unpinned_loader_items(whole, tuples, containers))
        if "schedule" not in self.ctx.source:
            return "", record
        kind, items, keys = self.ctx.receivers.returned_kinds(self.func)
        if SCHEDULER not in (kind, *items, *(found for _, found in keys)):
            return "", record
        for item, found in [*((f"#{index}", found) for index, found in enumerate(items)), *keys]:
            if found:
                record = with_items(record, found, [item])
        return kind if kind == SCHEDULER else "", record

    def _uncleared_loop_steps(self, loops: list[cst.CSTNode]) -> set[str]:
        """Parameters `.step()`ped (not known here as optimizers: those the rule judges
        in this file) in a loop of this function that back-propagates and clears no
        gradients: nothing in it clears, may clear by its name, or calls code of the
        project, which might."""
        found: set[str] = set()
        for loop in loops:
            nodes = self.ctx.subtree(loop.body)  # type: ignore[attr-defined]
            calls = [node for node in nodes if type(node) is cst.Call]
            if not any(is_backward(call) for call in calls) or any(
                    clears_grads(self.ctx, node) for node in nodes) or any(
                    clearing_name(call) or self.targets.target(call) is not None for call in calls):
                continue
            for call in calls:
                receiver = method_call(call, "step")
                param = self._param(receiver) if receiver is not None and not call.args else None
                if param is not None and optimizer_step(self.ctx, call) is None:
                    found.add(param)
        return found

    def _updated_later(self) -> frozenset[tuple[str, str]]:
        """`Summary.updates_later` of its own registrations: `optimizer.register_step_post_hook(hook)`
        (or `register_step_pre_hook`) of an unchanged param, on every call, where `hook` is a
        lambda or a function defined in this one that calls `update()` on another unchanged param."""
        if not any(name in self.ctx.source for name in STEP_HOOK_REGISTRATIONS):
            return frozenset()
        found: set[tuple[str, str]] = set()
        for call in only(self.ctx.own_nodes(self.func.body), cst.Call):
            optimizer = method_call(call, *STEP_HOOK_REGISTRATIONS)  # type: ignore[arg-type]
            if (type(optimizer) is not cst.Name or not self._unchanged_param(optimizer)
                    or not call.args or call.args[0].keyword is not None  # type: ignore[attr-defined]
                    or not self._on_every_call(call) or self._exits_before(call)):
                continue
            hook = hook_body(call.args[0].value, self.func.body.body)  # type: ignore[attr-defined]
            found.update((scaler, optimizer.value) for scaler in self._updated_in(hook))
        return frozenset(found)

    def _read_params(self) -> frozenset[str]:
        """`Summary.read_params`: the params each use of which only reads it."""
        unread: set[str] = set()
        for name in only(self.ctx.subtree(self.func.body), cst.Name):
            if name.value in self.params and not self._only_read(name):  # type: ignore[attr-defined]
                unread.add(name.value)  # type: ignore[attr-defined]
        # `*args` / `**kwargs`: what a caller hands them is not followed
        return frozenset(name for name in self.signature if not name.startswith("*")) - unread

    def _only_read(self, name: cst.Name) -> bool:
        """`name` is no use of a variable (an attribute's or a keyword's name), or one that
        only reads it, where the function runs: `print(name)`, `name.get_scale()`."""
        parent = self.ctx.parent(name)
        if (type(parent) is cst.Attribute and parent.attr is name) or (type(parent) is cst.Arg and parent.keyword is name):
            return True
        for ancestor in self.ctx.ancestors(name):
            if ancestor is self.func:
                break
            if type(ancestor) in (cst.Lambda, cst.FunctionDef, cst.ClassDef):
                return False  # runs at another time, or binds a name of its own
        call = self.ctx.parent(parent)
        if type(parent) is cst.Attribute:
            return type(call) is cst.Call and call.func is parent and parent.attr.value in SCALER_READS  # type: ignore[attr-defined]
        return type(parent) is cst.Arg and type(call) is cst.Call and reads_only(self.ctx, call)  # type: ignore[arg-type]

    def _updated_in(self, body: cst.CSTNode | None) -> set[str]:
        """Unchanged params whose `update()` `body` calls (read where the hook runs, later),
        not a parameter of the hook by the same name."""
        if body is None:
            return set()
        found = set()
        for call in only(self.ctx.subtree(body), cst.Call):
            updated = method_call(call, "update")  # type: ignore[arg-type]
            if type(updated) is cst.Name and self._unchanged_param(updated) and not any(
                    type(a) in (cst.Lambda, cst.FunctionDef) and updated.value in named_parameters(a)  # type: ignore[arg-type]
                    for a in ancestors_within(self.ctx, call, self.func)):  # `lambda scaler, *_: scaler.update()`
                found.add(updated.value)
        return found

    def _optimized(self) -> set[str]:
        """Parameters (or `self.` attributes, or `self`) whose `.parameters()` / `.named_parameters()`
        go into the arguments of an optimizer it builds (`Adam(actor_critic.parameters())`,
        also in parameter groups)."""
        found: set[str] = set()
        for call in self.ctx.calls_in_order(self.func.body):
            if constructor_kind(self.ctx.call_name(call)) != OPTIMIZER:
                continue
            for node in only(self.ctx.subtree(call), cst.Call):
                owner = method_call(node, "parameters", "named_parameters")
                if owner is not None:
                    owner = unchain_module(owner)
                    # `self` of a module's method: the instance's own (`Adam(self.parameters())`)
                    name = self._param(owner) or self._own_attribute(owner) or self._own_object(owner)
                    if name is not None:
                        found.add(name)
        return found

    def _clear(self, node: cst.CSTNode) -> Event:
        """A statement that clears gradients: of every one it reaches, unless it runs
        on some calls only (see `_occasional`: `if "prototypes" in name: p.grad = None`,
        a part frozen for a while), as a call that clears."""
        return MAY_ZERO_GRAD if self._occasional(node) else ZERO_GRAD

    def _stores(self) -> tuple[tuple[str, str], ...]:
        """`self.model = model` in a constructor: which parameter each attribute of
        the new instance holds, when the constructor binds it once and only there."""
        if self.func.name.value != "__init__" or not is_method(self.ctx, self.func):
            return ()
        found: dict[str, str | None] = {}
        for node in only(self.nodes, cst.Assign):
            for target in node.targets:  # type: ignore[attr-defined]
                for place, value in assigned_parts(target.target, node.value):  # type: ignore[attr-defined]
                    attribute = self._own_attribute(place) if type(place) is cst.Attribute else None
                    if attribute is None or attribute.count(".") != 1:
                        continue
                    param = value.value if type(value) is cst.Name and value.value in self.params else None
                    found[attribute] = param if attribute not in found else None
        return tuple(sorted((attribute, param) for attribute, param in found.items() if param is not None))

    def _grad_scalers(self) -> frozenset[str]:
        """`self.scaler` of a constructor's `self.scaler = GradScaler()`: see
        `Summary.grad_scalers`. Every assignment of the attribute there builds a scaler
        that is switched on (or is `None`)."""
        if self.func.name.value != "__init__" or "Scaler" not in self.ctx.source or not is_method(self.ctx, self.func):
            return frozenset()
        values: dict[str, list[cst.BaseExpression]] = {}
        for node in only(self.nodes, cst.Assign):
            for target in node.targets:  # type: ignore[attr-defined]
                attribute = self._own_attribute(target.target)
                if attribute is not None and attribute.count(".") == 1:
                    values.setdefault(attribute, []).append(node.value)  # type: ignore[attr-defined]
        found = frozenset(attribute for attribute, assigned in values.items() if any(
            type(value) is cst.Call for value in assigned) and all(
            (type(value) is cst.Name and value.value == "None") or (
                type(value) is cst.Call and constructor_kind(self.ctx.call_name(value)) == GRAD_SCALER
                and grad_scaler_enabled(value) is True) for value in assigned))
        if found and {autocast_precision(self.ctx, call) for call in autocast_calls(self.ctx)} & {FLOAT16, UNKNOWN}:
            return frozenset()  # the scaler may serve that autocast
        return found

    def _micro_batch_loop(self, loop: cst.CSTNode) -> bool:
        """A loop that back-propagates micro-batches and leaves the optimizer step to
        what follows it: a call of the function is one training step, not a phase
        (`forward_backward(batch)`, stepped by its caller). Its body back-propagates,
        never steps, and calls nothing of the project but models' forwards and
        functions of the file that only compute or log (`accum_log(logs, {...})`).
        Also a loop that runs only now and then and does not train (a sample from the
        models every 100 steps): the call is still one step."""
        backward = False
        for node in iter_nodes(loop.body):  # type: ignore[attr-defined]
            if type(node) is not cst.Call:
                continue
            effect = effect_of(self.ctx, node)
            if effect == BACKWARD:
                backward = True
            elif effect is not None:
                return False
            else:
                target = self.targets.target(node)
                if (target is not None and self.targets.may_run_code(target)
                        and not target.endswith((".forward", ".__call__")) and not self._only_computes(node)):
                    return False
        return backward or self._periodic(loop)

    def _only_computes(self, call: cst.Call) -> bool:
        """A call of a function of this file, or a method of its class (`self.accum_log(...)`),
        that only computes or logs (see `_computes_only`)."""
        local = self.ctx.local_function(call.func) if type(call.func) is cst.Name else self.ctx.local_callee(call)
        return local is not None and local is not self.func and self._computes_only(local.body, 1)

    def _periodic(self, loop: cst.CSTNode) -> bool:
        """`loop` runs under a period of the function's own (`if step % 100 == 0:`)."""
        for ancestor in self.ctx.ancestors(loop):
            if ancestor is self.func:
                return False
            if type(ancestor) is cst.If and tests_a_remainder(ancestor.test):
                return True
        return False

    def _computing_loop(self, loop: cst.CSTNode) -> bool:
        """A loop that only computes with tensors (log-probabilities a chunk at a
        time, a gradient norm under `torch.no_grad()`): every call in it is a builtin, a
        function of torch or math, a tensor's or a container's own method, or a
        function of this file that only makes such calls (`convert(value, device)`
        moving a batch), and it yields nothing. It makes no phase of a helper called
        once per step (`chunked_logprobs(logits)` in a step method). A call of anything
        else (a model, a function of another module, a name not known) may train, and
        keeps the loop a phase."""
        return self._computes_only(loop, 0)

    def _computes_only(self, code: cst.CSTNode, depth: int) -> bool:
        for node in iter_nodes(code):
            if type(node) in (cst.Yield, cst.Await):
                return False
            if type(node) is not cst.Call:
                continue
            if effect_of(self.ctx, node) is not None:  # type: ignore[arg-type]
                return False
            func = node.func  # type: ignore[attr-defined]
            if type(func) is cst.Name:
                if not self._bookkeeping_call(node) and not _computes(self.ctx.qualified_name(func)):  # type: ignore[arg-type]
                    local = self.ctx.local_function(func) if depth < 2 else None
                    if local is None or local is self.func or not self._computes_only(local.body, depth + 1):
                        return False
            elif type(func) is cst.Attribute:
                name = self.ctx.qualified_name(func)
                if name is not None:
                    if not _computes(name):
                        return False
                elif func.attr.value not in _TENSOR_METHODS and func.attr.value not in _CONTAINER_METHODS:
                    return False
            else:
                return False
        return True

    def _bookkeeping_loop(self, loop: cst.CSTNode) -> bool:
        """A loop that no one would call a phase: one over the model's own weights (an
        EMA's update, a hand-written clip), or one that only prints, logs or counts (a
        progress bar drawn one character at a time, `for k, v in stats.items(): print(k, v)`,
        a meter's `for k, v in kwargs.items(): self.sums[k] = self.sums.get(k, 0) + v`):
        every call of its body is of the standard library's output, clock or arithmetic,
        or a container's own method, and it yields nothing. It makes no phase of a helper called
        once per step."""
        iterable = loop.iter if type(loop) is cst.For else None  # type: ignore[attr-defined]
        if iterable is not None and self._walks_weights(iterable):
            return True
        body = list(iter_nodes(loop.body))  # type: ignore[attr-defined]
        calls = [node for node in body if type(node) is cst.Call]
        heads = [node for node in iter_nodes(iterable) if type(node) is cst.Call] if iterable is not None else []
        return (not any(type(node) in (cst.Yield, cst.Await) for node in body)
                and all(self._bookkeeping_call(call) or method_call(call, *_CONTAINER_METHODS, *_LOGGED_READS) is not None
                        for call in calls)  # type: ignore[arg-type]
                and all(self._bookkeeping_call(call) or method_call(call, *_DICT_VIEWS) is not None
                        for call in heads))  # type: ignore[arg-type]

    def _walks_weights(self, iterable: cst.BaseExpression) -> bool:
        """`_walks_weights`, also through a name that holds the walk
        (`model_params = dict(model.named_parameters())`, then `model_params.items()`)."""
        if _walks_weights(iterable):
            return True
        for node in iter_nodes(iterable):
            if type(node) is cst.Name:
                value = value_of_name(self.ctx, node)
                if value is not None and _walks_weights(value):
                    return True
        return False

    def _bookkeeping_call(self, call: cst.Call) -> bool:
        if type(call.func) is cst.Name and call.func.value in _BUILTINS:
            return self.ctx.qualified_name(call.func) is None and self.ctx.local_callee(call) is None
        return (self.ctx.qualified_name(call.func) or "").startswith(_BOOKKEEPING) or _logs(call)

    def _named_tuple_items(self, value: cst.BaseExpression) -> BuiltNamedTuple | None:
        """The fields, and the items by position, of a named tuple of this file that `value` builds
        (`Stats(loss, kl)`, `Stats(loss=loss)`); None for anything else, or a call that unpacks
        its arguments."""
        value = self.ctx.receivers.built_once(value, self.func)
        if type(value) is not cst.Call or any(arg.star for arg in value.args):
            return None
        fields = self.ctx.receivers.named_tuple_fields(value)
        if fields is None:
            return None
        items: dict[int, cst.BaseExpression] = {}
        for index, arg in enumerate(value.args):
            if arg.keyword is None:
                items[index] = arg.value
            elif arg.keyword.value in fields:
                items[fields.index(arg.keyword.value)] = arg.value
        return fields, items

    def _fielded_returns(self, returned: list[cst.BaseExpression]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """`Summary.returns_fielded`: the calls of another module's class its returns give
        whole (`return PPOStats(loss, kl)`), with the arguments that hold a tensor it
        back-propagated ("#0" by position, "loss" by keyword)."""
        backpropagated = backpropagated_names(self.ctx, self.func.body)
        found: dict[tuple[str, tuple[str, ...]], None] = {}
        for value in (self.ctx.receivers.built_once(found, self.func) for found in returned):
            if type(value) is not cst.Call or any(arg.star for arg in value.args):
                continue
            target = self.targets.target(value)
            if target is None or self.ctx.local_callee(value) is not None or target in self.targets.keys.values():
                continue
            items = tuple(f"#{index}" if arg.keyword is None else arg.keyword.value
                          for index, arg in enumerate(value.args) if dotted_name(arg.value) in backpropagated)
            if items:
                found[(target, items)] = None
        return tuple(found)

    def _graph_items(self, returned: list[cst.BaseExpression]) -> tuple[str, ...]:
        """The items of the tuples and dicts written out in its returns that hold a tensor it
        back-propagated: "#0" for a tuple's first, "loss" for a dict's `"loss"`."""
        backpropagated = backpropagated_names(self.ctx, self.func.body)
        found: dict[str, None] = {}
        for value in returned:
            if type(value) is cst.Tuple:
                if any(type(element) is cst.StarredElement for element in value.elements):
                    continue
                for index, element in enumerate(value.elements):
                    if dotted_name(element.value) in backpropagated:
                        found[f"#{index}"] = None
            elif type(value) is cst.Dict:
                for element in value.elements:
                    key = string_value(element.key) if type(element) is cst.DictElement else None
                    if key is not None and dotted_name(element.value) in backpropagated:  # type: ignore[union-attr]
                        found[key] = None
        return tuple(found)

    def _float16_paths(self) -> tuple[Needs, ...]:
        """What the function's flags must hold for a `return` to give a value computed
        under float16 autocast, one `Needs` for each way (see `Summary.float16_when`; an
        empty one: on every call): a `return` under such a block (not one that also turns
        grad off: an evaluation), or of a name assigned there (a returned tuple's items
        count so only, as the caller's unpacking is not followed), or of one value computed
        from a name assigned there where the gradient flows back through it
        (`mse_loss(pred.float(), y)`, not `pred.detach()` nor `pred.argmax(-1) == y`); in
        a function that names no scaler (one that scales and back-propagates itself
        returns a loss it used)."""
        if "autocast" not in self.ctx.source:
            return ()
        blocks = {node: found[1] for node in only(self.ctx.own_nodes(self.func.body), cst.With)
                  if (found := with_precision(self.ctx, node)) is not None and found[0] == FLOAT16}  # type: ignore[arg-type]
        if not blocks:
            return ()
        inside = {id(n) for block in blocks for n in iter_nodes(block.body)}  # type: ignore[attr-defined]
        half, assigned = self._float16_names(blocks, inside)
        found: dict[Needs, None] = {}
        for node in only(self.nodes, cst.Return):
            value = node.value  # type: ignore[attr-defined]
            if value is None or grad_mode_at(self.ctx, node) == "off":
                continue  # an evaluation's value: no backward goes through it
            if id(node) in inside:
                found[self._float16_needs(node, blocks) or ()] = None
            items = list(_returned_items(value))
            for item in items:
                if type(item) is cst.Name and item.value in assigned:
                    found.update(dict.fromkeys(assigned[item.value]))
            # one value is followed through what it computes; a tuple's items are not, as
            # the caller's unpacking is not (`return loss, acc` back-propagates `loss`)
            for name in _graph_reads(value) & half.keys() if items == [value] else ():
                found.update(dict.fromkeys(half[name]))
        if found and any(type(n) is cst.Name and any(w in n.value.lower() for w in ("scaler", "scale_loss"))
                         for n in iter_nodes(self.func.body)):
            return ()
        return tuple(found)

    def _float16_names(self, blocks: Mapping[cst.With, cst.Call], inside: set[int]
                       ) -> tuple[dict[str, set[Needs]], dict[str, set[Needs]]]:
        """The names holding a value computed under float16 `blocks` of autocast (the
        nodes `inside` them), with the flag paths they do on (see `_float16_paths`): those
        assigned there, or from such a name where the gradient flows back through it
        (`pred = pred * mask`, `loss = mse_loss(pred.float(), y)`); and those assigned
        there. A name assigned anything else on a path that may take the same flags holds
        no such value (`if amp: with autocast(): pred = ...` / `else: pred = unet(x)` leaves
        it on the path `amp` true). A name assigned where something else is tested
        (`if amp is False: return ...` above) is not followed further, and counts, on every
        call, only where the function assigns it nowhere else."""
        assignments = only(self.nodes, cst.Assign)
        half: dict[str, set[Needs]] = {}
        untold: set[str] = set()
        for node in assignments:
            if id(node) in inside and grad_mode_at(self.ctx, node) != "off":
                needs = self._float16_needs(node, blocks)
                for name in _bound_by(node):
                    if needs is None:
                        untold.add(name)
                    else:
                        half.setdefault(name, set()).add(needs)
        seeds = set(half)
        outside = {node: _graph_reads(node.value) for node in assignments if id(node) not in inside}  # type: ignore[attr-defined]
        _carry(half, outside)
        for node in [node for node, reads in outside.items() if not reads & half.keys()]:
            needs = runs_when(self.ctx, node, self._function_flags())
            for name in _bound_by(node) & half.keys():
                half[name] = {paths for paths in half[name] if needs is not None and _excludes(needs, paths)}
        half = {name: paths for name, paths in half.items() if paths}
        assigned = {name: half[name] for name in seeds & half.keys()}
        elsewhere = set().union(*map(_bound_by, outside))
        for name in untold - elsewhere:
            assigned.setdefault(name, set()).add(())
        return half, assigned

    def _float16_needs(self, node: cst.CSTNode, blocks: Mapping[cst.With, cst.Call]) -> Needs | None:
        """What the flags must hold for `node`, in float16 `blocks` of autocast, to run: no
        more than a call's constants may tell; the `if`s around it and the `enabled=` of
        the blocks (`enabled=amp` as `if amp:`); None where something else is tested."""
        flags = self._function_flags()
        needs = runs_when(self.ctx, node, flags)
        for block in self.ctx.ancestors(node):
            call = blocks.get(block) if type(block) is cst.With else None  # type: ignore[call-overload]
            enabled = autocast_enabled(self.ctx, call) if call is not None and needs is not None else None
            if enabled is None or literal_bool(enabled) is True:
                continue
            test = flag_test(enabled, frozenset(flags))
            needs = None if test is None else tuple(sorted({*needs, (test[0], test[1], flags[test[0]])}))  # type: ignore[misc]
        return needs

    def _function_flags(self) -> dict[str, str]:
        """See `function_flags`: computed once, when first asked."""
        if self._flags is None:
            self._flags = function_flags(self.ctx, self.func, self.params)
        return self._flags

    def _returns_enabled_scaler(self) -> bool:
        """Every `return` of the function returns a GradScaler switched on (see
        `_enabled_scaler`): not `None` on some path (`if args.fp16: return GradScaler()`)."""
        if "Scaler" not in self.ctx.source:
            return False
        last = self.func.body.body[-1] if isinstance(self.func.body, cst.IndentedBlock) else self.func.body
        if not (type(last) in (cst.SimpleStatementLine, cst.SimpleStatementSuite) and type(last.body[-1]) is cst.Return):  # type: ignore[attr-defined]
            return False  # it may end without a return: `None`
        values = [node.value for node in only(self.nodes, cst.Return)]  # type: ignore[attr-defined]
        return bool(values) and all(value is not None and self._enabled_scaler(value) for value in values)

    def _enabled_scaler(self, value: cst.BaseExpression) -> bool:
        """`value` is a GradScaler built here switched on (`GradScaler()`, or a name
        assigned one once), in a module that autocasts to no float16 nor to a dtype it
        cannot tell: one the scaler may serve."""
        if "Scaler" not in self.ctx.source:
            return False
        if type(value) is cst.Name:
            value = value_of_name(self.ctx, value)  # type: ignore[assignment]
        if not (type(value) is cst.Call and constructor_kind(self.ctx.call_name(value)) == GRAD_SCALER
                and grad_scaler_enabled(value) is True):
            return False
        return not {autocast_precision(self.ctx, call) for call in autocast_calls(self.ctx)} & {FLOAT16, UNKNOWN}

    def _returns_backpropagated(self, returned: list[cst.BaseExpression]) -> bool:
        backpropagated = backpropagated_names(self.ctx, self.func.body)
        return any(dotted_name(r) in backpropagated for r in returned)

    def _may_update_scaler(self, call: cst.Call) -> bool:
        """`update()` on a GradScaler, or on what is named for one (`self.scaler.update()`);
        or a GradScaler handed to a call that runs no function of this file (`hook.after_step(scaler)`,
        another module's `end_step(scaler)`): code this summary does not follow, which may update it."""
        receivers = self.ctx.receivers
        updated = method_call(call, "update")
        if updated is not None:
            return receivers.is_kind(updated, GRAD_SCALER) or named_scaler(updated)
        if not handed_arguments(self.ctx, call) or self.targets.target(call) is not None:
            # a scaler's own method (`scaler.step(opt)`), or a function of the project, followed
            # through its summary (see `_hands_scaler`)
            return False
        return self._hands_scaler(call)

    def _named_scaler_step(self, call: cst.Call) -> bool:
        """`scaler.step(optimizer)` (one argument, by position) on a parameter or an
        attribute of the instance named for a GradScaler."""
        scaler = method_call(call, "step")
        if scaler is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return False
        return named_scaler(scaler) and (self._param(scaler) or self._own_attribute(scaler)) is not None

    def _hands_scaler(self, call: cst.Call) -> bool:
        return self._handed_scaler(call) is not None

    def _handed_scaler(self, call: cst.Call) -> cst.BaseExpression | None:
        """The first GradScaler `call` is handed, or what is named for one (`scaler`)."""
        receivers = self.ctx.receivers
        return next((arg.value for arg in call.args
                     if receivers.is_kind(arg.value, GRAD_SCALER) or named_scaler(arg.value)), None)

    def _events(self, call: cst.Call, sets: dict[str, set[str]]) -> Iterator[Event]:
        effect = effect_of(self.ctx, call)
        if effect == ZERO_GRAD and self._occasional(call):
            yield MAY_ZERO_GRAD  # a clear on some calls only: an overflow branch that returns
        elif effect is not None and not (effect == EMPTY_CACHE and self._occasional(call)) and not (
                effect == SCHEDULER_STEP and skipped_at_first(self.ctx, call)):  # `if current_iter > 1:`
            yield effect
        elif effect is None and self.targets.target(call) is None and clearing_name(call):
            yield MAY_ZERO_GRAD  # out of reach (a function of the project is followed instead)
        if effect is None and self._named_scaler_step(call):
            # `scaler.step(optimizer)` of a scaler handed in (`def amp_step(scaler, opt)`): this
            # module cannot tell it is a GradScaler, its name says so (as for `scaler.update()`)
            yield STEP
            yield SCALER_STEP
            self.unjudged_steps = True
            optimizer = call.args[0].value
            owner = self._param(optimizer) or self._own_attribute(optimizer)
            if owner is not None:
                sets["steps"].add(owner)
        if self._may_update_scaler(call):
            yield SCALER_UPDATE
        if effect == STEP:
            if self.ctx.receivers.is_kind(method_call(call, "step"), GRAD_SCALER):  # type: ignore[arg-type]
                yield SCALER_STEP
            self._stepped(call, sets["steps"], sets["known_steps"])
        elif effect in (None, SCHEDULER_STEP) and not call.args and method_call(call, "step") is not None:
            stepped = self._param(method_call(call, "step"))  # type: ignore[arg-type]
            # `if start > 0:` of a parameter: the caller knows whether it changes, and whether it passes
            bound = caller_bound(self.ctx, call) if stepped is not None else None
            if stepped is not None and bound is None and not skipped_at_first(self.ctx, call):
                sets["plain_steps"].add(stepped)  # `if epoch > 0: scheduler.step()`
            elif stepped is not None and bound is not None and bound in self.params:
                self.guarded_steps[(stepped, bound)] = None
                self.step_tests.update(dict.fromkeys(
                    (stepped, bound, operator, limit) for operator, limit in guard_tests(self.ctx, call, bound)))
                if passes_by_default(self.ctx, call, bound):  # `epoch=1`: a call that leaves it out
                    self.default_steps[(stepped, bound)] = None
        elif effect == UNSCALE:
            scaler = method_call(call, "unscale_")
            unscaled = self._param(scaler)  # type: ignore[arg-type]
            if unscaled is not None and not self._occasional(call):
                sets["unscales"].add(unscaled)  # `def unscale_and_clip(scaler, opt, model)`
            elif self._own_scaler(scaler) and self._on_every_call(call) and not self._exits_before(call):  # type: ignore[arg-type]
                sets["unscales"].add(self._own_attribute(scaler))  # type: ignore[arg-type]  # timm's `NativeScaler.__call__`
            elif self._own_scaler(scaler) and not self._exits_before(call):  # type: ignore[arg-type]
                given = self._given_alone(call)
                if given is not None:
                    self.unscales_given.add(given)  # `if clip_grad is not None: self._scaler.unscale_(opt)`
        elif effect == BACKWARD:
            scaler = scaled_backward_scaler(call)
            owner = (self._param(scaler) or self._own_attribute(scaler)) if scaler is not None else None
            if owner is not None:
                # `backward(scaler, loss)` of a helper, a trainer's `self.scaler.scale(loss).backward()`
                sets["scales_backward"].add(owner)
        mode = mode_switch(self.ctx, call)
        if mode is not None:
            # `train(flag)` restores a mode saved before (`model.train(was_training)`)
            yield EVAL if mode[1] is False else TRAIN
            # a parameter, or `self.model` of a method: a caller's `self.evaluate()` does it to its own;
            # `self` of a module's method (`self.eval()`): the caller's object itself
            evaluated = (self._param(mode[0]) or self._own_attribute(mode[0]) or self._own_object(mode[0])
                         if mode[1] is False else None)
            if evaluated is not None and not replaced_parameter(self.ctx, mode[0]):  # not a deep copy of it
                sets["eval_mode"].add(evaluated)
        converted = half_conversion(self.ctx, call)
        if converted is not None:
            self.converted.add(dotted_name(converted) or "")
            if self._param(converted) is not None:
                sets["half"].add(self._param(converted))  # type: ignore[arg-type]
        receiver = method_call(call, "set_epoch")
        if receiver is not None:
            root = self._param_path(receiver)
            if root is not None:
                sets["set_epoch"].add(root)
        stored = stored_elements(call)  # `history.append(value)`, `history.insert(0, value)`
        if stored is not None:
            for element in stored[1]:
                self._accumulation(stored[0], element, sets["accumulates"])
        elif (receiver := method_call(call, "extend")) is not None and len(call.args) == 1:
            self._accumulation(receiver, call.args[0].value, sets["accumulates"])  # `history.extend(values)`
        target = self.targets.target(call)
        if target is not None:
            # a function of another module handed the scaler: updates it if its summary does
            hands_scaler = (not self.targets.runs_own_function(call) and bool(handed_arguments(self.ctx, call))
                            and self._hands_scaler(call))
            arguments = self._arguments(call)
            yield Call(target, arguments, returned=self._is_returned(call), occasional=self._occasional(call),
                       hands_returned=self._returned_arguments(call), hands_scaler=hands_scaler,
                       constants=self._constants(call, arguments), when_training=self._when_training(call),
                       gate=self._gate(call), imported=self.targets.imported_function(call) is not None)

    def _gate(self, call: cst.Call) -> tuple[Needs, Given] | None:
        """`Call.gate`: what the function's flags must hold for `call` to run, and what it gives."""
        needs = runs_when(self.ctx, call, self._function_flags())
        return None if needs is None else (needs, given_slots(call, self._function_flags()))

    def _constants(self, call: cst.Call, arguments: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        """What a call that hands a parameter gives its other slots (see `Call.constants`)."""
        if not arguments:
            return ()
        handed = {slot for slot, _ in arguments}
        found = [(slot, constant_text(arg.value) or "") for slot, arg in argument_slots(call) if slot not in handed]
        return (*found, ("*", "")) if any(arg.star for arg in call.args) else tuple(found)

    def _defaults(self, events: list[Event]) -> tuple[tuple[str, str], ...]:
        """The defaults of the params the function hands on to calls (see `Summary.defaults`)."""
        handed = {param for event in events if isinstance(event, Call) for _, param in event.args}
        if not handed:
            return ()
        rebound = assigned_names(self.ctx, self.func.body)
        found = []
        for param in sorted(handed - rebound):
            default = parameter_default(self.func, param) if "*" not in rebound else None
            if default is not None:
                found.append((param, constant_text(default) or ""))
        return tuple(found)

    def _arguments(self, call: cst.Call) -> tuple[tuple[str, str], ...]:
        passed = ((slot, self._param(arg.value)) for slot, arg in argument_slots(call))
        return tuple((slot, param) for slot, param in passed if param is not None)

    def _returned_arguments(self, call: cst.Call) -> tuple[str, ...]:
        """Slots of `call` given a local name the function returns, alone or in a tuple,
        and binds nowhere after the call (`self.optimize(loss)`, then `return loss`)."""
        if self._returned is None:
            # each returned name, with where the function last binds it
            returned = {item.value for node in only(self.nodes, cst.Return) if node.value is not None  # type: ignore[attr-defined]
                        for item in _returned_items(node.value) if type(item) is cst.Name}  # type: ignore[attr-defined]
            self._returned = dict.fromkeys(returned, -1)
            for node in only(self.nodes, cst.Assign, cst.AugAssign) if returned else ():
                for name in _bound_by(node) & returned:
                    self._returned[name] = max(self._returned[name], self.ctx.order_index(node))
        if not self._returned:
            return ()
        at = self.ctx.order_index(call)
        return tuple(slot for slot, arg in argument_slots(call)
                     if type(arg.value) is cst.Name and self._returned.get(arg.value.value, at) < at)

    def _stepped(self, call: cst.Call, steps: set[str], known_steps: set[str]) -> None:
        """Add the parameter (or `self.` attribute) `call` steps as an optimizer: the
        caller, which may know it is one, judges the loop that calls this function.
        Not when this function's own loop steps an optimizer it knows: the rule
        judges that loop where it is."""
        known = optimizer_step(self.ctx, call)
        self.unjudged_steps = self.unjudged_steps or known is None
        if known is not None and loops_within(self.ctx, call, self.func):
            return
        stepped = known if known is not None else method_call(call, "step")
        owner = self._param(stepped) or self._own_attribute(stepped) if stepped is not None else None
        if owner is not None:
            steps.add(owner)
            if known is not None:
                known_steps.add(owner)

    def _when_training(self, node: cst.CSTNode) -> bool:
        """`node` lies in the body of `if self.training:` (or of an `and` chain holding it) of
        this method: it runs only while the instance is in train mode."""
        receiver = receiver_name(self.ctx, self.func)
        if receiver is None:
            return False
        child = node
        for ancestor in self.ctx.ancestors(node):
            if ancestor is self.func:
                return False
            if type(ancestor) is cst.If and child is ancestor.body and _tests_training(ancestor.test, receiver):
                return True
            child = ancestor
        return False

    def _occasional(self, call: cst.CSTNode) -> bool:
        """Whether `call` (or a statement) may run on only some calls of the
        function: in an exception handler, or under a condition the author wrote
        (a period, a flag, a memory threshold), as the rule judges one written in
        the loop. A device check holds on every call of a GPU run, and so does the
        condition the function's own training step runs under (the block that
        back-propagates or steps), and a test of the gradient itself (`if p.grad
        is not None:` picks no part of the parameters)."""
        child: cst.CSTNode = call
        for ancestor in self.ctx.ancestors(call):
            if ancestor is self.func:
                return False
            if type(ancestor) in (cst.ExceptHandler, cst.ExceptStarHandler):
                return True
            if (type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test
                    and not is_device_check(self.ctx, ancestor.test) and not _tests_a_gradient(ancestor.test)
                    and not (type(ancestor) is cst.If and child is ancestor.body and _trains(self.ctx, ancestor.body))):
                return True
            child = ancestor
        return False

    # -- parameters -------------------------------------------------------------
    def _param(self, expr: cst.BaseExpression) -> str | None:
        """The parameter `expr` is (or was taken from: `v` of `for k, v in losses.items()`)."""
        if type(expr) is cst.Name:
            if expr.value in self.params:
                return expr.value
            return self.derived.get(expr.value)
        return None

    def _own_attribute(self, expr: cst.BaseExpression) -> str | None:
        """`self.model` for an attribute of the instance a method runs on, as summaries
        name it whatever the method calls its instance (`trainer.model` of `def fit(trainer)`)."""
        head = head_name(expr)
        if type(expr) is not cst.Attribute or head is None or self._own_object(head) is None:
            return None
        dotted = dotted_name(expr)
        return as_receiver_path(dotted, head.value) if dotted is not None else None

    def _own_object(self, expr: cst.BaseExpression) -> str | None:
        """`self` for the instance the method runs on (its first parameter, whatever its name)."""
        if type(expr) is cst.Name and receiver_method(self.ctx, expr) is self.func:
            return "self"
        return None

    def _param_path(self, expr: cst.BaseExpression) -> str | None:
        """`p` for `p`, `p.sampler`, `p.batch_sampler.sampler` (set_epoch receivers)."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if ("." + rest if rest else "") in _SET_EPOCH_PATHS and head in self.params:
            return head
        return None

    def _derived_from_params(self) -> dict[str, str]:
        """Loop variables over a parameter's items (`for k, v in losses.items()`)."""
        derived: dict[str, str] = {}
        for node in only(self.nodes, cst.For):
            assert type(node) is cst.For
            source = node.iter
            if type(source) is cst.Call and method_call(source, "items", "values") is not None:
                source = source.func.value  # type: ignore[attr-defined]
            if type(source) is cst.Name and source.value in self.params:
                for name in target_names(node.target):
                    derived.setdefault(name, source.value)
        return derived

    def _detached_params(self) -> set[str]:
        """Parameters the function rebinds to a value without a graph
        (`v = v.data.sum()`, `loss = loss.item()`): what it stores is no longer
        the tensor it was given."""
        detached: set[str] = set()
        for node in only(self.nodes, cst.Assign):
            assert type(node) is cst.Assign
            if detaches(node.value):
                detached.update(name for t in node.targets for name in target_names(t.target) if name in self.params)
        return detached

    def _accumulation(self, store: cst.BaseExpression, added: cst.BaseExpression, found: set[str]) -> None:
        """`store += param`, `store.append(param * n)` where `store` outlives the
        call: an attribute of `self` or a parameter, or a module global."""
        root = store
        while type(root) in (cst.Attribute, cst.Subscript, cst.Call):
            root = root.func if type(root) is cst.Call else root.value
        if type(root) is not cst.Name or not self._outlives_call(root):
            return
        for operand in _operands(added):
            param = self._param(operand)
            if param is not None and param not in self.detached:
                found.add(param)

    def accumulations(self) -> Iterator[tuple[cst.CSTNode, set[str]]]:
        """Each `+=` and each call that stores params where they outlive the call (see
        `Summary.accumulates`), with those params."""
        for node in only(self.nodes, cst.AugAssign):
            found: set[str] = set()
            if type(node.operator) is cst.AddAssign:  # type: ignore[attr-defined]
                self._accumulation(node.target, node.value, found)  # type: ignore[attr-defined]
            if found:
                yield node, found
        for call in self.ctx.calls_in_order(self.func.body):
            found = set()
            stored = stored_elements(call)
            for element in stored[1] if stored is not None else ():
                self._accumulation(stored[0], element, found)  # type: ignore[index]
            if stored is None and (receiver := method_call(call, "extend")) is not None and len(call.args) == 1:
                self._accumulation(receiver, call.args[0].value, found)
            if found:
                yield call, found

    def _outlives_call(self, root: cst.Name) -> bool:
        if receiver_method(self.ctx, root) is not None or root.value in self.params:
            return True
        return global_value(self.ctx, root) is not None

    # -- returns -------------------------------------------------------------------
    def _is_returned(self, call: cst.Call) -> bool:
        return isinstance(self.ctx.parent(call), cst.Return)

    def _converted(self, expr: cst.BaseExpression) -> bool:
        """`return model.half()`, or `model.half()` then `return model`."""
        return half_conversion(self.ctx, expr) is not None or dotted_name(expr) in self.converted

    def _unpinned_loader(self, expr: cst.BaseExpression) -> bool:
        """A DataLoader built without `pin_memory=True`: the call itself, or the one value a
        variable of the function is assigned (not a parameter: another module's call may
        hand it a pinned one) that no write pins afterwards (`loader.pin_memory = True`). Not
        in a function whose decorator may change what a call returns (`@pinned`; a cache,
        `@functools.lru_cache`, returns what the function does)."""
        if "DataLoader" not in self.ctx.source or not returns_own_value(self.ctx, self.func):
            return False
        built = single_assignment(self.ctx, expr) if type(expr) is cst.Name else expr
        return (type(built) is cst.Call and self.ctx.call_name(built) == DATALOADER_CLASS
                and unpinned_loader(built) and not (type(expr) is cst.Name and self._pinned(expr)))

    def _pinned(self, name: cst.Name) -> bool:
        """The file may turn pinning on for the loader the variable `name` reads holds."""
        receivers = self.ctx.receivers
        held = receivers.binding(name)
        return any(receivers.binding(owner) == held for _, owner in self.ctx.shared(pinning_writes))

    def _unpinned_loader_items(self, whole: list[cst.BaseExpression], tuples: list[cst.Tuple],
                               containers: list[cst.BaseExpression]) -> list[str]:
        """The positions of the returned tuples that hold a DataLoader built without
        `pin_memory=True`, when every `return` is a tuple (none starred) and all agree."""
        if whole or containers or not tuples or "DataLoader" not in self.ctx.source:
            return []
        if any(type(element) is not cst.Element for t in tuples for element in t.elements):
            return []
        layouts = {tuple(i for i, element in enumerate(t.elements) if self._unpinned_loader(element.value))
                   for t in tuples}
        return [f"#{i}" for i in layouts.pop()] if len(layouts) == 1 else []

    def _distributed_loader(self, expr: cst.BaseExpression, _inside: frozenset[cst.Call] = frozenset()) -> bool:
        """A DataLoader on a `DistributedSampler` that shuffles whoever calls the
        function (`shuffle` left to its default, or `True`), or an iterable class of
        this file wrapping one that never calls `set_epoch` (a prefetcher: iterating
        it iterates the loader, and the epoch is still the caller's to set)."""
        for call in self._built(expr):
            if call not in _inside and self._epochless_wrapper(call, _inside | {call}):
                return True
            if self.ctx.receivers.kind(call) != DATALOADER:
                continue
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in ("sampler", "batch_sampler"):
                    samplers = self._built(batched(arg.value) if arg.keyword.value == "batch_sampler" else arg.value)
                    if samplers and all(self.ctx.receivers.kind(s) == SAMPLER and _always_shuffles(s)
                                        for s in samplers):
                        return True
        return False

    def _epochless_wrapper(self, call: cst.Call, inside: frozenset[cst.Call]) -> bool:
        init = self.ctx.local_callee(call)
        if init is None or init.name.value != "__init__":
            return False
        owner = self.ctx.parent(self.ctx.parent(init))
        if type(owner) is not cst.ClassDef or "set_epoch" in self.ctx.code(owner):
            return False
        methods = {statement.name.value for statement in owner.body.body if type(statement) is cst.FunctionDef}
        return "__iter__" in methods and any(
            self._distributed_loader(arg.value, inside) for arg in call.args if not arg.star)

    def _distributed_loader_items(self, tuples: list[cst.Tuple]) -> tuple[int, ...]:
        """Positions of the returned tuples that hold such a loader, when every
        `return` of a tuple agrees on them (one builder, one layout)."""
        if not tuples or "DistributedSampler" not in self.ctx.source:
            return ()
        layouts = {tuple(i for i, element in enumerate(t.elements) if self._distributed_loader(element.value))
                   for t in tuples}
        return layouts.pop() if len(layouts) == 1 else ()

    def _distributed_loader_keys(self, containers: list[cst.BaseExpression], whole: list[cst.BaseExpression],
                                 tuples: list[cst.Tuple]) -> tuple[str, ...]:
        """The keys of the returned dict literal that hold such a loader
        (`return {"train": DataLoader(ds, sampler=DistributedSampler(ds)), ...}`), when
        every `return` of a value is such a dict, its keys written out, and all agree."""
        if whole or tuples or not containers or "DistributedSampler" not in self.ctx.source:
            return ()
        layouts: set[tuple[str, ...]] = set()
        for value in containers:
            if type(value) is not cst.Dict:
                return ()
            keys: list[str] = []
            for element in value.elements:
                key = string_value(element.key) if type(element) is cst.DictElement else None
                if key is None:
                    return ()
                if self._distributed_loader(element.value):
                    keys.append(key)
            layouts.add(tuple(keys))
        return layouts.pop() if len(layouts) == 1 else ()

    def _returned_sampler(self, whole: list[cst.BaseExpression]) -> tuple[str, ...]:
        """A `DistributedSampler` this function builds and returns, itself ("sampler"),
        under the key `sampler` of a dict of a DataLoader's keyword arguments
        ("kwargs": `kwargs["sampler"] = DistributedSampler(...)`, then `return kwargs`),
        or inside the DataLoader it returns ("loader": `return DataLoader(ds,
        sampler=DistributedSampler(ds, shuffle=mode == "train"))`),
        and when it shuffles (see `_shuffle_condition`); () when every return does not
        agree on one such sampler."""
        forms: set[tuple[str, ...]] = set()
        for value in whole:
            if type(value) is cst.Name and value.value == "None":
                continue
            samplers = [("sampler", call) for call in self._built(value) if self._distributed_sampler(call)]
            samplers += [("kwargs", call) for call in self._dict_samplers(value)]
            samplers += [("loader", call) for call in self._loader_samplers(value)]
            if not samplers:
                return ()
            forms.update((form, *self._shuffle_condition(call)) for form, call in samplers)
        return forms.pop() if len(forms) == 1 and all(len(form) > 1 for form in forms) else ()

    def _distributed_sampler(self, expr: cst.BaseExpression) -> bool:
        return type(expr) is cst.Call and self.ctx.call_name(expr) == DISTRIBUTED_SAMPLER

    def _loader_samplers(self, value: cst.BaseExpression) -> list[cst.Call]:
        """The samplers of the DataLoader `value` builds (itself, or what its variable
        is assigned): given as `sampler=`, or inside the batch sampler given as
        `batch_sampler=`, each written there or the variable that holds it."""
        found: list[cst.Call] = []
        for call in self._built(value):
            if self.ctx.receivers.kind(call) != DATALOADER:
                continue
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value in ("sampler", "batch_sampler"):
                    given = batched(arg.value) if arg.keyword.value == "batch_sampler" else arg.value
                    found.extend(s for s in self._built(given) if self._distributed_sampler(s))
        return found

    def _dict_samplers(self, value: cst.BaseExpression) -> list[cst.Call]:
        """The samplers the dict `value` holds under `sampler`, or inside the batch
        sampler it holds under `batch_sampler` (`BatchSampler(sampler, 32, False)`):
        written out in it (`{"sampler": ...}`, `dict(sampler=...)`), or, for a variable
        of this function, in what it is assigned and put in it by key
        (`kwargs["sampler"] = ...`); each itself or the variable that holds it."""
        found: list[cst.Call] = []
        for key in ("sampler", "batch_sampler"):
            for entry in self._dict_entries(value, key):
                inner = batched(entry) if key == "batch_sampler" else entry
                found.extend(call for call in self._built(inner) if self._distributed_sampler(call))
        return found

    def _dict_entries(self, value: cst.BaseExpression, key: str) -> list[cst.BaseExpression]:
        """What the dict `value` holds under `key` (see `_dict_samplers`)."""
        if type(value) is not cst.Name:
            entry = dict_entry(self.ctx, value, key)
            return [entry] if entry is not None else []
        receivers = self.ctx.receivers
        binding = receivers.binding(value)
        if binding is None or binding.owner is not self.func:
            return []
        found: list[cst.BaseExpression] = []
        for node in only(self.nodes, cst.Assign):
            for target in node.targets:  # type: ignore[attr-defined]
                part = target.target
                if type(part) is cst.Name and receivers.binding(part) == binding:
                    entry = dict_entry(self.ctx, node.value, key)  # type: ignore[attr-defined]
                elif (type(part) is cst.Subscript and type(part.value) is cst.Name
                      and receivers.binding(part.value) == binding and subscript_key(part) == key):
                    entry = node.value  # type: ignore[attr-defined]
                else:
                    continue
                if entry is not None:
                    found.append(entry)
        return found

    def _returned_result(self, whole: list[cst.BaseExpression]) -> tuple[str, ...]:
        """`Summary.returns_result_of`: every return (but `return None`) returns one call
        of a function of the project as it is (`return loader_kwargs(ds, "train")`), which
        unpacks no `*args` or `**kwargs`; not where a decorator may change what a call of
        this one returns (`@pinned`)."""
        values = [value for value in whole if not (type(value) is cst.Name and value.value == "None")]
        if len(values) != 1 or not returns_own_value(self.ctx, self.func):
            return ()
        call = values[0] if type(values[0]) is cst.Call else self._changed_result(values[0])
        if type(call) is not cst.Call:
            return ()
        target = self.targets.target(call)
        if target is None or any(arg.star for arg in call.args):
            return ()
        arguments: list[str] = [target]
        for slot, arg in argument_slots(call):
            given = constant_text(arg.value)
            if given is None and type(arg.value) is cst.Name and self._unchanged_param(arg.value):
                given = "@" + arg.value.value + "".join("=" + d for d in self._constant_default(arg.value.value))
            arguments += [slot, given if given is not None else "?"]
        return tuple(arguments)

    def _changed_result(self, value: cst.BaseExpression) -> cst.BaseExpression | None:
        """The call whose result the variable `value` of this function holds, when it is
        assigned that call once and only changed in other keys than the sampler's
        (`kwargs = loader_kwargs(ds, "train")`, `kwargs["shuffle"] = False`, then
        `return kwargs`)."""
        binding = self.ctx.receivers.binding(value) if type(value) is cst.Name else None
        if binding is None or binding.owner is not self.func or value.value in self.params:  # type: ignore[attr-defined]
            return None
        assigned = self.ctx.receivers.assigned(binding)
        if len(assigned) != 1 or type(assigned[0]) is not cst.Call:
            return None
        return assigned[0] if changed_only_elsewhere(self.ctx, value, ("sampler", "batch_sampler")) else None  # type: ignore[arg-type]

    def _shuffle_condition(self, sampler: cst.Call) -> tuple[str, ...]:
        """When `sampler` shuffles: ("always",) for `shuffle` left to its default or
        `True`; (param, "==" or "!=", text) for a comparison of a parameter of this
        function with a string (`shuffle=mode == "train"`), (param, "is", "True") for
        `shuffle=param`; () for anything else (never, or not known here)."""
        if any(arg.star for arg in sampler.args):
            return ()
        if _always_shuffles(sampler):
            return ("always",)
        value = sampler_shuffle(sampler)
        if type(value) is cst.Name:
            return (value.value, "is", "True", *self._constant_default(value.value)) if self._unchanged_param(value) else ()
        if type(value) is not cst.Comparison or len(value.comparisons) != 1:
            return ()
        target = value.comparisons[0]
        operator = {cst.Equal: "==", cst.NotEqual: "!="}.get(type(target.operator))
        left, right = value.left, target.comparator
        if string_value(left) is not None:
            left, right = right, left
        text = string_value(right)
        if operator is None or text is None or type(left) is not cst.Name or not self._unchanged_param(left):
            return ()
        return (left.value, operator, text, *self._constant_default(left.value))

    def _constant_default(self, param: str) -> tuple[str, ...]:
        """The default of this function's parameter `param`, when it is a constant."""
        default = constant_text(parameter_default(self.func, param))
        return (default,) if default is not None else ()

    def _flag_writes(self) -> frozenset[tuple[str, str]]:
        """`Summary.flag_writes` of its own writes: attributes of params it never rebinds."""
        found: set[tuple[str, str]] = set()
        for node in (*only(self.nodes, cst.Assign), *self.ctx.calls_in_order(self.func.body)):
            write = flag_write(self.ctx, node)
            if write is not None and type(write.owner) is cst.Name and self._unchanged_param(write.owner):
                found.add((f"{write.owner.value}.{write.attribute}", constant_text(write.value) or ""))
        return frozenset(found)

    def _unchanged_param(self, name: cst.Name) -> bool:
        """`name` reads a parameter of this function that nothing in it rebinds."""
        if name.value not in self.params:
            return False
        binding = self.ctx.receivers.binding(name)
        return (binding is not None and binding.owner is self.func
                and len(self.ctx.receivers.assigned(binding)) == 0)

    def _built(self, expr: cst.BaseExpression) -> list[cst.Call]:
        """The calls that make `expr`: itself, or what its variable is assigned."""
        if type(expr) is cst.Call:
            return [expr]
        receivers = self.ctx.receivers
        binding = receivers.binding(expr)
        return reaching(self.ctx, expr, receivers.constructions.get(binding, [])) if binding is not None else []


# what may run a statement on only some calls of the function, or not at all
_BRANCHING = (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.IfExp, cst.BooleanOperation, cst.Lambda,
              cst.FunctionDef, cst.ClassDef, cst.Match, cst.ListComp, cst.GeneratorExp)
# what a function that sets a grad mode of its own is written with
_GRAD_MODE_WORDS = ("no_grad", "inference_mode", "set_grad_enabled", "enable_grad")


def kept_parameters(ctx: FileContext, function: cst.FunctionDef, params: set[str]) -> list[cst.CSTNode]:
    """The statements and calls of `function` that store one of its `params` where it
    outlives the call (`self.history.append(loss)`)."""
    if not params:
        return []
    summarizer = _Summarizer(ctx, ctx.summaries.targets, function)
    return [node for node, found in summarizer.accumulations() if found & params]


def _assigned_attributes(ctx: FileContext) -> frozenset[str]:
    """The names of the attributes the file binds (`self.model = model`: `model`)."""
    return frozenset(part.attr.value for node in ctx.nodes_of(cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr)
                     for part in bound_parts(node) if type(part) is cst.Attribute)  # type: ignore[attr-defined]


def _handed(call: cst.Call) -> Iterator[tuple[str, cst.Name]]:
    """The plain names `call` hands its callee, each with its slot (`#0`, or the keyword);
    a positional one after `*args` has none that is known (`hook(*stats, loss)`)."""
    starred = False
    for index, arg in enumerate(call.args):
        starred = starred or arg.star == "*"
        if arg.star or type(arg.value) is not cst.Name or (starred and arg.keyword is None):
            continue
        yield (f"#{index}" if arg.keyword is None else arg.keyword.value), arg.value  # type: ignore[misc]


def _value_at(ctx: FileContext, loop: cst.CSTNode, name: str, node: cst.CSTNode, binding: bool = False) -> str:
    """`name` as the value it holds at `node` in the body of `loop` (with `binding`: the
    value the statement around `node` binds it to), told apart by how many times the
    body binds it before (`loss@2`): a loss rebound between its backward and a hook's
    call (`loss = loss.item()`), even on some iterations only, is not the one back-propagated."""
    positions, binders = ctx.shared(_LoopBindings).of(loop).get(name, ((), frozenset()))
    at = ctx.order_index(node)
    # the statement binding what `node` computes (`loss = self.step(loss)`) binds after it
    around = sum(1 for ancestor in ctx.ancestors(node) if ancestor in binders and ctx.order_index(ancestor) < at)
    return f"{name}@{bisect_left(positions, at) - around + binding}"


class _LoopBindings:
    """Where the body of each loop binds each name (order positions, sorted, and the
    binding nodes), indexed once per loop: a loop calling many hooks asks for each."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._loops: dict[cst.CSTNode, dict[str, tuple[list[int], frozenset[cst.CSTNode]]]] = {}

    def of(self, loop: cst.CSTNode) -> Mapping[str, tuple[list[int], frozenset[cst.CSTNode]]]:
        found = self._loops.get(loop)
        if found is None:
            nodes: dict[str, list[cst.CSTNode]] = {}
            for other in own_nodes(loop.body):  # type: ignore[attr-defined]
                for name in bound_names(other):
                    nodes.setdefault(name, []).append(other)
            found = self._loops[loop] = {
                name: (sorted(self.ctx.order_index(other) for other in binders), frozenset(binders))
                for name, binders in nodes.items()}
        return found


def _nesting(ctx: FileContext, call: cst.Call, loop: cst.CSTNode) -> bool | None:
    """Whether `call`, in the body of `loop`, runs in a loop nested in it (True) or in
    `loop` itself (False); None for a call of a function or lambda defined there, which
    runs only where it is called."""
    nested = False
    for ancestor in ctx.ancestors(call):
        if ancestor is loop:
            return nested
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
        nested = nested or type(ancestor) in (cst.For, cst.While)
    return None


def _bound_result(ctx: FileContext, call: cst.Call) -> str:
    """The name `name = call` binds what `call` returns to, else ""."""
    statement = ctx.parent(call)
    if type(statement) is cst.Assign and len(statement.targets) == 1 and type(statement.targets[0].target) is cst.Name:
        return statement.targets[0].target.value  # type: ignore[union-attr]
    return ""


def batched(value: cst.BaseExpression) -> cst.BaseExpression:
    """The sampler a batch sampler wraps (`BatchSampler(sampler, 32, drop_last=True)`,
    also as `sampler=`), or `value` itself."""
    if type(value) is not cst.Call:
        return value
    wrapped = [a.value for a in value.args[:1] if a.keyword is None and not a.star]
    wrapped += [a.value for a in value.args if a.keyword is not None and a.keyword.value == "sampler"]
    return wrapped[0] if wrapped else value


def _always_shuffles(sampler: cst.Call) -> bool:
    """`DistributedSampler(ds)` or `(..., shuffle=True)`: not up to a caller or a config."""
    if any(a.star for a in sampler.args):
        return False
    value = sampler_shuffle(sampler)
    return value is None or (type(value) is cst.Name and value.value == "True")


def _trains(ctx: FileContext, body: cst.CSTNode) -> bool:
    """`body` back-propagates or steps an optimizer itself (functions it calls aside)."""
    return any(
        type(node) is cst.Call and (is_backward(node) or optimizer_step(ctx, node) is not None  # type: ignore[arg-type]
                                    or _named_optimizer_step(node))  # type: ignore[arg-type]
        for node in own_nodes(body)
    )


def _tests_a_gradient(test: cst.BaseExpression) -> bool:
    """`p.grad is not None`: a condition on the gradient, not on when the code runs."""
    return any(type(node) is cst.Attribute and node.attr.value == "grad" for node in iter_nodes(test))


def _bound_by(node: cst.CSTNode) -> set[str]:
    """The names an assignment binds."""
    if type(node) is cst.Assign:
        return {name for target in node.targets for name in target_names(target.target)}
    return target_names(node.target)  # type: ignore[attr-defined]


def _operands(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if type(expr) is cst.BinaryOperation:
        yield from _operands(expr.left)
        yield from _operands(expr.right)
    else:
        yield expr


# a tensor's attributes (and `size()`) that carry no gradient
_METADATA = frozenset({"shape", "size", "dtype", "device", "ndim"})


# methods (and torch functions) whose result carries no gradient: indices, truth values,
# integers (`(logits.argmax(-1) == y).float().mean()` is an accuracy, not a loss)
_NO_GRADIENT = frozenset({"argmax", "argmin", "long", "int", "bool", "eq", "ne", "lt", "le", "gt", "ge",
                          "isnan", "isinf", "isfinite"})


def _graph_reads(expr: cst.CSTNode) -> set[str]:
    """The names `expr` reads where a gradient flows back to them: not under `.detach()`,
    `.item()`, `float(...)` (see `detaches`), a tensor's metadata (`.shape`, `.size()`), a
    comparison or a call giving indices or truth values (`.argmax()`, `.long()`), nor
    their attributes' names."""
    if isinstance(expr, cst.BaseExpression) and detaches(expr):
        return set()
    if type(expr) is cst.Comparison or (
            type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in _NO_GRADIENT):
        return set()
    if type(expr) is cst.Name:
        return {expr.value}
    if type(expr) is cst.Attribute:
        return set() if expr.attr.value in _METADATA else _graph_reads(expr.value)
    if type(expr) is cst.Arg:
        return _graph_reads(expr.value)
    return set().union(*(_graph_reads(child) for child in children(expr)))


def _carry(half: dict[str, set[Needs]], outside: Mapping[cst.CSTNode, set[str]]) -> None:
    """Carries the flag paths of the names of `half` to those the assignments `outside`
    bind from them (their reads, see `_graph_reads`), in any order: an assignment is
    taken again only when a name it reads gained a path, so the work grows with the
    assignments, not with their square."""
    readers: dict[str, list[cst.CSTNode]] = {}
    for node, reads in outside.items():
        for name in reads:
            readers.setdefault(name, []).append(node)
    work = deque(half)
    while work:
        name = work.popleft()
        for node in readers.get(name, ()):
            for bound in _bound_by(node):
                gained = half[name] - half.get(bound, set())
                if gained:
                    half.setdefault(bound, set()).update(gained)
                    work.append(bound)


def _excludes(needs: Needs, paths: Needs) -> bool:
    """Whether what `needs` asks of a flag is the opposite of what `paths` asks: no call
    runs both."""
    return any((param, not held) in {(p, h) for p, h, _ in paths} for param, held, _ in needs)


def _returned_items(value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if type(value) in (cst.Tuple, cst.List):
        for element in value.elements:
            yield element.value
    elif type(value) is cst.Dict:
        for element in value.elements:
            if type(element) is cst.DictElement:
                yield element.value
    else:
        yield value


# -- effects of one call ------------------------------------------------------------
def _logs(call: cst.Call) -> bool:
    """A log record written through a logger, whatever logger it is (`logger.info(...)` of
    `logging.getLogger(...)` or loguru, `self.logger.warning(...)`), or a value written
    to a summary writer (`writer.add_scalar(tag, value, step)`): told by the method
    and the name of what it is called on."""
    func = call.func
    if type(func) is not cst.Attribute:
        return False
    owner = (dotted_name(func.value) or "").rsplit(".", 1)[-1].lower().strip("_")
    logger = owner in ("log", "logging") or owner.endswith("logger")
    if func.attr.value in _LOG_METHODS:
        return logger
    return func.attr.value in _WRITER_METHODS and (logger or owner.endswith("writer"))  # `self.tblogger.add_scalar`


def _walks_weights(iterable: cst.BaseExpression) -> bool:
    """`model.parameters()`, `zip(ema.state_dict().values(), ...)`, `opt.param_groups`."""
    for node in iter_nodes(iterable):
        if type(node) is cst.Call and method_call(node, *_WEIGHT_WALKS) is not None:
            return True
        if type(node) is cst.Attribute and node.attr.value == "param_groups":
            return True
    return False


# modules whose calls only print, log, time or compute numbers: a loop of nothing else
# (see `_bookkeeping_loop`)
_BOOKKEEPING = ("builtins.", "sys.stdout.", "sys.stderr.", "time.", "math.", "logging.", "string.")
_DICT_VIEWS = ("items", "keys", "values")
# a logger's methods (logging's and loguru's), and a summary writer's that write a value
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "success",
                          "trace"})
_WRITER_METHODS = frozenset({"add_scalar", "add_scalars", "add_histogram", "add_text"})
# a tensor's methods that read its value for a log (`if isinstance(v, torch.Tensor): v = v.detach()`)
_LOGGED_READS = ("detach", "item", "cpu", "tolist", "numpy")
_WEIGHT_WALKS = ("parameters", "named_parameters", "buffers", "named_buffers", "state_dict")
_BUILTINS = frozenset({"print", "range", "len", "int", "float", "str", "round", "min", "max", "abs", "format",
                       "enumerate", "zip", "sum", "isinstance"})


def effect_of(ctx: FileContext, call: cst.Call) -> str | None:
    """The training effect a call has by itself (calls of functions aside)."""
    func = call.func
    called = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    if called not in _EFFECT_NAMES:
        if type(func) is not cst.Name:
            return None
        # torch's function under a name of the file's own (`from torch.nn.utils import
        # clip_grad_norm_ as clip`, `free = torch.cuda.empty_cache`)
        name = ctx.call_name(call)
        if name is None or not name.startswith("torch.") or name.rsplit(".", 1)[-1] not in _EFFECT_NAMES:
            return None
    if optimizer_step(ctx, call) is not None or _named_optimizer_step(call):
        return STEP
    if scheduler_step(ctx, call) is not None and not call.args:
        return SCHEDULER_STEP
    if is_backward(call) or ctx.call_name(call) == "torch.autograd.backward":
        return BACKWARD
    if (is_clip_call(ctx, call) or method_call(call, *_CLIP_METHODS) is not None) and not measures_only(ctx, call):
        return CLIP
    if method_call(call, "unscale_") is not None:
        return UNSCALE
    if clears_grads(ctx, call):
        return ZERO_GRAD
    if empties_cache(ctx, call):
        return EMPTY_CACHE
    return None


def _named_optimizer_step(call: cst.Call) -> bool:
    receiver = method_call(call, "step")
    if receiver is None or call.args:
        return False
    last = (dotted_name(receiver) or "").rsplit(".", 1)[-1].lower()
    return any(word in last for word in _OPTIMIZER_WORDS) or "opt" in last.split("_")


def empties_cache(ctx: FileContext, call: cst.Call) -> bool:
    """`torch.cuda.empty_cache()` in any spelling, the same call of another
    accelerator (`torch.xpu`, `torch.mps`), or through a module looked up at
    run time (`device_module = getattr(torch, device)`)."""
    name = ctx.call_name(call)
    if name is not None:
        return name.startswith("torch.") and name.endswith(".empty_cache")
    receiver = method_call(call, "empty_cache")
    if type(receiver) is cst.Call:
        return _torch_getattr(ctx, receiver)
    if type(receiver) is cst.Name:
        value = value_of_name(ctx, receiver)
        return value is not None and _torch_getattr(ctx, value)
    return False


def _torch_getattr(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    return (
        type(expr) is cst.Call
        and type(expr.func) is cst.Name
        and expr.func.value == "getattr"
        and bool(expr.args)
        and ctx.qualified_name(expr.args[0].value) == "torch"
    )


# -- the file's summaries ------------------------------------------------------------


class FileSummaries:
    """Closed summaries of the file's functions, given those of the other files
    of the project it calls (`ctx.external`, by the names this file uses)."""

    def __init__(self, ctx: FileContext) -> None:
        self.targets = CallTargets(ctx)
        self.external: Mapping[str, Summary] = ctx.external
        self.open = {self.targets.keys[f]: _Summarizer(ctx, self.targets, f).summary() for f in functions(ctx)}
        self.closed = close(self.open, self.external.get)
        self._alternatives: dict[cst.Call, tuple[str, ...]] | None = None
        self._holders: frozenset[str] | None = None  # see `_holders`

    def of_call(self, call: cst.Call) -> Summary | None:
        """What running `call` does, when it calls a function of the project."""
        target = self.targets.target(call)
        if target is None:
            return None
        return self.closed.get(target) or self.external.get(target)

    def of_held_call(self, call: cst.Call) -> Summary | None:
        """What `call` runs when it calls, for certain, a function of the project that a
        variable holds: a `functools.partial` of it (`step = partial(train_step, model,
        opt)`, then `step(batch)`), the function itself (`self.step_fn = self.train_step`),
        or an item of a dict of them written out and never changed (`steps = {"train":
        train_step}` or `self.steps = ...`, then `steps[mode](batch)` or
        `steps.get(mode)(batch)`: the item a constant key picks, else every item, and a
        default, must be the same function). None where the variable is a parameter, is
        assigned anything else or more than one function, is bound otherwise than by a
        plain assignment (a loop, a `with`), or the dict may change. A
        partial binds slots of its own: ask only what does not depend on the call's
        arguments (`returns_graph`)."""
        held = self._held_functions(call)
        if not held or len(set(held)) != 1 or held[0] is None:
            return None
        return self.closed.get(held[0]) or self.external.get(held[0])

    def _held_functions(self, call: cst.Call) -> list[str | None]:
        """The functions `call` may run through a variable (see `of_held_call`), as
        summary keys or qualified names, None for what is no function of the project."""
        func = call.func
        if self._holders is None:
            self._holders = _holders(self.targets.ctx)
        if type(func) in (cst.Subscript, cst.Call):
            lookup = _item_lookup(self.targets.ctx, func)  # type: ignore[arg-type]
            if lookup is None:
                return []
            holder, key, default = lookup
            named = holder.value if type(holder) is cst.Name else holder.attr.value  # type: ignore[attr-defined]
            if named not in self._holders:
                return []
            items = self._unchanged_dict(holder)
            if items is None or key is None:
                return [None]
            picked = string_value(key)
            held = [self._function_named(value) for found, value in items if picked is None or found in (picked, None)]
            return held + [self._function_named(default)] if default is not None else held
        name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
        if name is None or name not in self._holders or self.targets.target(call) in self.closed:
            return []
        ctx = self.targets.ctx
        binding = ctx.receivers.binding(func)
        if binding is None or self._parameter(binding):
            return [None]
        if type(func) is cst.Attribute and any(
                type(target.target) is cst.Attribute and target.target.attr.value == name
                and ctx.receivers.binding(target.target) != binding
                for node in ctx.nodes_of(cst.Assign) for target in node.targets):  # type: ignore[attr-defined]
            return [None]  # also set through an instance: `trainer.step_fn = other_step`
        assigned = ctx.receivers.only_assigned(binding)
        if assigned is None:
            return [None]  # also bound by a loop, a `with`, an unpacking...: `for step in (train_step, eval_step)`
        held: list[str | None] = []
        for value in assigned:
            if type(value) is cst.Call:
                if (ctx.call_name(value) != PARTIAL or not value.args or value.args[0].keyword is not None
                        or value.args[0].star):
                    return [None]
                value = value.args[0].value
            held.append(self._function_named(value))
        return held

    def _parameter(self, binding: Binding) -> bool:
        owner = binding.owner
        return type(owner) is cst.FunctionDef and binding.name in _all_parameters(owner)  # type: ignore[arg-type]

    def _function_named(self, expr: cst.BaseExpression) -> str | None:
        """The function of the project `expr` names, not calls (`train_step`,
        `self.train_step`, an imported one), as a summary key or a qualified name; None
        for anything else, and for a name also assigned something (`train_step =
        torch.compile(train_step)`)."""
        ctx = self.targets.ctx
        if type(expr) is cst.Attribute:
            owner = self.targets._class_of(expr.value)
            if owner is not None:
                return self.targets.method_of(owner, expr.attr.value)
        if type(expr) not in (cst.Name, cst.Attribute):
            return None
        binding = ctx.receivers.binding(expr)
        if binding is not None and ctx.receivers.assigned(binding):
            return None
        local = ctx.local_function(expr)
        if local is not None:
            if local.name.value != (expr.value if type(expr) is cst.Name else expr.attr.value):  # type: ignore[attr-defined]
                return None  # a class: calling it builds an instance
            return self.targets.keys.get(local)
        qualified = ctx.qualified_name(expr)
        if qualified is None or qualified.startswith(("torch.", "builtins.")):
            return None
        return qualified

    def _unchanged_dict(self, name: cst.Name | cst.Attribute) -> list[tuple[str | None, cst.BaseExpression]] | None:
        """The items of the dict written out that `name` (a variable, or `self.steps`)
        holds, by constant key (None for another key), where it is assigned that dict alone
        and only ever read an item of (`steps[mode]`, `steps.get(mode)`): not written,
        updated, nor handed anywhere, nor an attribute of the same name of another object."""
        ctx = self.targets.ctx
        receivers = ctx.receivers
        binding = receivers.binding(name)
        if binding is None or self._parameter(binding):
            return None
        values = receivers.assigned(binding)
        if len(values) != 1 or type(values[0]) is not cst.Dict:
            return None
        written = values[0]
        last = name.value if type(name) is cst.Name else name.attr.value
        for node in ctx.nodes_of(type(name)):
            if (node.value if type(node) is cst.Name else node.attr.value) != last:  # type: ignore[attr-defined]
                continue
            if receivers.binding(node) != binding:  # type: ignore[arg-type]
                if type(node) is cst.Attribute:
                    return None  # `trainer.steps`, a subclass's `self.steps`: it may be another dict
                continue
            parent = ctx.parent(node)
            if type(parent) is cst.AssignTarget and ctx.parent(parent) is ctx.parent(written):
                continue  # its own assignment
            if type(parent) is cst.Attribute and parent.attr.value == "get" and type(ctx.parent(parent)) is cst.Call \
                    and _item_lookup(ctx, ctx.parent(parent)) is not None:  # type: ignore[arg-type]
                continue  # `steps.get(mode)`
            if type(parent) is not cst.Subscript or parent.value is not node:
                return None
            holder = ctx.parent(parent)
            if type(holder) in (cst.AssignTarget, cst.Del) or (
                    type(holder) is cst.AugAssign and holder.target is parent):
                return None
        items: list[tuple[str | None, cst.BaseExpression]] = []
        for element in written.elements:
            if type(element) is not cst.DictElement:
                return None  # `**others`
            items.append((string_value(element.key), element.value))
        return items

    def of_external_call(self, call: cst.Call) -> Summary | None:
        """What `call` does when it calls a function of another module."""
        if not self.external:
            return None
        target = self.targets.target(call)
        return self.external.get(target) if target is not None else None

    def of_unwalked_call(self, call: cst.CSTNode) -> Summary | None:
        """What a call does that a walk of the file's own functions does not enter
        (see `local_callee`): a function of another module, or a method of an object
        of a class of this file (`trainer.training_step(batch)`, `stepper(loss, opt)`)."""
        if type(call) is not cst.Call:
            return None
        summary = self.of_external_call(call)
        if summary is None and self.targets.ctx.local_callee(call) is None:
            summary = self.of_call(call)
        return summary

    def alternatives(self) -> dict[cst.Call, tuple[str, ...]]:
        """The calls of a bare name that imports bind, on different branches, to more than
        one function (no one target), with the qualified names of those functions."""
        if self._alternatives is None:
            ctx = self.targets.ctx
            self._alternatives = {}
            for call in ctx.nodes_of(cst.Call):
                func = call.func  # type: ignore[attr-defined]
                if type(func) is not cst.Name or not ctx.may_be_imported(func) or self.targets.target(call) is not None:  # type: ignore[arg-type]
                    continue
                names = ctx.qualified_names(func)
                if len(names) > 1 and not any(name.startswith(("torch.", "builtins.")) for name in names):
                    self._alternatives[call] = tuple(sorted(names))  # type: ignore[index]
        return self._alternatives

    def of_constructor(self, call: cst.Call) -> Summary | None:
        """What the constructor a class call runs does: the `__init__` of a class of
        this file, or of one imported from another module of the project."""
        target = self.targets.target(call)
        if target is None or target.endswith(".__init__"):
            return self.of_call(call)
        return self.external.get(f"{target}.__init__")

    def instance_forward(self, expr: cst.BaseExpression) -> tuple[bool, Summary | None]:
        """Whether `expr` holds an instance of a class of the project (of this file, or
        imported from another module whose constructor the project knows), and what
        calling it runs (its `__call__`, or an `nn.Module`'s `forward`) when the project
        says; (False, None) when its class is not known to be one of the project."""
        cls = self.targets._class_of(expr)
        if cls is None:
            return False, None
        if cls not in self.targets.classes and f"{cls}.__init__" not in self.external:
            return False, None  # a class of an installed library
        key = self.targets._call_of_instance(cls)
        return True, (self.closed.get(key) or self.external.get(key)) if key is not None else None

    def of_function(self, func: cst.FunctionDef) -> Summary:
        return self.closed[self.targets.keys[func]]

    def called_names(self) -> set[str]:
        """The qualified names of other modules this file's code calls: in its
        functions, and at module level (a script's training loop)."""
        called = {
            event.callee
            for summary in self.open.values()
            for event in summary.events
            if isinstance(event, Call)
        }
        called |= {name for summary in self.open.values() for name, _ in summary.returns_fielded}
        for call in self.targets.ctx.calls_in_order(self.targets.ctx.module):
            target = self.targets.target(call)
            if target is not None:
                called.add(target)
        # each function a name imported on several branches may be (`if dense: from .epochs
        # import train_dense as train_epoch` / `else: ... train_sparse as train_epoch`)
        called |= {name for alternatives in self.alternatives().values() for name in alternatives}
        # the functions of other modules a variable holds (`step = partial(train_step, ...)`)
        for call in self.targets.ctx.nodes_of(cst.Call):
            called.update(name for name in self._held_functions(call) if name is not None)  # type: ignore[arg-type]
        # the constructors of other modules' classes whose instances this file keeps
        built = {self.targets.target(call) for call in self.targets.constructions()} - {None}
        called |= self.targets.imported_methods
        called.update(f"{base}.__init__" for cls in self.targets.scaling_classes()
                      for base in self.targets.imported_bases(cls))
        called.update(f"{target}.__init__" for target in built if not target.endswith(".__init__"))  # type: ignore[union-attr]
        # `Trainer.model` (a model called through an attribute) names nothing to look up
        return {name for name in called - self.open.keys() if self.targets.may_run_code(name)}


def _all_parameters(function: cst.FunctionDef) -> set[str]:
    params = function.params
    star = [p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return named_parameters(function) | set(star)


def _item_lookup(
    ctx: FileContext, func: cst.Subscript | cst.Call,
) -> tuple[cst.Name | cst.Attribute, cst.BaseExpression | None, cst.BaseExpression | None] | None:
    """What `func`, a call's function, reads an item of: the variable (or `self.`
    attribute) that holds a dict, the key (None where not one plain key) and the default
    of `steps.get(mode, default)`, of `steps[mode]` or `steps.get(mode)`; None otherwise."""
    if type(func) is cst.Subscript:
        holder, default = func.value, None
        key = func.slice[0].slice.value if len(func.slice) == 1 and type(func.slice[0].slice) is cst.Index else None
    elif (type(func) is cst.Call and type(func.func) is cst.Attribute and func.func.attr.value == "get"
          and 1 <= len(func.args) <= 2 and not any(arg.star or arg.keyword is not None for arg in func.args)):
        holder, key = func.func.value, func.args[0].value
        default = func.args[1].value if len(func.args) > 1 else None
    else:
        return None
    if type(holder) is cst.Name or (type(holder) is cst.Attribute and receiver_method(ctx, holder.value) is not None):
        return holder, key, default  # type: ignore[return-value]
    return None


def _holders(ctx: FileContext) -> frozenset[str]:
    """The names (the last part of an attribute) the file assigns what may be a function
    or a dict of them (`step = partial(train_step, ...)`, `self.step_fn = self.train_step`,
    `steps = {...}`): only calls of those may run a function a variable holds."""
    found = set()
    for node in ctx.nodes_of(cst.Assign):
        value = node.value  # type: ignore[attr-defined]
        if type(value) in (cst.Name, cst.Attribute, cst.Dict) or (
                type(value) is cst.Call and ctx.call_name(value) == PARTIAL):
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name:
                    found.add(target.target.value)
                elif type(target.target) is cst.Attribute:
                    found.add(target.target.attr.value)
    return frozenset(found)


def file_facts(ctx: FileContext) -> FileFacts:
    """What the project needs to know of this file (see `trainlint.project`)."""
    summaries = ctx.summaries
    module = ctx.scopes.module_scope
    # a name the module binds once, by an import: one it also assigns (`autocast =
    # partial(torch.amp.autocast, ...)`, with the import as the old-torch fallback)
    # is not what the import says; `None` in its place (`except ImportError: autocast =
    # None`) is no other value
    assigned = module.locals | module.aliases.keys()
    placeholders = _assigned_none_only(ctx) if assigned & module.imports.keys() else set()
    imports = {
        local: next(iter(targets))
        for local, targets in module.imports.items()
        if len(targets) == 1 and (local not in assigned or local in placeholders)
    }
    stars = tuple(ctx.scopes.module_scope.star_imports)
    targets = summaries.targets
    bases = {name: found for name in targets.classes if (found := targets.bases(name))}
    # the names the file reads through its star imports go with the names it calls:
    # the project says what each is (`nn` of `from common import *`: `torch.nn`)
    called = (summaries.called_names() | star_bound_names(ctx) | reexports_imported(ctx) | module_runs(ctx)
              | star_questions(ctx))
    # the loops its classes inherit from other modules, which may run their overrides
    called.update(hook_key(cls) for cls in targets.classes
                  if any(not base.startswith(("torch.", "builtins.")) for base in targets.imported_bases(cls)))
    called |= module_class_questions(called, targets)
    # the module's named tuples, for the functions of other modules that return one (see `Summary.fields`)
    named_tuples = {name: Summary(fields=fields) for name, fields in named_tuple_classes(ctx).items()
                    if name not in summaries.open}
    # what importing it does (see `module_run`) and how it binds `torch` for a star import
    facts = {**summaries.open, **named_tuples, **module_run(ctx), **module_facts(ctx), **_torch_module_classes(ctx),
             **_torch_kind_classes(ctx)}
    return FileFacts(facts, frozenset(called), imports, stars, bases, search_paths(ctx))


def module_class_questions(called: set[str], targets: CallTargets) -> set[str]:
    """`nets.Net.<nn.Module>` for each class of another module the file builds (`Net()` of
    `from nets import Net`, named as a class is: capitalized) or derives a class of its own
    from: the project says whether its lineage reaches a class of `torch.nn` (see `NN_MODULE`);
    and `nets.Net.<torch kind>`: whether it reaches an optimizer or a scheduler of torch (see
    `TORCH_KIND`)."""
    built = {name.removesuffix(".__init__") for name in called}
    built.update(base for cls in targets.classes for base in targets.imported_bases(cls))
    return {f"{name}.{question}" for name in built
            if name.rpartition(".")[2][:1].isupper() and not name.startswith(("torch.", "builtins."))
            for question in (NN_MODULE, TORCH_KIND)}


def _torch_module_classes(ctx: FileContext) -> dict[str, Summary]:
    """`Net.<nn.Module>` for each class of the module's top level that derives from a class
    of `torch.nn` itself (`class Net(nn.Module)`): the project follows the lineage of another
    module's class to it (see `NN_MODULE`)."""
    return {f"{cls.name.value}.{NN_MODULE}": Summary() for cls in ctx.module.body  # type: ignore[attr-defined]
            if type(cls) is cst.ClassDef and any(is_torch_nn_class(ctx.qualified_name(base.value)) for base in cls.bases)}


def _torch_kind_classes(ctx: FileContext) -> dict[str, Summary]:
    """`PolyLR.<torch kind>` for each class of the module's top level that derives from an
    optimizer or a scheduler class of torch itself (`class PolyLR(_LRScheduler)`), its kind
    as `returns_kind`: the project follows the lineage of another module's class to it."""
    return {f"{cls.name.value}.{TORCH_KIND}": Summary(returns_kind=kind) for cls in ctx.module.body  # type: ignore[attr-defined]
            if type(cls) is cst.ClassDef and (kind := subclassed_kind(ctx, cls)) is not None}


def reexports_imported(ctx: FileContext) -> set[str]:
    """The names of the project's modules that the file's imports bind and the project
    says are re-exports (`utils.misc.GradScaler` after `from utils.misc import
    GradScaler`, where misc.py imports it from torch). Told so, the file calls them by
    what they are, and they would drop out of the names it calls: its facts must not
    depend on what the project told it (a file linted again from the cache is told
    up front), or its next inputs lose the re-export."""
    bound = {target for scope in ctx.scopes.scopes() for targets in scope.imports.values() for target in targets}
    return {name for name, summary in ctx.external.items()
            if summary.alias_of and any(name == target or name.startswith(target + ".") for target in bound)}


def _assigned_none_only(ctx: FileContext) -> set[str]:
    """Module-level names every assignment of which (in the module's own code, also
    under `try` / `if`) is `None`."""
    module = ctx.scopes.module_scope
    values: dict[str, list[cst.BaseExpression | None]] = {}
    for node in ctx.nodes_of(cst.Assign, cst.AnnAssign, cst.AugAssign):
        if ctx.scope_of(node) is not module:
            continue
        targets = assignment_targets(node)
        for target in targets:
            single = type(target) is cst.Name and type(node) is not cst.AugAssign
            for name in target_names(target):
                values.setdefault(name, []).append(node.value if single else None)  # type: ignore[attr-defined]
    return {name for name, assigned in values.items()
            if all(type(value) is cst.Name and value.value == "None" for value in assigned)}


def star_bound_names(ctx: FileContext) -> set[str]:
    """`common.nn` for each name (`nn`) the file reads that only its module-level
    star imports (`from common import *`) may bind, one per star-imported module; a
    builtin only where it is called (`eval(model, loader)`: the project says whether
    a module star-imported defines it, or it is Python's)."""
    stars = ctx.scopes.module_scope.star_imports
    if not stars:
        return set()
    found: set[str] = set()
    seen: set[tuple[int, str]] = set()
    for node in ctx.nodes_of(cst.Name):
        parent = ctx.parent(node)
        if type(parent) is cst.Attribute and parent.attr is node:  # type: ignore[attr-defined]
            continue
        if node.value in BUILTIN_NAMES and not (type(parent) is cst.Call and parent.func is node):  # type: ignore[attr-defined]
            continue
        scope = ctx.scope_of(node)
        if (id(scope), node.value) in seen:
            continue
        seen.add((id(scope), node.value))
        candidates = {member_of(module, node.value) for module in stars}
        found |= lookup(node.value, scope) & candidates
    return found
