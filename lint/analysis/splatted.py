"""What a dict of keyword arguments holds, path by path, where it is splatted.

`kwargs = dict(num_workers=4)`, then `kwargs.update(sampler=s, shuffle=False)`
on one branch of an `if` and `kwargs["shuffle"] = True` on the other, then
`DataLoader(ds, **kwargs)`: which keys the call gets depends on the path. The
dict is followed through its function's control flow (`trainlint.analysis.flow`)
from where it is written out (`dict(...)` of keywords, a literal of string
keys) through key writes (`kwargs["k"] = v`), `update(...)` with keywords or a
dict written out, `pop("k")`, `setdefault("k", v)`, `del kwargs["k"]` and
`clear()`. A path on which it is anything else, or goes where it may change
(handed to a function, aliased, a key not written out, a method not listed),
says nothing.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import libcst as cst

from trainlint.analysis.flow import Facts, Flow
from trainlint.analysis.literals import string_value, subscript_key
from trainlint.analysis.receivers import Binding
from trainlint.context import FileContext

# the value a key holds on one path, and the node (the assignment or call) that put it there
Entry = tuple[cst.BaseExpression, cst.CSTNode]

_BUILT = ("",)  # a fact: the dict was written out in this body, on this path
_AT = "@"  # a fact `(_AT, facts)`: the path reached the call, the dict then as `facts` say
_READING = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"})
_EVENTS = (cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)

Effect = Callable[[Facts], Facts]


class Reached(NamedTuple):
    """What the dict holds under the keys asked for on one path to its call,
    with what that path assumed of the conditions it went through."""

    entries: dict[str, Entry]
    assumptions: frozenset[tuple[str, bool]]

    def assumes_false(self, ctx: FileContext, expr: cst.BaseExpression) -> bool:
        """The path went where `expr` is None or false (`if sampler is None:`, or
        around the body of `if sampler is not None:`)."""
        return (ctx.code(expr), False) in self.assumptions


def splatted_entries(ctx: FileContext, call: cst.Call, variable: cst.Name, keys: frozenset[str]) -> list[Reached]:
    """For each path of its function that reaches `call` with the dict `variable`
    (`call`'s `**variable`) followed, the entries it holds under `keys`; no path
    where the dict is not followed (see the module's docstring)."""
    binding = ctx.receivers.binding(variable)
    function = ctx.enclosing_function(call)
    body = function if function is not None else ctx.module
    if binding is None or binding.owner is not body:
        return []
    effects = _effects(ctx, binding, body, keys)
    if effects is None:
        return []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        if node is call:  # what the dict holds here goes on with the path, for its assumptions
            held = frozenset(fact for fact in facts if fact[0] != _AT)
            return held | {(_AT, held)}
        effect = effects.get(id(node))
        if effect is None:
            return facts
        reached = frozenset(fact for fact in facts if fact[0] == _AT)  # kept whatever the dict becomes
        return effect(facts - reached) | reached

    flow = Flow(ctx, transfer, events=lambda node: node is call or id(node) in effects)
    ends = flow.run(body.body if type(body) is cst.FunctionDef else body)  # type: ignore[union-attr, arg-type]
    found: dict[tuple[Facts, frozenset[tuple[str, bool]]], Reached] = {}
    for path in (*ends, *flow.returned):
        held = next((fact[1] for fact in path.facts if fact[0] == _AT), frozenset())
        if _BUILT in held and (held, path.assumptions) not in found:
            entries = {fact[0]: (fact[1], fact[2]) for fact in held if fact != _BUILT}
            found[held, path.assumptions] = Reached(entries, path.assumptions)
    return list(found.values())


def _effects(ctx: FileContext, binding: Binding, body: cst.CSTNode,
             keys: frozenset[str]) -> dict[int, Effect] | None:
    """What each event of `body` that reads or writes the dict does to it, by the
    event's id(); None when a use of it cannot be placed on a path (read by a nested
    function or lambda, or outside any event)."""
    effects: dict[int, Effect] = {}
    for name in ctx.subtree(body):
        if type(name) is not cst.Name or name.value != binding.name or ctx.receivers.binding(name) != binding:
            continue
        if ctx.enclosing_function(name) is not (body if type(body) is cst.FunctionDef else None):
            return None  # a closure's: it runs elsewhere
        found = _effect(ctx, name, keys)
        if found is None:
            continue  # read where it changes nothing: splatted, a key read, a reading method
        node, effect = found
        if node is None:
            return None
        if id(node) in effects:
            effect = _unseen  # the dict used twice by one event (`kwargs = f(kwargs)`)
        effects[id(node)] = effect
    return effects


def _effect(ctx: FileContext, name: cst.Name, keys: frozenset[str]) -> tuple[cst.CSTNode | None, Effect] | None:
    """The event a use of the dict is part of and what it does; None for a use
    that changes nothing."""
    parent = ctx.parent(name)
    if type(parent) is cst.Arg and parent.star == "**" and parent.value is name:
        return None
    if type(parent) is cst.AssignTarget and parent.target is name:
        statement = ctx.parent(parent)
        if type(statement) is cst.Assign and len(statement.targets) == 1:
            return statement, _rebuilt(ctx, statement, keys)
    if type(parent) is cst.Subscript and parent.value is name:
        key = subscript_key(parent)
        above = ctx.parent(parent)
        if type(above) is cst.AssignTarget and above.target is parent:
            statement = ctx.parent(above)
            if key is None:
                return statement, _unseen
            return statement, _updated({key: statement.value}, statement, keys)  # type: ignore[union-attr]
        if type(above) is cst.Del and above.target is parent:
            return above, _unseen if key is None else _removed(key)
        if type(above) is cst.AugAssign and above.target is parent:
            return above, _unseen if key is None or key in keys else _same
        return None  # a key read
    if type(parent) is cst.Attribute and parent.value is name:
        method_call = ctx.parent(parent)
        if type(method_call) is cst.Call and method_call.func is parent:
            return method_call, _method(ctx, parent.attr.value, method_call, keys)
        return None if parent.attr.value in _READING else (_event_of(ctx, name), _unseen)
    return _event_of(ctx, name), _unseen  # handed on, aliased, returned: where it goes, it may change


def _event_of(ctx: FileContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The innermost event a node is part of, in its statement."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in _EVENTS:
            return ancestor
        if isinstance(ancestor, cst.BaseStatement) or type(ancestor) is cst.Lambda:
            return None
    return None


def _method(ctx: FileContext, method: str, call: cst.Call, keys: frozenset[str]) -> Effect:
    if method in _READING:
        return _same
    if method == "clear":
        return lambda facts: frozenset({_BUILT}) if _BUILT in facts else facts
    if any(arg.star for arg in call.args):
        return _unseen
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    key = string_value(first)
    if method == "update":
        written = _written_out(ctx, first) if first is not None else {}
        if written is None or len(call.args) - (first is not None) != sum(arg.keyword is not None for arg in call.args):
            return _unseen
        written.update({arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None})  # type: ignore[union-attr]
        return _updated(written, call, keys)
    if method in ("pop", "__delitem__") and isinstance(key, str):
        return _removed(key)
    if method == "setdefault" and isinstance(key, str) and len(call.args) == 2:
        return _defaulted(key, call.args[1].value, call, keys)
    return _unseen


def _written_out(ctx: FileContext, value: cst.BaseExpression) -> dict[str, cst.BaseExpression] | None:
    """The entries of a dict written out: `dict(k=v, ...)` (keywords only, Python's
    `dict`) or `{"k": v, ...}` (string keys only); None for anything else."""
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict":
        if ctx.receivers.binding(value.func) is not None or ctx.qualified_name(value.func) not in (None, "builtins.dict"):
            return None  # a `dict` of the file's own
        if any(arg.keyword is None for arg in value.args):
            return None
        return {arg.keyword.value: arg.value for arg in value.args}  # type: ignore[union-attr]
    if type(value) is cst.Dict:
        entries: dict[str, cst.BaseExpression] = {}
        for element in value.elements:
            key = string_value(element.key) if type(element) is cst.DictElement else None
            if key is None:
                return None
            entries[key] = element.value
        return entries
    return None


def _same(facts: Facts) -> Facts:
    return facts


def _unseen(facts: Facts) -> Facts:
    return frozenset()


def _rebuilt(ctx: FileContext, statement: cst.Assign, keys: frozenset[str]) -> Effect:
    entries = _written_out(ctx, statement.value)
    if entries is None:
        return _unseen
    built = frozenset({_BUILT} | {(k, v, statement) for k, v in entries.items() if k in keys})
    return lambda facts: built


def _updated(entries: dict[str, cst.BaseExpression], node: cst.CSTNode, keys: frozenset[str]) -> Effect:
    kept = {k: v for k, v in entries.items() if k in keys}

    def update(facts: Facts) -> Facts:
        if not kept or _BUILT not in facts:
            return facts
        return frozenset(f for f in facts if f == _BUILT or f[0] not in kept) | {(k, v, node) for k, v in kept.items()}

    return update


def _removed(key: str) -> Effect:
    return lambda facts: frozenset(f for f in facts if f == _BUILT or f[0] != key)


def _defaulted(key: str, value: cst.BaseExpression, node: cst.CSTNode, keys: frozenset[str]) -> Effect:
    def default(facts: Facts) -> Facts:
        if key not in keys or _BUILT not in facts or any(f != _BUILT and f[0] == key for f in facts):
            return facts
        return facts | {(key, value, node)}

    return default
