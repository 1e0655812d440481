"""Which names each scope of a module binds, collected from statements only.

A full scope analysis walks every expression; rules only need to know what a
name refers to, which is decided by statements: imports, definitions and
assignments. Walking statements and not expressions keeps this pass a small
fraction of the parse time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from trainlint.analysis.literals import string_value
from trainlint.project import member_of

if TYPE_CHECKING:
    from trainlint.context import FileContext

ScopeNode = cst.Module | cst.FunctionDef | cst.ClassDef


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    parent: Scope | None
    # local name -> every qualified name an import binds it to
    imports: dict[str, set[str]] = field(default_factory=dict)
    # names bound here by anything but an import (assignment, def, parameter, ...)
    locals: set[str] = field(default_factory=set)
    # `name = <dotted expression>` assignments, kept so `nn = torch.nn` resolves
    aliases: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # modules of `from m import *`
    star_imports: list[str] = field(default_factory=list)
    # names declared `global` / `nonlocal`: they belong to an outer scope
    declared_outer: set[str] = field(default_factory=set)

    @property
    def is_class(self) -> bool:
        return type(self.node) is cst.ClassDef  # a type check: isinstance() on LibCST's ABCs is slow

    @property
    def is_function(self) -> bool:
        return type(self.node) is cst.FunctionDef


def binding_scope(name: str, scope: Scope) -> Scope | None:
    """The scope whose binding of `name` a read in `scope` sees, as Python looks it
    up: `scope`, then the functions around it and the module (a class body is seen
    only from itself, not from its methods); None where no scope binds it (a
    builtin, a name of a star import)."""
    current: Scope | None = scope
    while current is not None:
        if (current is scope or not current.is_class) and name not in current.declared_outer and (
                name in current.locals or name in current.imports or name in current.aliases):
            return current
        current = current.parent
    return None


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a chain of Name/Attribute nodes, else None."""
    parts: list[str] = []
    # type checks: asked of most expressions, and isinstance() on LibCST's ABCs is slow
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def runs_as_script_only(statement: cst.If) -> bool:
    """`if __name__ == "__main__":`: not run when the module is imported, and run
    after the module-level code before it when the module runs as a script."""
    test = statement.test
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    sides = [test.left, target.comparator]
    return (type(target.operator) is cst.Equal and any(type(s) is cst.Name and s.value == "__name__" for s in sides)
            and any(string_value(s) == "__main__" for s in sides))


def named_scaler(node: cst.BaseExpression) -> bool:
    """`scaler`, `self.grad_scaler`: a name or attribute named for a GradScaler (one whose
    construction the receivers cannot see: a parameter, an attribute set elsewhere)."""
    return "scaler" in (dotted_name(node) or "").rsplit(".", 1)[-1].lower()


def head_name(expr: cst.BaseExpression) -> cst.Name | None:
    """The name an attribute chain starts from (`torch` of `torch.cuda.amp`)."""
    while type(expr) is cst.Attribute:
        expr = expr.value  # type: ignore[attr-defined]
    return expr if type(expr) is cst.Name else None  # type: ignore[return-value]


def bound_arguments(ctx: FileContext, call: cst.Call, func: cst.FunctionDef
                    ) -> tuple[list[tuple[str, cst.BaseExpression]], bool]:
    """The parameter of `func` each argument of `call` goes to, by position or
    keyword, up to the first `*args` / `**kwargs`; and whether there was none. The
    first parameter takes no argument where the call binds it (see
    `binds_first_parameter`), whatever its name."""
    positional = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    if binds_first_parameter(ctx, call, func):
        positional = positional[1:]
    pairs: list[tuple[str, cst.BaseExpression]] = []
    index = 0
    for arg in call.args:
        if arg.star:
            return pairs, False
        if arg.keyword is not None:
            name = arg.keyword.value
        elif index < len(positional):
            name = positional[index]
            index += 1
        else:
            continue
        pairs.append((name, arg.value))
    return pairs, True


def assigned_parts(target: cst.BaseExpression, value: cst.BaseExpression
                   ) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """What each part of an assignment's target is given: `loss, n = (loss.item(), 3)`
    pairs `loss` with `loss.item()`, nested tuples alike; a name or an attribute is
    given the value whole; a part unpacked from anything else (a call's result, a
    starred element) is given None: not one value of its own."""
    if type(target) in (cst.Name, cst.Attribute):
        return [(target, value)]
    if (type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List)
            and len(target.elements) == len(value.elements)  # type: ignore[attr-defined]
            and not any(type(e) is cst.StarredElement for e in (*target.elements, *value.elements))):  # type: ignore[attr-defined]
        return [pair for t, v in zip(target.elements, value.elements)  # type: ignore[attr-defined]
                for pair in assigned_parts(t.value, v.value)]
    return [(target, None)]


def import_from_module(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    module = dotted_name(node.module) if node.module is not None else ""
    return dots + (module or "")


class ScopeTable:
    """Scopes of one module, keyed by the node that opens them."""

    def __init__(self, module: cst.Module) -> None:
        self.module_scope = Scope(module, None)
        self.by_node: dict[ScopeNode, Scope] = {module: self.module_scope}
        # simple-name -> function definitions of this file (for call-site flow)
        self.functions: dict[str, list[cst.FunctionDef]] = {}
        self._collect_block(module.body, self.module_scope)

    def scope_for(self, node: ScopeNode) -> Scope:
        return self.by_node[node]

    def scopes(self) -> Iterator[Scope]:
        return iter(self.by_node.values())

    # -- collection -------------------------------------------------------
    def _collect_block(self, body: object, scope: Scope) -> None:
        for stmt in _statements(body):
            self._collect_statement(stmt, scope)

    def _collect_statement(self, stmt: cst.CSTNode, scope: Scope) -> None:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                self._collect_small(small, scope)
        elif type(stmt) is cst.FunctionDef:
            self._bind_local(scope, stmt.name.value)
            self.functions.setdefault(stmt.name.value, []).append(stmt)
            inner = self._open(stmt, scope)
            for param in _parameters(stmt.params):
                inner.locals.add(param.name.value)
            self._collect_block(stmt.body, inner)
        elif type(stmt) is cst.ClassDef:
            self._bind_local(scope, stmt.name.value)
            self._collect_block(stmt.body, self._open(stmt, scope))
        else:
            self._collect_compound(stmt, scope)

    def _collect_compound(self, stmt: cst.CSTNode, scope: Scope) -> None:
        if type(stmt) is cst.For:
            self._bind_target(scope, stmt.target)
        elif type(stmt) is cst.With:
            for item in stmt.items:
                if item.asname is not None:
                    self._bind_target(scope, item.asname.name)
        elif type(stmt) in (cst.Try, cst.TryStar):
            for handler in stmt.handlers:
                if handler.name is not None:
                    self._bind_target(scope, handler.name.name)
        elif type(stmt) is cst.Match:
            for case in stmt.cases:
                for name in pattern_captures(case.pattern):
                    self._bind_local(scope, name.value)
        for body in _child_blocks(stmt):
            self._collect_block(body, scope)

    def _collect_small(self, small: cst.BaseSmallStatement, scope: Scope) -> None:
        if type(small) is cst.Import:
            for alias in small.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is not None:
                    local = alias.asname.name.value  # type: ignore[union-attr]
                    scope.imports.setdefault(local, set()).add(full)
                else:
                    top = full.split(".")[0]
                    scope.imports.setdefault(top, set()).add(top)
        elif type(small) is cst.ImportFrom:
            module = import_from_module(small)
            if type(small.names) is cst.ImportStar:
                scope.star_imports.append(module)
                return
            for alias in small.names:
                name = dotted_name(alias.name) or ""
                local = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
                scope.imports.setdefault(local, set()).add(member_of(module, name))
        elif type(small) is cst.Assign:
            for target in small.targets:
                self._bind_target(scope, target.target, small.value)
        elif type(small) in (cst.AnnAssign, cst.AugAssign):
            self._bind_target(scope, small.target)
        elif type(small) in (cst.Global, cst.Nonlocal):
            scope.declared_outer.update(n.name.value for n in small.names)

    def _open(self, node: ScopeNode, parent: Scope) -> Scope:
        scope = Scope(node, parent)
        self.by_node[node] = scope
        return scope

    def _bind_local(self, scope: Scope, name: str) -> None:
        if name not in scope.declared_outer:
            scope.locals.add(name)

    def _bind_target(
        self, scope: Scope, target: cst.BaseExpression, value: cst.BaseExpression | None = None
    ) -> None:
        if type(target) is cst.Name:
            if value is not None and dotted_name(value) is not None:
                scope.aliases.setdefault(target.value, []).append(value)
            elif (value is not None and len(arms := alternatives(value)) > 1
                  and all(dotted_name(arm) is not None for arm in arms)):
                # `sampler_class = RandomSampler if single else DistributedSampler`: either
                # (`resolve` names neither, `resolve_all` both)
                scope.aliases.setdefault(target.value, []).extend(arms)
            else:
                self._bind_local(scope, target.value)
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._bind_target(scope, element.value)
        elif type(target) is cst.StarredElement:
            self._bind_target(scope, target.value)


def pattern_captures(pattern: cst.MatchPattern) -> Iterator[cst.Name]:
    """The names a `case` pattern binds: `opt` of `case opt:`, `case SGD() as opt:`,
    `case [opt, *rest]:`, `case Holder(opt=opt):`, `case {"opt": opt, **rest}:`."""
    pending: list[cst.CSTNode] = [pattern]
    while pending:  # without recursion, as deep as a pattern nests
        node = pending.pop()
        if type(node) in (cst.MatchAs, cst.MatchStar) and node.name is not None:  # type: ignore[attr-defined]
            yield node.name  # type: ignore[attr-defined]
        elif type(node) is cst.MatchMapping and node.rest is not None:  # type: ignore[attr-defined]
            yield node.rest  # type: ignore[attr-defined]
        pending += reversed(node.children)


def _parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    yield from params.kwonly_params
    if type(params.star_arg) is cst.Param:
        yield params.star_arg
    if params.star_kwarg is not None:
        yield params.star_kwarg


def _statements(body: object) -> Iterator[cst.CSTNode]:
    if type(body) is cst.Module:
        yield from body.body
    elif type(body) is cst.IndentedBlock:
        yield from body.body
    elif type(body) is cst.SimpleStatementSuite:
        yield cst.SimpleStatementLine(body=body.body)
    elif isinstance(body, list | tuple):
        yield from body


def _child_blocks(stmt: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """The blocks nested directly in a compound statement, in source order."""
    if type(stmt) is cst.If:
        yield stmt.body
        if stmt.orelse is not None:
            if type(stmt.orelse) is cst.If:
                yield from _child_blocks(stmt.orelse)
            else:
                yield stmt.orelse.body
    elif type(stmt) in (cst.For, cst.While):
        yield stmt.body
        if stmt.orelse is not None:
            yield stmt.orelse.body
    elif type(stmt) is cst.With:
        yield stmt.body
    elif type(stmt) in (cst.Try, cst.TryStar):
        yield stmt.body
        for handler in stmt.handlers:
            yield handler.body
        if stmt.orelse is not None:
            yield stmt.orelse.body
        if stmt.finalbody is not None:
            yield stmt.finalbody.body
    elif type(stmt) is cst.Match:
        for case in stmt.cases:
            yield case.body


child_blocks = _child_blocks


def and_operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an `and` chain, in order (`a and b and c`: `[a, b, c]`), or
    `[test]`; without recursion (a chain of thousands of `and`s)."""
    found: list[cst.BaseExpression] = []
    pending = [test]
    while pending:
        node = pending.pop()
        if type(node) is cst.BooleanOperation and type(node.operator) is cst.And:
            pending += (node.right, node.left)
        else:
            found.append(node)
    return found


def alternatives(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The expressions `value` may evaluate to as it is: itself, or each arm of an `if`
    expression or of `or` / `and` (`a or b`, `a if c else b`: `a` and `b`), in order;
    without recursion (a chain of thousands of `and`s is one value)."""
    found: list[cst.BaseExpression] = []
    pending = [value]
    while pending:
        node = pending.pop()
        if type(node) is cst.IfExp:
            pending += (node.orelse, node.body)
        elif type(node) is cst.BooleanOperation:
            pending += (node.right, node.left)
        else:
            found.append(node)
    return found


def argument_slots(call: cst.Call) -> Iterator[tuple[str, cst.Arg]]:
    """Each argument of a call with its slot: `#0` for the first positional
    one, or the keyword. Stops at `*args` / `**kwargs`."""
    index = 0
    for arg in call.args:
        if arg.star:
            return
        if arg.keyword is not None:
            yield arg.keyword.value, arg
        else:
            yield f"#{index}", arg
            index += 1


def is_method(ctx: FileContext, func: cst.FunctionDef) -> bool:
    """`func` is defined in a class body and a call binds its first parameter: `self`
    of a method, `cls` of a classmethod; not a staticmethod, whose parameters are all
    the caller's arguments."""
    if owning_class(ctx, func) is None:
        return False
    return not any(dotted_name(d.decorator) == "staticmethod" for d in func.decorators)


def receiver_name(ctx: FileContext, func: cst.FunctionDef, classes: bool = False) -> str | None:
    """The name a method gives the instance it runs on: its first parameter (`self`, or
    `trainer` of `def evaluate(trainer, loader)` in a class body), whatever it is called;
    None for a staticmethod, a function of a module or of another function, and a method
    with no parameter; for a classmethod (whose first parameter is its class, no
    instance) its `cls` only where `classes` asks for it."""
    if not is_method(ctx, func) or (
            not classes and any(dotted_name(d.decorator) == "classmethod" for d in func.decorators)):
        return None
    positional = (*func.params.posonly_params, *func.params.params)
    return positional[0].name.value if positional else None


def instance_parameter(ctx: FileContext, func: cst.FunctionDef) -> str | None:
    """The name `func` gives an instance it runs on: a method's receiver (see
    `receiver_name`), or the first parameter of a function that a call of the file
    hands a method's instance: a module function a class body takes in as a method,
    called on the instance (`train_step = train_step`, then `self.train_step(x)`), a
    function nested in a method called with its receiver (`helper(self, x)`). None
    for a function no call hands an instance."""
    own = receiver_name(ctx, func)
    if own is not None or is_method(ctx, func):
        return own
    positional = (*func.params.posonly_params, *func.params.params)
    if not positional:
        return None
    first = positional[0].name.value
    for call in ctx.call_sites(func):
        if binds_first_parameter(ctx, call, func):
            instance = call.func.value if type(call.func) is cst.Attribute else None
        else:
            instance = dict(bound_arguments(ctx, call, func)[0]).get(first)
        if type(instance) is cst.Name and receiver_method(ctx, instance) is not None:
            return first
    return None


def receiver_method(ctx: FileContext, expr: cst.BaseExpression, classes: bool = False) -> cst.FunctionDef | None:
    """The method whose instance the name `expr` is bound to where it is read: its
    receiver (see `receiver_name`; a classmethod's class too where `classes` asks for
    it), read in the method or in a function nested in it; None for any other name or
    expression."""
    if type(expr) is not cst.Name:
        return None
    scope = binding_scope(expr.value, ctx.scope_of(expr))
    if scope is None or not scope.is_function:
        return None
    method: cst.FunctionDef = scope.node  # type: ignore[assignment]
    if receiver_name(ctx, method, classes) != expr.value or _bound_by_lambda(ctx, expr):
        return None
    return method


def _bound_by_lambda(ctx: FileContext, name: cst.Name) -> bool:
    """Whether a lambda around `name` (in its function) has a parameter of that name
    (`lambda self: ...` in a method: not the method's; the file's scopes keep no lambdas)."""
    if name.value not in ctx.shared(_lambda_parameter_names):
        return False  # no lambda of the file takes that name: no walk up
    for ancestor in ctx.ancestors(name):
        if type(ancestor) is cst.FunctionDef:
            return False
        if type(ancestor) is cst.Lambda and any(param.name.value == name.value for param in _parameters(ancestor.params)):
            return True
    return False


def _lambda_parameter_names(ctx: FileContext) -> frozenset[str]:
    """The names any lambda of the file takes as parameters."""
    return frozenset(param.name.value for lam in ctx.nodes_of(cst.Lambda)
                     for param in _parameters(lam.params))  # type: ignore[attr-defined]


def as_receiver_path(name: str, receiver: str | None) -> str:
    """`name` as summaries write what a method reaches through its instance: `self`,
    `self.model` for `trainer`, `trainer.model` where `receiver` is `trainer`; other
    names as they are."""
    if receiver is None or receiver == "self" or not (name == receiver or name.startswith(receiver + ".")):
        return name
    return "self" + name[len(receiver):]


def owning_class(ctx: FileContext, func: cst.FunctionDef) -> cst.ClassDef | None:
    """The class whose body defines `func`, also under an `if` / `try` of that body
    (`if torch.cuda.is_available(): def run(self, ...)`); None for a function of a
    module or of another function: the scope the `def` runs in, as the file's scopes know it."""
    scope = ctx.scope_of(func)
    return scope.node if scope.is_class else None  # type: ignore[return-value]


def binds_first_parameter(ctx: FileContext, call: cst.Call, func: cst.FunctionDef) -> bool:
    """`call` of `func` gives its first parameter no argument of its own: a method called
    on an object (`self.run(x)`, `trainer.run(x)`, `super().__init__(x)`), a class made
    (`Trainer(x)` running `__init__`), a classmethod called on its class too
    (`Trainer.build(x)`); not a method called on its class (`Trainer.run(self, x)`), a
    staticmethod or a function."""
    owner = owning_class(ctx, func)
    if owner is None:
        # a function of the module that a class body takes in as a method (`run = run`):
        # reached through an object, it is bound as its `self` parameter says
        positional = (*func.params.posonly_params, *func.params.params)
        return type(call.func) is cst.Attribute and bool(positional) and positional[0].name.value == "self"
    if not is_method(ctx, func):
        return False
    if type(call.func) is not cst.Attribute:
        return func.name.value == "__init__"
    on_class = type(call.func.value) is cst.Name and call.func.value.value == owner.name.value
    return not on_class or any(dotted_name(d.decorator) == "classmethod" for d in func.decorators)


def handed_receiver(ctx: FileContext, call: cst.Call, func: cst.FunctionDef) -> dict[str, cst.Name]:
    """`{first parameter: receiver}` where `call` binds `func`'s first parameter to the
    caller's `self` / `cls`, whatever each calls it (`self._forward(x)` of `def _forward(trainer, x)`): `func`
    names through that parameter what the caller names through its own, whatever the
    parameter is called; empty otherwise (a call on its class hands `self` as an
    argument: see `bound_arguments`)."""
    receiver = call.func.value if type(call.func) is cst.Attribute else None
    positional = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    if (not positional or type(receiver) is not cst.Name or receiver_method(ctx, receiver, classes=True) is None
            or not binds_first_parameter(ctx, call, func)):
        return {}
    return {positional[0]: receiver}


# decorators that change only what a function's first parameter is bound to
_BINDING_DECORATORS = frozenset({"staticmethod", "classmethod"})


def decorated(func: cst.FunctionDef) -> bool:
    """`func` has a decorator that may set a grad mode or wrap it (a `staticmethod` or
    `classmethod` changes only what its first parameter is bound to)."""
    return any(dotted_name(d.decorator) not in _BINDING_DECORATORS for d in func.decorators)


# decorators whose function, called, returns what the function itself returns: a cache of
# its results, or a binding of its first parameter (see `returns_own_value`)
_VALUE_KEEPING_DECORATORS = frozenset({"functools.lru_cache", "functools.cache"})


def returns_own_value(ctx: FileContext, func: cst.FunctionDef) -> bool:
    """A call of `func` returns what its body returns: every decorator, if any, is one
    known to keep that value (`@functools.lru_cache(maxsize=None)`, `@cache`,
    `@staticmethod`); not one that may wrap it (`@pinned`, which may pin a loader)."""
    for decorator in func.decorators:
        named = decorator.decorator.func if type(decorator.decorator) is cst.Call else decorator.decorator
        if dotted_name(named) in _BINDING_DECORATORS and type(decorator.decorator) is not cst.Call:
            continue
        if ctx.qualified_name(named) not in _VALUE_KEEPING_DECORATORS:
            return False
    return True


def named_parameters(function: cst.FunctionDef) -> set[str]:
    """The names of a function's parameters that take one value each (positional-only,
    ordinary, keyword-only; not `*args` / `**kwargs`), `self` of a method included."""
    params = function.params
    return {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}


def assignment_targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """What an assignment (plain, to each of its targets, annotated, augmented), a walrus
    or a `for` binds, as written (`i, (x, y)`: see `unpacked`)."""
    return [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]  # type: ignore[attr-defined]
