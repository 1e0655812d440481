"""Where the items of a generator expression run.

A generator is lazy: a model called in one (`(model(x) for x in loader)`) runs
where, and under whatever grad mode, the generator is consumed, not where it is
written. What a function writes around a node runs there when each generator
around it is consumed in place (`sum(...)`, a `for`'s iterable), or bound to a
name that one later statement of the same block surely consumes so (`outs =
(model(x) for x in loader)` then `total = sum(o.sum() for o in outs)`).
"""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.loops import COMPREHENSIONS, lexical_grad_mode
from trainlint.analysis.receivers import Binding
from trainlint.context import FileContext

# builtins that run the generator expression they are handed to the end, there and then
_BUILTIN_CONSUMERS = frozenset({"sum", "list", "tuple", "set", "frozenset", "sorted", "dict", "max", "min", "any",
                                "all"})
# functions that do the same with their first argument (`torch.cat` and `torch.stack` are
# none: they take a tuple or a list, and raise on a generator before running any of it)
_CONSUMING_FUNCTIONS = frozenset({"math.fsum", "math.prod", "statistics.mean", "statistics.fmean",
                                  "statistics.median", "collections.deque", "collections.Counter", "numpy.fromiter"})
_STRINGS = (cst.SimpleString, cst.ConcatenatedString)
# parts of a statement that run whenever the statement does, what they hold included
_ALWAYS_RUN = (cst.Arg, cst.Element, cst.StarredElement, cst.DictElement, cst.StarredDictElement, cst.SubscriptElement,
               cst.Index, cst.Slice, cst.CompFor, cst.AssignTarget, cst.Expr, cst.Assign, cst.AugAssign,
               cst.AnnAssign, cst.Return, cst.SimpleStatementLine)


def consumed_at(ctx: FileContext, node: cst.CSTNode) -> list[cst.BaseStatement] | None:
    """The statements where the generator expressions around `node` in its own function
    (or module code), their first iterables aside, run their items: none where each is
    consumed in place (see `_consumed_in_place`); for one bound to a name that a later
    statement of the same block surely consumes so, under the same grad mode (see
    `_consumed_later`), that statement. None where one is handed on, bound otherwise,
    returned or yielded: its items run wherever, and under whatever grad mode, it is
    consumed (`consume(model(x) for x in loader)`). Other comprehensions run where written."""
    found: list[cst.BaseStatement] = []
    child, below = node, node
    for ancestor in ctx.ancestors(node):
        kind = type(ancestor)
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if kind is cst.GeneratorExp and not (child is ancestor.for_in and below is ancestor.for_in.iter) \
                and not _consumed_in_place(ctx, ancestor):  # type: ignore[attr-defined]
            later = _consumed_later(ctx, ancestor)  # type: ignore[arg-type]
            if later is None:
                return None
            found.extend(later)
        child, below = ancestor, child
    return found


def _consumed_in_place(ctx: FileContext, iterable: cst.BaseExpression) -> bool:
    """`iterable` is iterated where it is written: the first argument of a function that
    consumes it (a builtin: `sum(...)`, `max(..., key=...)`; `" ".join(...)` of a string;
    `math.fsum(...)` and the others of `_CONSUMING_FUNCTIONS`; `outs.extend(...)` of a list
    of the function's own that nothing else gets hold of: see `_unshared_list`), or the
    iterable of a `for` or of a comprehension."""
    parent = ctx.parent(iterable)
    if type(parent) in (cst.For, cst.CompFor):
        return parent.iter is iterable  # type: ignore[attr-defined]
    if type(parent) is not cst.Arg or parent.keyword is not None or parent.star:
        return False
    call = ctx.parent(parent)
    if type(call) is not cst.Call or call.args[0] is not parent:
        return False
    func = call.func
    if type(func) is cst.Name and ctx.receivers.binding(func) is None \
            and ctx.qualified_name(func) in (None, f"builtins.{func.value}"):
        return func.value in _BUILTIN_CONSUMERS
    if type(func) is cst.Attribute and func.attr.value == "join" and type(func.value) in _STRINGS:
        return True
    if type(func) is cst.Attribute and func.attr.value == "extend":
        return _unshared_list(ctx, func.value)
    return ctx.qualified_name(func) in _CONSUMING_FUNCTIONS


def _unshared_list(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    """`expr` is a local name of its function (not a global, a `nonlocal`, a parameter or
    the module's), only ever bound, by plain assignments, to a list (`outs = []`, `outs =
    list(...)`, `outs = [...]`), that is read only to be grown or sorted in place
    (`outs.extend(...)`, `outs.append(...)`), measured or printed (`len(outs)`), or
    returned (what the callers do with it is theirs to judge): no other code gets hold
    of what it holds (`self.preds = outs`, `torch.stack(outs)`, `for o in outs:`)."""
    binding = ctx.receivers.binding(expr) if type(expr) is cst.Name else None
    function = ctx.enclosing_function(expr)
    if binding is None or function is None or binding.owner is not function:
        return False
    values = ctx.receivers.only_assigned(binding)
    if not values or not all(
            type(value) in (cst.List, cst.ListComp) or (
                type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "list"
                and ctx.qualified_name(value.func) in (None, "builtins.list"))
            for value in values):  # type: ignore[union-attr]
        return False
    return all(_kept_in_place(ctx, read) for read in _names_read(ctx, binding))


# methods of a list that change it in place and give nothing of it back
_IN_PLACE_METHODS = frozenset({"append", "extend", "insert", "sort", "reverse", "clear"})
# builtins that read a list and keep nothing of what it holds
_READ_ONLY_BUILTINS = frozenset({"len", "print"})


def _kept_in_place(ctx: FileContext, read: cst.Name) -> bool:
    """`read`, a name of a list, hands none of its items to other code: a plain
    assignment's target, the receiver of a method that changes the list in place, the
    argument of a builtin that keeps nothing (`len(outs)`), or what a `return` gives,
    alone or in a tuple."""
    parent = ctx.parent(read)
    if type(parent) in (cst.AssignTarget, cst.AnnAssign):
        return parent.target is read  # type: ignore[union-attr]
    if type(parent) is cst.Attribute:
        call = ctx.parent(parent)
        return parent.value is read and parent.attr.value in _IN_PLACE_METHODS \
            and type(call) is cst.Call and call.func is parent
    if type(parent) is cst.Arg:
        call = ctx.parent(parent)
        func = call.func if type(call) is cst.Call else None  # type: ignore[union-attr]
        return type(func) is cst.Name and func.value in _READ_ONLY_BUILTINS \
            and ctx.qualified_name(func) in (None, f"builtins.{func.value}")
    if type(parent) is cst.Element and type(ctx.parent(parent)) is cst.Tuple:
        parent = ctx.parent(ctx.parent(parent))  # type: ignore[arg-type]
    return type(parent) is cst.Return


def _names_read(ctx: FileContext, binding: Binding) -> list[cst.Name]:
    """The names of the file that read or bind the variable of `binding`."""
    return [node for node in ctx.receivers.spelled(binding.name)
            if type(node) is cst.Name and ctx.receivers.binding(node) == binding]


def _consumed_later(ctx: FileContext, generator: cst.GeneratorExp) -> list[cst.BaseStatement] | None:
    """Where `generator`, bound alone to a name (`outs = (model(x) for x in loader)`)
    that nothing else binds, runs its items: the one statement after it in its block
    that reads the name, once in all the file, where that read surely runs whenever the
    statement does and is consumed in place (see `_consumed_in_place`) under the same grad
    mode as `generator` (`total = sum(o.sum() for o in outs)`, `list(outs)`, `for o in
    outs:`), and the statements consuming the generators around the read; None otherwise."""
    assign = ctx.parent(generator)
    if type(assign) is not cst.Assign or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return None
    name = assign.targets[0].target
    binding = ctx.receivers.binding(name)
    values = ctx.receivers.only_assigned(binding) if binding is not None else None
    if values is None or len(values) != 1 or values[0] is not generator:
        return None
    reads = [node for node in _names_read(ctx, binding) if node is not name]
    statement = ctx.parent(assign)
    block = ctx.parent(statement) if statement is not None else None
    if len(reads) != 1 or block is None:
        return None
    read = reads[0]
    consumer = _sure_statement(ctx, read, block)  # type: ignore[arg-type]
    siblings = list(block.body)  # type: ignore[attr-defined]
    if consumer is None or siblings.index(consumer) <= siblings.index(statement) \
            or not _consumed_in_place(ctx, read) \
            or lexical_grad_mode(ctx, read) != lexical_grad_mode(ctx, generator):
        return None
    # a comprehension the read is the first iterable of runs where it is consumed in turn
    comprehension = ctx.parent(ctx.parent(read))  # type: ignore[arg-type]
    outer = consumed_at(ctx, comprehension.elt if type(comprehension) is cst.GeneratorExp else read)  # type: ignore[union-attr]
    return None if outer is None else [consumer, *outer]


def _sure_statement(ctx: FileContext, node: cst.CSTNode, block: cst.CSTNode) -> cst.BaseStatement | None:
    """The statement of `block` that holds `node`, where `node` runs whenever that
    statement does: no branch of an `if`, an `and` or an `or` skips it, and it is no
    item of a loop (a `for`'s iterable, or a comprehension's first, runs once), nor part of a
    lambda, an `assert` or a compound statement other than that `for`; None otherwise."""
    child, below = node, node
    for ancestor in ctx.ancestors(node):
        if ancestor is block:
            return child  # type: ignore[return-value]
        kind = type(ancestor)
        if kind is cst.IfExp:
            sure = child is ancestor.test  # type: ignore[attr-defined]
        elif kind is cst.BooleanOperation:
            sure = child is ancestor.left  # type: ignore[attr-defined]
        elif kind in COMPREHENSIONS:
            sure = child is ancestor.for_in and below is ancestor.for_in.iter  # type: ignore[attr-defined]
        elif kind is cst.For:
            sure = child is ancestor.iter  # type: ignore[attr-defined]
        else:
            sure = kind is not cst.Lambda and (isinstance(ancestor, cst.BaseExpression) or kind in _ALWAYS_RUN)
        if not sure:
            return None
        child, below = ancestor, child
    return None
