"""What values a variable may hold, followed through the assignments of one
file and the call sites of its functions; and the facts rules build on them:
which calls compute a loss, which names are back-propagated, which
DataLoaders a loop iterates.

`Values.of(expr)` answers "what was `loader` built from?" with every
expression assigned to that variable in the file (through plain aliases such
as `loader = train_loader`, and through parameters fed by local call sites
such as `train_one_epoch(model, train_loader)`). When any assignment cannot be
seen (a `for` target, a tuple unpacking, a parameter without local callers,
an import) the answer is None: rules stay silent on what they cannot resolve.

"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, Sequence, TypeVar

import libcst as cst

from trainlint.analysis.handlers import ON, endings
from trainlint.analysis.literals import literal_value, string_value
from trainlint.analysis.receivers import Binding, Receivers
from trainlint.analysis.scopes import _parameters, assignment_targets, bound_arguments, dotted_name, named_parameters
from trainlint.analysis.training import method_call, scaled_backward_scaler
from trainlint.analysis.walk import iter_nodes, own_nodes

if TYPE_CHECKING:
    from trainlint.context import FileContext
    from trainlint.semantic import SemanticModel

DATALOADER = "torch.utils.data.DataLoader"
_Node = TypeVar("_Node", bound=cst.CSTNode)
_MAX_DEPTH = 4
# torch.nn.functional losses whose names do not contain "loss"
_FUNCTIONAL_LOSSES = frozenset(
    {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"}
)
_WRAPPERS = frozenset({"enumerate", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})


# -- call arguments ------------------------------------------------------------
def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    """The `name=...` argument of `call`, if written out."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def has_star_args(call: cst.Call) -> bool:
    """`*args` or `**kwargs` in the call: arguments this file cannot see."""
    return any(arg.star for arg in call.args)


def code_text_runs(ctx: SemanticModel) -> frozenset[str]:
    """The builtins the file calls that run code given as text (`exec`, `eval`; nanoGPT's
    configurator): what its variables hold, or what that code does to an object, is not
    known from the file alone. Ask it through `ctx.shared`."""
    return frozenset(call.func.value for call in ctx.nodes_of(cst.Call)  # type: ignore[attr-defined]
                     if type(call.func) is cst.Name and call.func.value in ("exec", "eval")  # type: ignore[attr-defined]
                     and ctx.qualified_name(call.func) in (None, f"builtins.{call.func.value}"))  # type: ignore[attr-defined]


def splatted_keyword(ctx: FileContext, call: cst.Call, name: str) -> cst.BaseExpression | None:
    """The value a `**` argument of `call` surely passes for keyword `name`: one
    written out at the call (`**{"shuffle": True}`, `**dict(shuffle=True)`), or held
    by a variable set to such a dict once and only ever splatted (`kwargs =
    dict(shuffle=True)`, then `f(**kwargs)`: nothing can have changed it). A dict
    literal that splats another dict may have the key replaced: not read."""
    for arg in call.args:
        if arg.star != "**":
            continue
        value = arg.value
        if type(value) in (cst.Name, cst.Attribute):
            values = Values.of_file(ctx).of(value)
            value = values[0] if values and len(values) == 1 and only_splatted(ctx, arg.value, name) else None
        found = dict_entry(ctx, value, name) if value is not None else None
        if found is not None:
            return found
    return None


def dict_entry(ctx: FileContext, value: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """What the dict `value` builds holds under `name`, when it is written out."""
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict":
        if ctx.receivers.binding(value.func) is not None or (
                ctx.qualified_name(value.func) not in (None, "builtins.dict")):
            return None  # a `dict` of the file's own
        arg = keyword(value, name)  # a repeated key raises: the keyword is what it holds
        return arg.value if arg is not None else None
    if type(value) is not cst.Dict or any(type(e) is cst.StarredDictElement for e in value.elements):
        return None
    entries = [e.value for e in value.elements  # type: ignore[union-attr]
               if string_value(e.key) == name]  # type: ignore[union-attr]
    return entries[-1] if entries else None


def only_splatted(ctx: FileContext, variable: cst.BaseExpression, name: str) -> bool:
    """Every read of `variable` is a `**` argument, or a write of another key than
    `name` (`kwargs["pin_memory"] = True`, `kwargs.update(pin_memory=True)`): no
    `kwargs["shuffle"] = False`, no `kwargs.update(...)` that may set it, no handing
    it to code that may change it."""
    receivers = ctx.receivers
    binding = receivers.binding(variable)
    if binding is None:
        return False
    for node in ctx.nodes_of(type(variable)):
        if node is variable or receivers.binding(node) != binding:  # type: ignore[arg-type]
            continue
        parent = ctx.parent(node)
        splatted = type(parent) is cst.Arg and parent.star == "**"
        assigned = type(parent) in (cst.AssignTarget, cst.AnnAssign) and parent.target is node  # type: ignore[union-attr]
        if not (splatted or assigned or _sets_another_key(ctx, node, name)):
            return False
    return True


def _sets_another_key(ctx: FileContext, node: cst.CSTNode, name: str) -> bool:
    """`node` is the dict of `node["key"] = value`, a key written out and not `name`,
    or of `node.update(key=value, ...)`, keywords only and none of them `name`."""
    item = ctx.parent(node)
    if type(item) is cst.Attribute and item.value is node and item.attr.value == "update":
        call = ctx.parent(item)
        return (type(call) is cst.Call and call.func is item and bool(call.args)
                and all(not a.star and a.keyword is not None and a.keyword.value != name for a in call.args))
    if type(item) is not cst.Subscript or item.value is not node or len(item.slice) != 1:
        return False
    key = item.slice[0].slice
    target = ctx.parent(item)
    written = literal_value(key.value) if type(key) is cst.Index else None
    return written is not None and written != name and type(target) is cst.AssignTarget and target.target is item


def changed_only_elsewhere(ctx: FileContext, variable: cst.Name, names: tuple[str, ...]) -> bool:
    """Every other read of `variable`, in the scope that binds it, is a `return` of it
    or a write of keys other than `names` (`kwargs["shuffle"] = False`,
    `kwargs.update(num_workers=2)`): what it holds under `names` is what it was
    assigned."""
    receivers = ctx.receivers
    binding = receivers.binding(variable)
    if binding is None:
        return False
    for node in ctx.nodes_of(cst.Name):
        if node is variable or receivers.binding(node) != binding:  # type: ignore[arg-type]
            continue
        parent = ctx.parent(node)
        if type(parent) is cst.Return or (type(parent) is cst.AssignTarget and parent.target is node):
            continue
        if not all(_sets_another_key(ctx, node, name) for name in names):
            return False
    return True


def is_constant(expr: cst.BaseExpression | None, value: str) -> bool:
    """`expr` is the literal `True`, `False` or `None` named by `value`."""
    return type(expr) is cst.Name and expr.value == value


# `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
# collate_fn, pin_memory, ...)`: the place `pin_memory` takes by position
_PIN_MEMORY_POSITION = 7


def unpinned_loader(call: cst.Call) -> bool:
    """A `DataLoader(...)` call that surely leaves `pin_memory` off: not given (no
    `**kwargs` that may hold it, no positional argument that reaches its place) or
    given `False`."""
    if has_star_args(call) or sum(arg.keyword is None for arg in call.args) > _PIN_MEMORY_POSITION:
        return False
    pin = keyword(call, "pin_memory")
    return pin is None or is_constant(pin.value, "False")


# -- what a variable holds -------------------------------------------------------
class Values:
    """Assignments and call-site arguments of one file, indexed by variable."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.assigned: dict[Binding, list[cst.BaseExpression]] = {}
        self.unknown: set[Binding] = set()  # bound somewhere we cannot follow
        self._index()

    @classmethod
    def of_file(cls, ctx: FileContext) -> Values:
        """The one `Values` of a file, shared by every rule that asks."""
        return ctx.shared(cls)

    def of(self, expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """Every expression `expr` may have been built from, or None when some
        binding of it cannot be followed. A value that is not a variable (a
        call, a literal) is its own answer."""
        found, complete = self.leaves(expr)
        return found if complete else None

    def leaves(self, expr: cst.BaseExpression, _depth: int = 0) -> tuple[list[cst.BaseExpression], bool]:
        """The expressions `expr` may have been built from that can be followed,
        and whether every binding on the way could be: `s = X() if ddp else None`
        then `s = t` with `t` a parameter of unknown callers gives `[X(), None]`,
        incomplete (enough to know `s` may be None, not what else it is). `None`,
        `True` and `False` are values, not variables."""
        if type(expr) is cst.NamedExpr:  # `(loader := DataLoader(ds))` is the loader it binds
            return self.leaves(expr.value, _depth)
        if type(expr) is cst.IfExp:
            body, body_complete = self.leaves(expr.body, _depth)
            orelse, orelse_complete = self.leaves(expr.orelse, _depth)
            return body + orelse, body_complete and orelse_complete
        if _depth > _MAX_DEPTH:
            return [], False
        if type(expr) not in (cst.Name, cst.Attribute) or is_constant(expr, "None") or is_constant(
                expr, "True") or is_constant(expr, "False"):
            return [expr], True
        binding = self.ctx.receivers.binding(expr)
        if binding is None or binding in self.unknown:
            return [], False
        sources: list[cst.BaseExpression] = list(self.assigned.get(binding, ()))
        arguments = self._parameter_arguments(binding)
        if arguments is None and not sources:
            return [], False
        complete = True
        sources.extend(arguments or ())
        out: list[cst.BaseExpression] = []
        for source in sources:
            values, source_complete = self.leaves(source, _depth + 1)
            out.extend(values)
            complete = complete and source_complete
        return out, complete

    def handed_by_unseen_callers(self, expr: cst.BaseExpression) -> bool:
        """`expr` is a parameter of its function whose callers are not all in the file,
        so it may hold whatever they hand it, whatever the function assigns to it too
        (`def fit(ds, loader=None): if loader is None: loader = DataLoader(ds)`)."""
        binding = self.ctx.receivers.binding(expr) if type(expr) is cst.Name else None
        return (binding is not None and type(binding.owner) is cst.FunctionDef
                and binding.name in named_parameters(binding.owner)  # type: ignore[arg-type]
                and self._parameter_arguments(binding) is None)

    def calls_of(self, expr: cst.BaseExpression, qualified: set[str] | frozenset[str]) -> list[cst.Call] | None:
        """The calls `expr` was built from when every one of them calls one of
        `qualified`; None otherwise."""
        values = self.of(expr)
        if not values:
            return None
        calls = [v for v in values if type(v) is cst.Call and self.ctx.call_name(v) in qualified]
        return calls if len(calls) == len(values) else None

    # -- collection ------------------------------------------------------------
    def _index(self) -> None:
        binders = self.ctx.nodes_of(
            cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.WithItem, cst.NamedExpr
        )
        for node in binders:
            if type(node) is cst.Assign:
                for target in node.targets:
                    self._bind(target.target, node.value)
            elif type(node) is cst.AnnAssign and node.value is not None:
                self._bind(node.target, node.value)
            elif type(node) is cst.AugAssign:
                self._bind(node.target, None)
            elif type(node) in (cst.For, cst.CompFor):
                self._bind(node.target, None)
            elif type(node) is cst.WithItem and node.asname is not None:
                self._bind(node.asname.name, None)
            elif type(node) is cst.NamedExpr:
                self._bind(node.target, None)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._bind(element.value, None)
            return
        if type(target) is cst.StarredElement:
            self._bind(target.value, None)
            return
        binding = self.ctx.receivers.binding(target) if type(target) in (cst.Name, cst.Attribute) else None
        if binding is None:
            return
        if value is None:
            self.unknown.add(binding)
        else:
            self.assigned.setdefault(binding, []).append(value)

    def _parameter_arguments(self, binding: Binding) -> list[cst.BaseExpression] | None:
        func = binding.owner
        if type(func) is not cst.FunctionDef:
            return None
        params = list(_parameters(func.params))
        if binding.name not in {p.name.value for p in params}:
            return None
        sites = self.ctx.call_sites(func)
        if not sites:
            return None
        default = next((p.default for p in params if p.name.value == binding.name), None)
        out: list[cst.BaseExpression] = []
        for call in sites:
            pairs, complete = bound_arguments(self.ctx, call, func)
            value = dict(pairs).get(binding.name)
            if value is None and not complete:
                return None  # `*args` / `**kwargs` may hold it
            if value is None:
                if default is None:
                    return None
                value = default
            out.append(value)  # type: ignore[arg-type]
        return out


UNSEEN = cst.Name("_unseen_")


def argument_for(call: cst.Call, positional: list[str], name: str) -> cst.BaseExpression | None:
    """The argument a call passes for parameter `name`: None when it passes
    none, `UNSEEN` when `*args` / `**kwargs` may hide it."""
    index = 0
    for arg in call.args:
        if arg.star:
            return UNSEEN
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
            continue
        if index < len(positional) and positional[index] == name:
            return arg.value
        index += 1
    return None


def constructor_argument(receivers: Receivers, binding: Binding, parameter: str) -> cst.BaseExpression | None:
    """What the one constructor call bound to `binding` passes for its first
    parameter, `parameter` (a scheduler's `optimizer`, an optimizer's
    `params`); None when the variable was built more than once, or the
    argument is missing or may hide in `*args` / `**kwargs`."""
    built = receivers.constructions.get(binding, [])
    if len(built) != 1:
        return None
    value = argument_for(built[0], [parameter], parameter)
    return None if value is UNSEEN else value


def optimizer_params(receivers: Receivers, optimizer: cst.BaseExpression) -> cst.BaseExpression | None:
    """What the optimizer `optimizer` reads was built on: the `params` its one
    construction passes (`model.parameters()` of `Adam(model.parameters())`)."""
    binding = receivers.binding(optimizer)
    return constructor_argument(receivers, binding, "params") if binding is not None else None


def bound_at(ctx: FileContext, value: cst.CSTNode) -> int:
    """The place in source order where the binding of `value` takes effect: past what
    it evaluates. A `for` (or a node of its target) binds past its iterable, before each
    run of its body; a node of an assignment's or a `with ... as`'s target binds past
    the value (`x = f(x)` reads `x` before binding it); a value assigned (an assignment,
    its expression) binds past its end."""
    child = value
    for node in (value, *ctx.ancestors(value)):
        if type(node) is cst.For and (child is node or child is node.target):
            return ctx.subtree_end(node.iter)
        if type(node) is cst.Assign and any(child is target for target in node.targets):
            return ctx.subtree_end(node.value)
        if type(node) in (cst.AnnAssign, cst.AugAssign, cst.NamedExpr) and child is node.target:  # type: ignore[attr-defined]
            return ctx.subtree_end(node)
        if type(node) is cst.WithItem and child is node.asname:
            return ctx.subtree_end(node.item)
        if isinstance(node, cst.BaseStatement):
            break
        child = node
    return ctx.subtree_end(value)


def _runs_before(ctx: FileContext, value: cst.CSTNode) -> tuple[cst.CSTNode | None, ...]:
    """The blocks whose every run the statement binding `value` precedes: the block
    holding it, for a plain statement; the body, for a `for` binding its target (the
    `for` itself, or a node of its target: bound anew before each run of the body); the
    body, for a `with` binding its items' names (the body runs only once every header
    has), and the block holding it too for its first item's (a later item's may raise
    into an earlier item that suppresses it: `with suppress(E), g() as x:`); the case's
    body, for a capture of a `case` pattern, and, for a `match`'s subject captured whole,
    see `_subject_captured_before`; none for
    any other statement (a branch's test, a loop's iterable, run once before all
    iterations), nor for a name bound where its statement may skip it (see
    `_may_skip`)."""
    child = value
    for node in (value, *ctx.ancestors(value)):
        if _may_skip(node, child):
            return ()
        if type(node) is cst.SimpleStatementLine:
            return (ctx.parent(node),)
        if type(node) is cst.For:
            return (node.body,) if child is node or child is node.target else ()
        if type(node) is cst.With:
            if child is node.items[0]:
                return (node.body, ctx.parent(node))
            return (node.body,) if any(child is item for item in node.items) else ()
        if type(node) is cst.MatchCase:  # a capture in the case's pattern (not its guard's walrus)
            return (node.body,) if child is node.pattern else ()
        if type(node) is cst.Match and child is node.subject:
            return _subject_captured_before(ctx, node)
        if isinstance(node, cst.BaseStatement):
            return ()
        child = node
    return ()


def _subject_captured_before(ctx: FileContext, match: cst.Match) -> tuple[cst.CSTNode | None, ...]:
    """For a `match`'s subject as the value its cases' captures of the whole subject bind
    (`case opt:`, `case SGD() as opt:`; see `Receivers.only_assigned`), the blocks it is
    bound before every run of: those cases' bodies, and the block holding the `match`
    when every case so captures it, by one name, and the last, irrefutable (`case opt:`
    with no guard), is sure to match when no other does. None when the cases capture it
    by several names (which one a value is bound to is not told)."""
    captures = [case for case in match.cases if type(case.pattern) is cst.MatchAs and case.pattern.name is not None]
    if len({case.pattern.name.value for case in captures}) != 1:  # type: ignore[attr-defined]
        return ()
    last = match.cases[-1]
    irrefutable = last.guard is None and type(last.pattern) is cst.MatchAs and last.pattern.pattern is None
    bodies = tuple(case.body for case in captures)
    return (*bodies, ctx.parent(match)) if irrefutable and len(captures) == len(match.cases) else bodies


def _may_skip(node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether `node` may run without evaluating its part `child` (a walrus there may
    not bind): the right operand of `and` / `or`, an arm of `a if c else b`, what a
    comprehension computes for each item (it may have none) and a lambda's body (run
    when called, if ever)."""
    if type(node) is cst.BooleanOperation:
        return child is node.right
    if type(node) is cst.IfExp:
        return child is not node.test
    return child is not node and type(node) in (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)


def always_before(ctx: FileContext, use: cst.CSTNode, values: Sequence[_Node]) -> list[_Node]:
    """The values among `values` bound, in `use`'s function, by a statement that always
    runs before `use`: a plain statement of a block around it, before it, a `for` whose
    body holds `use` (`for x in xs: use(x)`), or a `with` whose body holds it (`with
    f() as x: use(x)`), or whose block does when `x` is its first item's name (see
    `_runs_before`)."""
    function = ctx.enclosing_function(use)
    around = set(ctx.ancestors(use))
    at = ctx.order_index(use)
    return [value for value in values if ctx.enclosing_function(value) is function
            and bound_at(ctx, value) < at  # `use` in it (`x = f(x)`) reads the one before
            and any(block in around for block in _runs_before(ctx, value))]


def reaching(ctx: FileContext, use: cst.BaseExpression, values: Sequence[_Node]) -> list[_Node]:
    """The values bound to a variable (or the calls among them) that may be its value
    at `use`, when all are in `use`'s function: from the last one bound by a statement
    that always runs before `use` (see `always_before`) on, and, in a loop around `use`
    that does not run that statement again before coming back to `use`, those bound
    after it too (`sampler` of a train loader, then taken again for the eval one), the
    binding that reads it included (`total = total + x`: an iteration reads what it
    bound in the one before). A `loss = sum(losses)` after the micro-batch loop does
    not reach its `loss.backward()`, which `loss = criterion(...)` always precedes."""
    function = ctx.enclosing_function(use)
    if len(values) < 2 or any(ctx.enclosing_function(value) is not function for value in values):
        return list(values)
    always = always_before(ctx, use, values)
    if not always:
        return list(values)
    last = max(always, key=lambda value: bound_at(ctx, value))
    start, at = bound_at(ctx, last), ctx.order_index(use)
    loops = [a for a in ctx.ancestors(use) if type(a) in (cst.For, cst.While)
             and ctx.order_index(a) > ctx.order_index(last)  # its way back to `use` does not run `last`
             and (function is None or function in ctx.ancestors(a))]
    return [value for value in values if (start <= bound_at(ctx, value) < at and not _capture_skipped(ctx, value, use))
            or (bound_at(ctx, value) >= at and any(ctx.order_index(loop) < ctx.order_index(value) <= ctx.subtree_end(loop)
                                                   for loop in loops))]


def _capture_skipped(ctx: FileContext, value: cst.CSTNode, use: cst.BaseExpression) -> bool:
    """`value` is a `match`'s subject, bound by its cases' captures of it whole (`case [p]
    as params:`), and no run that reaches `use` bound it: `use` is in another case's body
    or guard, after the captures, no one of which has a guard (one that failed would have
    bound it and gone on), or before them; or `use` follows the `match` and every
    capture's case has no guard and a body that never goes on past the `match` (`return`)."""
    match = ctx.parent(value)
    if type(match) is not cst.Match or value is not match.subject:
        return False
    name = use.value if type(use) is cst.Name else None
    captures = [case for case in match.cases if type(case.pattern) is cst.MatchAs and case.pattern.name is not None
                and (name is None or case.pattern.name.value == name)]
    around = set(ctx.ancestors(use))
    inside = next((case for case in match.cases if case in around), None)
    if inside is not None:
        return inside not in captures and not any(
            case.guard is not None for case in captures if ctx.order_index(case) < ctx.order_index(inside))
    if ctx.order_index(use) > ctx.subtree_end(match):
        return all(case.guard is None and ON not in endings(case.body) for case in captures)
    return False


# -- losses ----------------------------------------------------------------------
def is_loss_function(qualified: str | None) -> bool:
    """`torch.nn.functional.cross_entropy`, `F.mse_loss`, ... (called directly)."""
    if qualified is None or not qualified.startswith("torch.nn.functional."):
        return False
    last = qualified.rsplit(".", 1)[-1]
    return "loss" in last or last in _FUNCTIONAL_LOSSES


# `torch.nn` classes named like losses that return something else: a named tuple
# of the output and the loss
_NOT_A_LOSS_TENSOR = frozenset({"AdaptiveLogSoftmaxWithLoss"})


def is_loss_module(qualified: str | None) -> bool:
    """`torch.nn.CrossEntropyLoss`, `nn.MSELoss`, ... (a class to instantiate)."""
    last = qualified.rsplit(".", 1)[-1] if qualified is not None else ""
    return (
        qualified is not None
        and qualified.startswith("torch.nn.")
        and last.endswith("Loss")
        and not last.startswith("_")
        and last not in _NOT_A_LOSS_TENSOR
    )


def is_loss_call(ctx: FileContext, call: cst.BaseExpression) -> bool:
    """A call that returns a loss tensor: a functional loss, or an instance
    of a `torch.nn` loss module (`criterion(out, y)` where every value of
    `criterion` in the file was built by `nn.CrossEntropyLoss(...)`)."""
    if type(call) is not cst.Call:
        return False
    if is_loss_function(ctx.call_name(call)):
        return True
    if type(call.func) is cst.Call:
        return is_loss_module(ctx.call_name(call.func))  # nn.MSELoss()(a, b)
    if type(call.func) not in (cst.Name, cst.Attribute):
        return False
    if ctx.qualified_name(call.func) is not None or not ctx.shared(_builds_loss_modules):
        return False
    values = Values.of_file(ctx).of(call.func)
    return bool(values) and all(type(v) is cst.Call and is_loss_module(ctx.call_name(v)) for v in values)


def _builds_loss_modules(ctx: FileContext) -> bool:
    """Whether the file instantiates any `torch.nn` loss module: if not, no
    variable can hold one and the (costlier) value index is not needed."""
    return any(
        _last_name(call.func).endswith("Loss") and is_loss_module(ctx.call_name(call))
        for call in ctx.nodes_of(cst.Call)
    )


def _last_name(func: cst.BaseExpression) -> str:
    if type(func) is cst.Attribute:
        return func.attr.value
    return func.value if type(func) is cst.Name else ""


def backward_targets(call: cst.CSTNode, model: SemanticModel | None = None) -> list[cst.BaseExpression]:
    """What a call back-propagates: `X` of `X.backward()` and of
    `S.scale(X).backward()`; given the file's `model`, also the loss of apex's
    `with amp.scale_loss(loss, optimizer) as scaled_loss: scaled_loss.backward()`.
    The arguments of `torch.autograd.backward(...)` are left to the caller (it
    needs qualified names)."""
    receiver = method_call(call, "backward")
    if receiver is None:
        return []
    if scaled_backward_scaler(call) is not None and type(receiver) is cst.Call and receiver.args:
        return [receiver.args[0].value]
    if _backward_owner(receiver) and call.args and call.args[0].keyword is None:  # type: ignore[attr-defined]
        return [call.args[0].value]  # type: ignore[attr-defined]
    scaled = amp_scaled_loss(model, receiver) if model is not None else None
    return [receiver] if scaled is None else [receiver, scaled]


_APEX_SCALE_LOSS = "apex.amp.scale_loss"


def amp_scaled_loss(model: SemanticModel, receiver: cst.BaseExpression) -> cst.BaseExpression | None:
    """`loss` when `receiver` is the name a `with amp.scale_loss(loss, optimizer)
    as scaled_loss:` around it binds (apex): back-propagating the scaled loss
    back-propagates `loss`."""
    if type(receiver) is not cst.Name:
        return None
    for ancestor in model.ancestors(receiver):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
        if type(ancestor) is not cst.With:
            continue
        for item in ancestor.items:  # type: ignore[attr-defined]
            scaling = item.item
            if (item.asname is None or type(item.asname.name) is not cst.Name
                    or item.asname.name.value != receiver.value):
                continue
            if type(scaling) is not cst.Call or model.call_name(scaling) != _APEX_SCALE_LOSS:
                return None  # the innermost `with` binding the name binds something else
            loss = keyword(scaling, "loss")
            positional = [arg for arg in scaling.args if arg.keyword is None and not arg.star]
            return loss.value if loss is not None else positional[0].value if positional else None
    return None


# what a training framework's object that back-propagates the loss it is given is
# called (`accelerator.backward(loss)`, DeepSpeed's `model_engine.backward(loss)`,
# Lightning Fabric's `fabric.backward(loss)`): a tensor's `backward(gradient)` is
# never named so
_BACKWARD_OWNERS = ("accelerator", "engine", "fabric")


def _backward_owner(receiver: cst.BaseExpression) -> bool:
    name = (dotted_name(receiver) or "").rsplit(".", 1)[-1].lower()
    return any(owner in name for owner in _BACKWARD_OWNERS)


def backpropagated_names(ctx: FileContext, body: cst.CSTNode) -> dict[str, bool]:
    """Names back-propagated somewhere in `body` (nested functions excluded),
    each mapped to whether some backward call on it takes no argument (so the
    tensor is a scalar)."""
    found: dict[str, bool] = {}
    for name, scalar, _ in backpropagations(ctx, body):
        found[name] = found.get(name, False) or scalar
    return found


def backpropagations(ctx: FileContext, body: cst.CSTNode) -> Iterator[tuple[str, bool, cst.Call]]:
    """Each name back-propagated in `body` (nested functions excluded), with whether
    that backward call takes no argument (so the tensor is a scalar), and the call."""
    for call in ctx.calls_in_order(body):
        targets = backward_targets(call, ctx)
        if not targets and ctx.call_name(call) == "torch.autograd.backward" and call.args:
            targets = [call.args[0].value]
        for target in targets:
            # `loss.mean().backward()` (per-device losses of DataParallel): the loss is
            # back-propagated, and it need not be one number
            reduced = False
            while (type(target) is cst.Call and not target.args and type(target.func) is cst.Attribute
                   and target.func.attr.value in ("mean", "sum")):
                target, reduced = target.func.value, True
            for operand in _loss_operands(target):
                name = dotted_name(operand)
                if name is not None:
                    no_args = not call.args or scaled_backward_scaler(call) is not None
                    scalar = no_args and not reduced and method_call(call, "backward") is not None
                    yield name, scalar, call


def loss_components(ctx: FileContext, body: cst.CSTNode, losses: Iterable[str]) -> set[str]:
    """Names whose graph is part of a back-propagated loss's: the terms of the
    arithmetic a loss of `losses` is assigned from in `body` (`loss = policy_loss
    + 0.5 * value_loss`: both), or added to it (`loss += lambda_adv * adv_loss`),
    and the terms of theirs."""
    assigned: dict[str, list[cst.BaseExpression]] = {}
    for node in own_nodes(body):
        if type(node) is cst.Assign and type(node.value) in (cst.BinaryOperation, cst.UnaryOperation):
            for target in node.targets:
                name = dotted_name(target.target)
                if name is not None:
                    assigned.setdefault(name, []).append(node.value)
        elif type(node) is cst.AugAssign and type(node.operator) in (cst.AddAssign, cst.SubtractAssign):
            name = dotted_name(node.target)
            if name is not None:
                assigned.setdefault(name, []).append(node.value)
    found: set[str] = set()
    pending = [name for name in losses if name in assigned]
    while pending:
        for value in assigned.get(pending.pop(), ()):
            for operand in _loss_operands(value):
                name = dotted_name(operand)
                if name is not None and name not in found and name not in losses:
                    found.add(name)
                    pending.append(name)
    return found


def _loss_operands(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What a backward pass on `target` back-propagates by name: the target itself, or
    the losses of an arithmetic of them (`(loss / accum_steps).backward()`: the loss,
    not the divisor; `(loss_a + 0.5 * loss_b).backward()`: both losses)."""
    if type(target) is cst.UnaryOperation:
        return _loss_operands(target.expression)
    if type(target) is cst.NamedExpr:  # `(loss := criterion(out, y)).backward()`
        return _loss_operands(target.target)
    if type(target) is not cst.BinaryOperation:
        return [target]
    if type(target.operator) in (cst.Divide, cst.FloorDivide):
        return _loss_operands(target.left)
    if type(target.operator) in (cst.Add, cst.Subtract):
        return [*_loss_operands(target.left), *_loss_operands(target.right)]
    if type(target.operator) is cst.Multiply:  # a weight or a mask is no loss
        if type(target.right) in (cst.Integer, cst.Float):
            return _loss_operands(target.left)
        if type(target.left) in (cst.Integer, cst.Float):
            return _loss_operands(target.right)
        both = [*_loss_operands(target.left), *_loss_operands(target.right)]
        return [operand for operand in both if "loss" in (dotted_name(operand) or "").lower()]
    return []


def names_in(expr: cst.CSTNode, model: SemanticModel | None = None) -> set[str]:
    """Dotted names read anywhere in `expr`; with the `model` of its file,
    read from the model's node list instead of a walk."""
    out: set[str] = set()
    for node in model.subtree(expr) if model is not None else iter_nodes(expr):
        if type(node) is cst.Name or type(node) is cst.Attribute:
            name = dotted_name(node)  # type: ignore[arg-type]
            if name is not None:
                out.add(name)
    return out


# -- DataLoaders -------------------------------------------------------------------
def dataloader_calls(ctx: FileContext) -> Iterator[cst.Call]:
    """Every `torch.utils.data.DataLoader(...)` construction of the file."""
    for node in ctx.nodes_of(cst.Call):
        if ctx.call_name(node) == DATALOADER:
            yield node  # type: ignore[misc]


def iterated_loader(ctx: FileContext, iterable: cst.BaseExpression) -> cst.BaseExpression:
    """The object a `for` loop really iterates: `loader` in `enumerate(loader)`,
    `tqdm(loader, desc=...)` or `enumerate(tqdm(loader), start=1)`."""
    while type(iterable) is cst.Call and iterable.args and not iterable.args[0].keyword:
        name = ctx.call_name(iterable)
        if name is None and type(iterable.func) is cst.Name and iterable.func.value in ("enumerate", "iter"):
            name = iterable.func.value
        if name not in _WRAPPERS:
            break
        iterable = iterable.args[0].value
    return iterable


def wrapped_use(ctx: FileContext, expr: cst.BaseExpression) -> tuple[cst.CSTNode, cst.CSTNode | None]:
    """The outermost of the wrappers `expr` is handed to (`enumerate`, `tqdm`, `iter`:
    see `iterated_loader`), or `expr` itself, and what holds that."""
    node: cst.CSTNode = expr
    parent = ctx.parent(node)
    while (type(parent) is cst.Arg and type(ctx.parent(parent)) is cst.Call
           and iterated_loader(ctx, ctx.parent(parent)) is expr):  # type: ignore[arg-type]
        node = ctx.parent(parent)  # type: ignore[assignment]
        parent = ctx.parent(node)
    return node, parent


def iterated_where_built(ctx: FileContext, call: cst.BaseExpression) -> bool:
    """`call` (a DataLoader built in place, or a name holding one) is what a `for` or a
    comprehension iterates, itself or through `enumerate`, `tqdm`: nothing keeps it."""
    node, parent = wrapped_use(ctx, call)
    return type(parent) in (cst.For, cst.CompFor) and parent.iter is node  # type: ignore[union-attr]


def unpacked(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts an unpacking target (`i, (x, *rest), self.y`) assigns one by one."""
    if type(target) in (cst.Tuple, cst.List):
        return [part for element in target.elements for part in unpacked(element.value)]  # type: ignore[attr-defined]
    if type(target) is cst.StarredElement:
        return unpacked(target.value)
    return [target]


def bound_parts(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The variables and attributes an assignment (plain, annotated, augmented), a `for`,
    a walrus or a `with ... as` binds, one by one (`loader`, `self.loader`, each part of
    `i, (x, y)`); none for any other node."""
    if type(node) is cst.WithItem:
        return unpacked(node.asname.name) if node.asname is not None else []  # type: ignore[arg-type]
    if type(node) not in (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr):
        return []
    return [part for target in assignment_targets(node) for part in unpacked(target)]


def bound_names(node: cst.CSTNode) -> set[str]:
    """The plain names among `bound_parts(node)`."""
    return {part.value for part in bound_parts(node) if type(part) is cst.Name}  # type: ignore[attr-defined]


def target_names(target: cst.BaseExpression) -> set[str]:
    """Names bound by a `for` target or an unpacking (`i, (x, y)`)."""
    return {part.value for part in unpacked(target) if type(part) is cst.Name}
