"""What precision a piece of code computes in: autocast regions and their
dtype, half-precision conversions, and whether a GradScaler is switched on.

Autocast's dtype is read from its arguments the way PyTorch does:
`torch.amp.autocast(device_type, dtype=None, enabled=True)` uses the device's
default when `dtype` is absent (float16 on "cuda", bfloat16 on "cpu"), while
`torch.cuda.amp.autocast(enabled=True, dtype=torch.float16)` and
`torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16)` take `enabled`
first. Anything that cannot be read from the text (a dtype held in a variable
built at run time, a device type computed from a flag) is `UNKNOWN`: rules stay
silent on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Literal, Sequence

import libcst as cst

from trainlint.analysis.dataflow import unpacked
from trainlint.analysis.literals import string_value
from trainlint.analysis.partials import partial_of, partial_parts
from trainlint.analysis.scopes import alternatives, binding_scope, dotted_name, receiver_method
from trainlint.analysis.training import method_call
from trainlint.analysis.walk import only
from trainlint.summaries import STEP

if TYPE_CHECKING:
    from trainlint.analysis.receivers import Binding
    from trainlint.context import FileContext

Precision = Literal["float16", "bfloat16", "float32", "disabled", "unknown"]
FLOAT16: Precision = "float16"
BFLOAT16: Precision = "bfloat16"
FLOAT32: Precision = "float32"
DISABLED: Precision = "disabled"
UNKNOWN: Precision = "unknown"

_DTYPES: dict[str, Precision] = {
    "torch.float16": FLOAT16,
    "torch.half": FLOAT16,
    "torch.bfloat16": BFLOAT16,
    "torch.float32": FLOAT32,
    "torch.float": FLOAT32,
}
# autocast entry point -> (positional parameters, default dtype when none is given)
_AUTOCASTS: dict[str, tuple[tuple[str, ...], Precision | None]] = {
    "torch.amp.autocast": (("device_type", "dtype", "enabled"), None),
    "torch.cuda.amp.autocast": (("enabled", "dtype"), FLOAT16),
    "torch.cpu.amp.autocast": (("enabled", "dtype"), BFLOAT16),
}
_DEVICE_DEFAULTS: dict[str, Precision] = {"cuda": FLOAT16, "cpu": BFLOAT16}


def dtype_of(ctx: FileContext, expr: cst.BaseExpression) -> Precision:
    """The floating-point dtype `expr` names (`torch.half`, `th.bfloat16`, a
    module-level alias of one), or UNKNOWN."""
    return _DTYPES.get(ctx.qualified_name(expr) or "", UNKNOWN)


def may_be_float16(ctx: FileContext, expr: cst.BaseExpression, _depth: int = 0) -> bool:
    """A dtype chosen at run time among values that include float16:
    `torch.float16 if args.fp16 else torch.bfloat16`, `getattr(torch,
    args.dtype)` where the `--dtype` flag's choices include "float16", or
    `{"fp16": torch.float16, ...}[args.precision]`, also through a variable."""
    if dtype_of(ctx, expr) == FLOAT16:
        return True
    if _depth > 3:
        return False
    if type(expr) is cst.IfExp:
        return may_be_float16(ctx, expr.body, _depth + 1) or may_be_float16(ctx, expr.orelse, _depth + 1)
    if type(expr) is cst.Name:
        value = value_of_name(ctx, expr)
        return value is not None and may_be_float16(ctx, value, _depth + 1)
    if type(expr) is cst.Subscript and type(expr.value) in (cst.Dict, cst.Name):
        table = value_of_name(ctx, expr.value) if type(expr.value) is cst.Name else expr.value
        return type(table) is cst.Dict and any(
            type(e) is cst.DictElement and dtype_of(ctx, e.value) == FLOAT16 for e in table.elements
        )
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "getattr":
        if len(expr.args) >= 2 and ctx.qualified_name(expr.args[0].value) == "torch":
            return bool(_FLOAT16_NAMES & flag_choices(ctx, expr.args[1].value))
    return False


_FLOAT16_NAMES = frozenset({"float16", "half"})


def flag_choices(ctx: FileContext, flag: cst.BaseExpression) -> set[str]:
    """The `choices=` of the command-line flag `args.<name>` reads (an
    `add_argument("--name", choices=[...])` of the file)."""
    if type(flag) is not cst.Attribute:
        return set()
    wanted = flag.attr.value
    for call in ctx.nodes_of(cst.Call):
        assert type(call) is cst.Call
        if not (type(call.func) is cst.Attribute and call.func.attr.value == "add_argument" and call.args):
            continue
        names = [string_value(a.value) for a in call.args if a.keyword is None]
        dest = argument(call, "dest", ())
        dests = {n.lstrip("-").replace("-", "_") for n in names if n} | {string_value(dest) or ""}
        choices = argument(call, "choices", ())
        if wanted in dests and type(choices) in (cst.List, cst.Tuple, cst.Set):
            return {v for e in choices.elements if (v := string_value(e.value)) is not None}
    return set()


def argument(call: cst.Call, name: str, positional: tuple[str, ...]) -> cst.BaseExpression | None:
    """The expression passed for parameter `name`, by keyword or position."""
    index = positional.index(name) if name in positional else None
    position = 0
    for arg in call.args:
        if arg.star:
            continue
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
            continue
        if position == index:
            return arg.value
        position += 1
    return None


def has_star_arguments(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def literal_bool(expr: cst.BaseExpression | None) -> bool | None:
    if type(expr) is cst.Name and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def is_autocast(ctx: FileContext, call: cst.CSTNode) -> bool:
    """An autocast call, or a `functools.partial` of autocast (`partial(torch.autocast,
    device_type="cuda", dtype=torch.float16)`): what calling it enters."""
    return type(call) is cst.Call and (ctx.call_name(call) in _AUTOCASTS or _autocast_of_partial(ctx, call) is not None)


def _autocast_of_partial(ctx: FileContext, call: cst.Call) -> str | None:
    """The autocast entry point a `functools.partial(<autocast>, ...)` call binds."""
    parts = partial_parts(ctx, call)
    name = ctx.qualified_name(parts[0]) if parts is not None else None
    return name if name in _AUTOCASTS else None


def autocast_precision(ctx: FileContext, call: cst.Call) -> Precision:
    """The dtype an autocast call computes in; DISABLED for `enabled=False`.
    A non-literal `enabled=` still counts as the dtype it would enable. For a
    partial of autocast, the arguments it binds."""
    found = _autocast_signature(ctx, call)
    if found is None:
        return UNKNOWN
    call, (positional, default) = found
    if has_star_arguments(call):
        return UNKNOWN
    if literal_bool(argument(call, "enabled", positional)) is False:
        return DISABLED
    dtype = argument(call, "dtype", positional)
    if dtype is not None:
        if type(dtype) is cst.Name and dtype.value == "None":
            dtype = None
        else:
            known = dtype_of(ctx, dtype)
            return FLOAT16 if known == UNKNOWN and may_be_float16(ctx, dtype) else known
    if default is not None:
        return default
    device = string_value(argument(call, "device_type", positional))
    return _DEVICE_DEFAULTS.get(device or "", UNKNOWN)


def autocast_enabled(ctx: FileContext, call: cst.Call) -> cst.BaseExpression | None:
    """The `enabled` an autocast call (or a partial of one) is given, by keyword or place;
    None where it leaves it on."""
    found = _autocast_signature(ctx, call)
    return None if found is None else argument(found[0], "enabled", found[1][0])


def _autocast_signature(ctx: FileContext, call: cst.Call
                        ) -> tuple[cst.Call, tuple[tuple[str, ...], Precision | None]] | None:
    """An autocast call with its signature (see `_AUTOCASTS`); for a partial of autocast,
    the arguments it binds, the function left out. None for any other call."""
    bound = _autocast_of_partial(ctx, call)
    if bound is not None:
        call = call.with_changes(args=call.args[1:])  # the same argument nodes, the function left out
    signature = _AUTOCASTS.get(bound or ctx.call_name(call) or "")
    return None if signature is None else (call, signature)


def autocast_of_with_item(ctx: FileContext, item: cst.BaseExpression) -> cst.Call | None:
    """The autocast call a `with` item enters: the call itself, or one arm of an
    `if` expression (`with autocast("cuda") if use_amp else nullcontext():`), or a name
    bound exactly once in its scope to an autocast call (`amp_ctx = torch.autocast(...)`),
    or an attribute of the instance assigned one once (`self.ctx = torch.autocast(...)`
    in `__init__`), or a value of a dict literal picked by a key (`with {"bf16":
    torch.autocast(..., dtype=torch.bfloat16), "fp16": ...}[precision]:`). Of several
    it may be (bf16 or fp16 by a flag), the float16 one: that run needs what float16
    needs."""
    if is_autocast(ctx, item):
        return item  # type: ignore[return-value]
    if type(item) is cst.Call and not item.args:
        # `amp_autocast()` of `amp_autocast = partial(torch.autocast, "cuda", dtype=...)`
        made = partial_of(ctx, item)
        if made is not None and is_autocast(ctx, made):
            return made
    values: list[cst.BaseExpression] = []
    if type(item) is cst.Call and type(item.func) is cst.Name:
        # `autocast()` of `autocast = torch.cuda.amp.autocast if amp else suppress`: a call
        # of the autocast function the name holds, with this call's arguments
        held = assignments(ctx, item.func) or []
        if len(held) == 1:
            values = [cst.Call(func=arm, args=item.args) for arm in alternatives(held[0])
                      if type(arm) in (cst.Name, cst.Attribute) and ctx.qualified_name(arm) in _AUTOCASTS]
    elif type(item) is cst.IfExp:  # `with autocast("cuda") if use_amp else nullcontext():`
        values = alternatives(item)
    elif type(item) in (cst.Name, cst.Attribute):
        if type(item) is cst.Name:
            values = assignments(ctx, item) or []
            if not values and (held := global_value(ctx, item)) is not None:
                values = [held]  # `amp_ctx = torch.autocast(...)` at module level, read in a function
        else:
            binding = ctx.receivers.binding(item)
            values = ctx.receivers.assigned(binding) if binding is not None else []
            values = values if len(values) == 1 else []
        if len(values) == 1 and type(values[0]) is cst.IfExp:
            values = [values[0].body, values[0].orelse]
    elif type(item) is cst.Subscript or (type(item) is cst.Call and type(item.func) is cst.Attribute
                                         and item.func.attr.value == "get" and item.args):
        # `{...}[precision]`, or `contexts.get(precision, nullcontext())` with its default
        table = item.value if type(item) is cst.Subscript else item.func.value  # type: ignore[attr-defined]
        if type(table) is cst.Name:
            table = single_assignment(ctx, table)  # type: ignore[assignment]
        if type(table) is cst.Dict:
            values = [element.value for element in table.elements if type(element) is cst.DictElement]
            values += [arg.value for arg in item.args[1:2]] if type(item) is cst.Call else []  # type: ignore[attr-defined]
    # `autocast(...) if device_type == "cuda" else nullcontext()`, or `ctx =
    # nullcontext()` then `if use_amp: ctx = autocast(...)`: the other value
    # does not autocast at all
    autocasts = [value for value in values if is_autocast(ctx, value)]
    if len(autocasts) <= 1:
        return autocasts[0] if autocasts else None  # type: ignore[return-value]
    precisions = [autocast_precision(ctx, call) for call in autocasts]  # type: ignore[arg-type]
    if FLOAT16 in precisions:
        return autocasts[precisions.index(FLOAT16)]  # type: ignore[return-value]
    return autocasts[0] if len(set(precisions)) == 1 else None  # type: ignore[return-value]


def single_assignment(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """The value of the only `name = value` statement in the scope `name` is
    read in, when the name is bound nowhere else there (not a parameter, not a
    loop target)."""
    values = assignments(ctx, name)
    return values[0] if values is not None and len(values) == 1 else None


def assignments(ctx: FileContext, name: cst.Name) -> list[cst.BaseExpression] | None:
    """The values of every `name = value` statement in the scope `name` is read
    in; None when the name is bound there in any other way (a parameter, a loop
    target, an augmented assignment, an unpacking)."""
    scope = ctx.scope_of(name)
    if type(scope.node) is cst.FunctionDef:
        params = scope.node.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        if any(p.name.value == name.value for p in every):
            return None
        body: cst.CSTNode = scope.node.body
    else:
        body = scope.node
    return _assigned_in(ctx, body, name.value)


# what binds a name in a `match` pattern or an `except` clause, and the field naming it
_CAPTURES = {cst.MatchAs: "name", cst.MatchStar: "name", cst.MatchMapping: "rest", cst.ExceptHandler: "name",
             cst.ExceptStarHandler: "name"}


def _assigned_in(ctx: FileContext, body: cst.CSTNode, name: str) -> list[cst.BaseExpression] | None:
    """The values of every `name = value` (or `name: T = value`) statement of `body`'s own
    code; None where it binds the name in any other way (see `assignments`), a `match`
    capture (`case {"amp": name}:`) or an `except ... as name` too."""
    values: list[cst.BaseExpression] = []
    binders = only(ctx.own_nodes(body), cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem, cst.NamedExpr,
                   *_CAPTURES)
    for node in binders:
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) is cst.Name and target.target.value == name:
                    values.append(node.value)
                elif _binds(target.target, name):
                    return None
        elif (type(node) is cst.AnnAssign and type(node.target) is cst.Name and node.target.value == name
              and node.value is not None):
            values.append(node.value)
        elif type(node) in _CAPTURES:
            if _captured(node) == name:
                return None
        elif type(node) in (cst.AugAssign, cst.For, cst.WithItem, cst.NamedExpr):
            target = node.target if type(node) is not cst.WithItem else (node.asname.name if node.asname else None)
            if target is not None and _binds(target, name):
                return None
    return values


def _captured(node: cst.CSTNode) -> str | None:
    """The name a capture pattern (`case x:`, `*rest`, `**rest`) or an `except ... as e` binds."""
    captured = getattr(node, _CAPTURES[type(node)])
    if type(captured) is cst.AsName:
        captured = captured.name
    return captured.value if type(captured) is cst.Name else None


def module_constant(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """The value of a module-level name read where the module's binding is seen, when
    the module binds it by one `name = value` and nothing rebinds it: no other binding
    at module level (an import, a `def`, a loop, `del`), nor a `global name` in a
    function, which may assign it at any time (`USE_AMP = True`, read in `main()`)."""
    module = ctx.scopes.module_scope
    if binding_scope(name.value, ctx.scope_of(name)) is not module or name.value in module.imports:
        return None
    known = ctx.shared(_module_constants_memo)  # the module is read once per name
    if name.value not in known:
        known[name.value] = _module_constant_named(ctx, name.value)
    return known[name.value]


def _module_constants_memo(ctx: FileContext) -> dict[str, cst.BaseExpression | None]:
    return {}


def _module_constant_named(ctx: FileContext, name: str) -> cst.BaseExpression | None:
    if any(name in scope.declared_outer for scope in ctx.scopes.scopes()):
        return None
    if any(type(node) in (cst.FunctionDef, cst.ClassDef) and node.name.value == name  # type: ignore[attr-defined]
           or type(node) is cst.Del and _binds(node.target, name)  # type: ignore[attr-defined]
           for node in ctx.own_nodes(ctx.module)):
        return None
    values = _assigned_in(ctx, ctx.module, name)
    return values[0] if values is not None and len(values) == 1 else None


def global_value(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """The value of the one module-level assignment of `name`, when `name` is
    read in a function that does not bind it itself."""
    scope = ctx.scope_of(name)
    if scope is ctx.scopes.module_scope or name.value in scope.locals or name.value in scope.aliases:
        return None
    values = [
        small.value
        for stmt in ctx.module.body
        if type(stmt) is cst.SimpleStatementLine
        for small in stmt.body
        if type(small) is cst.Assign
        and any(type(t.target) is cst.Name and t.target.value == name.value for t in small.targets)
    ]
    return values[0] if len(values) == 1 else None


def value_of_name(ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
    """What `name` holds where it is read: its one assignment in that scope,
    or at module level."""
    return single_assignment(ctx, name) or global_value(ctx, name)


def _binds(target: cst.BaseExpression, name: str) -> bool:
    if type(target) is cst.Name:
        return target.value == name
    if type(target) in (cst.Tuple, cst.List):
        return any(_binds(element.value, name) for element in target.elements)
    if type(target) is cst.StarredElement:
        return _binds(target.value, name)
    return False


def autocast_calls(ctx: FileContext) -> Iterator[cst.Call]:
    """Every autocast call of the file, wherever it appears."""
    for node in ctx.nodes_of(cst.Call):
        if is_autocast(ctx, node):
            yield node  # type: ignore[misc]


def with_precision(ctx: FileContext, stmt: cst.With) -> tuple[Precision, cst.Call] | None:
    """The precision an autocast `with` statement computes its body in."""
    for item in stmt.items:
        call = autocast_of_with_item(ctx, item.item)
        if call is not None:
            return autocast_precision(ctx, call), call
    return None


def half_conversion(ctx: FileContext, call: cst.CSTNode) -> cst.BaseExpression | None:
    """The receiver of `x.half()`, `x.to(torch.float16)`, `x.to(device,
    dtype=torch.half)`: a conversion of `x` to float16."""
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute:
        return None
    method = call.func.attr.value
    if method == "half" and not call.args:
        return call.func.value
    if method != "to" or has_star_arguments(call):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value != "dtype":
            continue
        if dtype_of(ctx, arg.value) == FLOAT16:
            return call.func.value
    return None


def grad_scaler_enabled(call: cst.Call) -> bool | None:
    """Whether a `GradScaler(...)` construction is switched on: True when
    `enabled` is absent or literally True, False when literally False, None
    when it depends on a value only known at run time."""
    if has_star_arguments(call):
        return None
    enabled = argument(call, "enabled", ())  # the positional place differs between the APIs
    if enabled is None:
        return True
    return literal_bool(enabled)


def scaler_switched_off(ctx: FileContext, binding: Binding) -> bool:
    """True when every construction of the scaler `binding` holds says
    `enabled=False`: such a scaler passes losses and steps through unchanged."""
    built = ctx.receivers.constructions.get(binding, [])
    return bool(built) and all(grad_scaler_enabled(call) is False for call in built)


_SCALER_METHODS = ("step", "scale", "unscale_", "update", "get_scale", "is_enabled")
# a GradScaler's methods that only read it
SCALER_READS = frozenset({"get_scale", "is_enabled", "get_growth_factor", "get_backoff_factor",
                          "get_growth_interval", "state_dict"})


def hands_over_scaler(ctx: FileContext, call: cst.Call, scaler: str) -> bool:
    """`call` is given the GradScaler written `scaler`, or the object it is an attribute
    of (`self` for `self.scaler`), and is none of the scaler's own methods: code the
    caller cannot see that may update or unscale it (`end_step(scaler, opt)`)."""
    return not scaler_owners(scaler).isdisjoint(handed_arguments(ctx, call))


def scaler_owners(scaler: str) -> frozenset[str]:
    """`self.scaler` and what holds it, `self`: handing either over hands the scaler."""
    return frozenset({scaler, *(scaler.rsplit(".", depth)[0] for depth in range(1, scaler.count(".") + 1))})


def handed_arguments(ctx: FileContext, call: cst.Call) -> list[str]:
    """The arguments of `call`, as written, unless it is a GradScaler's own method."""
    if method_call(call, *_SCALER_METHODS) is not None:
        return []
    return [ctx.code(arg.value) for arg in call.args]


def manages_optimizers(ctx: FileContext, obj: cst.BaseExpression) -> bool:
    """A method of the object `obj` is handed, or returns into a name of, an object the
    file steps with a bare `.step()` (accelerate's `model, optimizer = accelerator.prepare(
    model, optimizer)`): the object wraps those optimizers, whose steps may go through its
    scaler, and may scale only on some runs. Not a method that steps what it is handed
    (`amp.step(optimizer)`)."""
    receivers = ctx.receivers
    held = receivers.binding(obj)
    calls = ctx.nodes_of(cst.Call)
    stepped = {receivers.binding(receiver) for call in calls
               if (receiver := method_call(call, "step")) is not None and not call.args} - {None}  # type: ignore[attr-defined]
    if held is None or not stepped:
        return False
    for call in calls:
        func = call.func  # type: ignore[attr-defined]
        if type(func) is not cst.Attribute or receivers.binding(func.value) != held:
            continue
        summary = ctx.summaries.of_unwalked_call(call)
        if summary is not None and summary.does(STEP):
            continue  # `amp.step(optimizer)`: it steps it itself
        if any(receivers.binding(arg.value) in stepped for arg in call.args):  # type: ignore[attr-defined]
            return True
        parent = ctx.parent(call)
        if type(parent) is cst.Assign and any(receivers.binding(part) in stepped for t in parent.targets
                                              for part in unpacked(t.target) if type(part) is cst.Name):
            return True
    return False


def scaler_holder(ctx: FileContext, call: cst.Call, reached_by: tuple[str, ...],
                  within: cst.CSTNode | None = None, self_too: bool = False) -> cst.BaseExpression | None:
    """The object `call` runs a method of a class of the project on (`amp.backward(loss)`
    of `amp = AmpStepper()`), where the caller knows the method works on the object's
    own GradScaler (`self.scaler.scale(loss).backward()`): the object stands for its
    scaler, which only its own methods reach. None where the object is not a variable
    (nor `self`, unless `self_too`: a method the class inherits from another module),
    or where the file reaches the object's scaler itself with one of the `reached_by`
    methods (`amp.scaler.unscale_(opt)`) in `within` (the whole file by default)."""
    func = call.func
    name = dotted_name(func.value) if type(func) is cst.Attribute else None
    if name is None or (receiver_method(ctx, func.value) is not None and not self_too):  # type: ignore[attr-defined]
        return None
    obj = func.value  # type: ignore[attr-defined]
    if ctx.receivers.binding(obj) is None:
        return None
    text = ctx.code(obj) + "."
    scope = ctx.subtree(within) if within is not None else ctx.nodes_of(cst.Call)
    if any((target := method_call(node, *reached_by)) is not None and ctx.code(target).startswith(text)
           for node in scope):
        return None
    return obj


def hook_body(hook: cst.BaseExpression, block: Sequence[cst.BaseStatement]) -> cst.CSTNode | None:
    """What a hook registered as `hook` runs: a lambda's body, or the body of the one
    function defined by that name directly in `block`, the statements of the function
    (or module) the registration runs in. Anything else is not followed."""
    if type(hook) is cst.Lambda:
        return hook.body
    if type(hook) is cst.Name:
        defined = [stmt for stmt in block if type(stmt) is cst.FunctionDef and stmt.name.value == hook.value]
        return defined[0].body if len(defined) == 1 else None
    return None
