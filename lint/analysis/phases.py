"""The code of a function that one call of it runs, when the call fixes a flag.

One epoch function often serves both phases: `def run_epoch(model, loader,
train): model.train() if train else model.eval(); ...; if train:
loss.backward()`. A call that gives the flag a constant (`run_epoch(model,
val_loader, train=False)`, or leaves it to a constant default) never runs the
branches that test it the other way: what that call does is the function
without them, and, where it hands the flag on (`self._run_batch(x, y, train)`),
the functions it calls likewise, under the flags it hands them.
"""

from __future__ import annotations

import ast
from collections import deque
from functools import lru_cache
from typing import Callable, Iterator, NamedTuple

import libcst as cst

from trainlint.analysis.dataflow import bound_names
from trainlint.analysis.guards import given_argument
from trainlint.analysis.literals import constant_text
from trainlint.analysis.loops import mode_switch, train_mode_call
from trainlint.analysis.scopes import bound_arguments, decorated, handed_receiver, named_parameters
from trainlint.analysis.training import final_statement
from trainlint.analysis.walk import children
from trainlint.context import FileContext
from trainlint.summaries import constant_truth

# what a flag holds: a constant as `constant_text` writes it
Flags = dict[str, str]

# how many calls deep a flag handed on is followed
_CALLS_FOLLOWED = 3
def flag_parameters(ctx: FileContext, function: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `function` that an `if` of its own (statement or expression)
    tests for their truth or against a constant (see `names_tested`), or that it hands
    on to such a flag of another function of the file, a few calls deep
    (`self._run_batch(x, y, train)`), and that it never rebinds: the flags a call may fix.
    A function defined in another has those of the outer one's that it reads as they are
    (see `free_flags`): the outer one's call fixes them, and hands them on when it calls it."""
    return _flags_within(ctx, function, 0)


def _flags_within(ctx: FileContext, function: cst.FunctionDef, depth: int) -> frozenset[str]:
    """`flag_parameters` of `function` reached `depth` calls in, kept per file: the
    functions of a file call one another often, each asked again at every call."""
    memo = ctx.shared(_flags_memo)
    found = memo.get((function, depth))
    if found is None:
        tested, handed = _flag_sources(ctx, function)
        if depth < _CALLS_FOLLOWED:
            tested = tested | {mine for callee, given in handed for name in _flags_within(ctx, callee, depth + 1)
                               if (mine := given.get(name)) is not None}
        found = memo[(function, depth)] = tested
    return found


def _flags_memo(ctx: FileContext) -> dict[tuple[cst.FunctionDef, int], frozenset[str]]:
    return {}


_Sources = tuple[frozenset[str], tuple[tuple[cst.FunctionDef, dict[str, str]], ...]]


def _flag_sources(ctx: FileContext, function: cst.FunctionDef) -> _Sources:
    """The parameters of `function`, never rebound, that an `if` of its own tests (see
    `names_tested`); and
    the functions of the file it hands such parameters on to as they are, each with
    which of its own parameters each of theirs is given (`train` for `update` of a
    `step(model, batch, update=train)`): read once per function, kept per file."""
    memo = ctx.shared(_sources_memo)
    found = memo.get(function)
    if found is None:
        own = ctx.own_nodes(function.body)
        params = named_parameters(function) - rebound_names(ctx, function)
        tested = {name for branch in own if type(branch) in (cst.If, cst.IfExp)
                  for name in names_tested(branch.test)}  # type: ignore[attr-defined]
        nested = {kid.name.value for node in own for kid in children(node) if type(kid) is cst.FunctionDef}  # type: ignore[attr-defined]
        # only calls handed a parameter as it is, or of a function defined here (which may
        # read one), are followed: the rest hand on no flag
        handed = tuple((callee, given) for node in own if type(node) is cst.Call
                       and (any(type(arg.value) is cst.Name and arg.value.value in params for arg in node.args)
                            or (type(node.func) is cst.Name and node.func.value in nested))
                       and (callee := _followed_callee(ctx, node, function)) is not None
                       and (given := _parameters_handed(ctx, node, callee, params)))
        found = memo[function] = (frozenset((params | free_flags(ctx, function)) & tested), handed)
    return found


def _sources_memo(ctx: FileContext) -> dict[cst.FunctionDef, _Sources]:
    return {}


def free_flags(ctx: FileContext, function: cst.FunctionDef) -> frozenset[str]:
    """The parameters of the function that `function` is defined in (`phase` of a `def
    run_epoch(model, loader, phase)` around a `def step(loss): if phase == "train":
    loss.backward()`) that `function` reads as they are: not parameters of its own, bound
    again by neither function, nor declared `nonlocal` or `global` anywhere in the outer one."""
    outer = ctx.parent(ctx.parent(function))  # the `IndentedBlock`, then the `FunctionDef`
    if type(outer) is not cst.FunctionDef:
        return frozenset()
    declared = {name.name.value for node in ctx.subtree(outer.body) if type(node) in (cst.Nonlocal, cst.Global)
                for name in node.names}  # type: ignore[attr-defined]
    return frozenset(named_parameters(outer) - named_parameters(function) - rebound_names(ctx, outer)
                     - rebound_names(ctx, function) - declared)  # type: ignore[arg-type]


def _reads_from(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef) -> frozenset[str]:
    """The flags `callee` reads from the function `call` is made in: its `free_flags`,
    where it is defined in that function and its name is not bound again there (`step =
    step2`: the call may run another function)."""
    caller = ctx.enclosing_function(call)
    if ctx.parent(ctx.parent(callee)) is not caller or callee.name.value in rebound_names(ctx, caller):  # type: ignore[arg-type]
        return frozenset()
    return free_flags(ctx, callee)


def _parameters_handed(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef, params: set[str]
                       ) -> dict[str, str]:
    """The parameters of `callee` that `call` gives one of `params` as it is, with it; and
    those of the caller's parameters that `callee`, defined in the caller, reads as they are."""
    return {name: given.value for name in named_parameters(callee)
            if type(given := given_argument(ctx, call, callee, name)) is cst.Name and given.value in params
            } | {name: name for name in _reads_from(ctx, call, callee) if name in params}


def _followed_callee(ctx: FileContext, call: cst.Call, caller: cst.FunctionDef) -> cst.FunctionDef | None:
    """The function of the file that `call` runs, when a flag handed on to it is
    followed: not the caller itself, nor one with a decorator that may wrap it (a
    `staticmethod` or `classmethod` only binds its first parameter otherwise)."""
    callee = ctx.local_callee(call)
    return None if callee is None or callee is caller or decorated(callee) else callee


def fixed_flags(ctx: FileContext, call: cst.Call, function: cst.FunctionDef, params: frozenset[str],
                held: Flags | None = None) -> Flags:
    """The flags `params` of `function` (see `flag_parameters`) that `call` gives a
    constant: written in the call or, where the call leaves the parameter out (and
    unpacks nothing that may hold it), its constant default; or a flag of the caller's
    that `held` fixes, handed on (`self._run_batch(x, y, train)`)."""
    flags: Flags = {}
    read = _reads_from(ctx, call, function) if held else frozenset()
    for name in params:
        if name in read:  # the caller's own flag, read by a function defined in it
            text = held.get(name)  # type: ignore[union-attr]
        else:
            given = given_argument(ctx, call, function, name)
            text = constant_text(given)
            if text is None and held and type(given) is cst.Name:
                text = held.get(given.value)
        if text is not None:
            flags[name] = text
    return flags


class Ran(NamedTuple):
    """A node that a call of a function run under flags runs: the flags it runs under, the
    calls it runs through, outermost first, that hand a flag on (none: the function's own
    node), what the names of its function stand for in the called function's terms (see
    `in_callers_terms`; None: they are its own), and whether it is a call whose function
    the walk followed, under the flags it hands on."""

    node: cst.CSTNode
    flags: Flags
    calls: tuple[cst.Call, ...]
    names: dict[str, str] | None
    followed: bool = False


def run_under(ctx: FileContext, function: cst.FunctionDef, flags: Flags,
              flags_of: Callable[[cst.FunctionDef], frozenset[str]]) -> Iterator[Ran]:
    """The code of `function` that runs under `flags` (see `ruled_out`), and, a few calls
    deep, that of the functions of the file (see `_followed_callee`) it hands a flag on
    to, under the flags it so fixes (`self._run_batch(x, y, train)` of a `_run_batch(self,
    x, y, train)`). `flags_of`: the flags of a function that a call may fix. Functions
    are walked nearest first, from `function` itself, each once under the same flags
    and names: reached again through other calls, its code runs the same and its calls
    are followed alike (functions that call one another would otherwise be walked once
    per path)."""
    walked: set[tuple[cst.FunctionDef, frozenset[tuple[str, str]], frozenset[tuple[str, str]]]] = set()
    queue: deque[tuple[cst.FunctionDef, Flags, dict[str, str] | None, tuple[cst.Call, ...]]] = deque(
        [(function, flags, None, ())])
    while queue:
        walking, held, names, calls = queue.popleft()
        for node in _kept(ctx, walking, held):
            callee = _followed_callee(ctx, node, walking) if type(node) is cst.Call else None
            params = flags_of(callee) if callee is not None and len(calls) < _CALLS_FOLLOWED else frozenset()
            handed = fixed_flags(ctx, node, callee, params, held) if params else {}  # type: ignore[arg-type]
            yield Ran(node, held, calls, names, bool(handed))
            if not handed:
                continue
            inner = _composed(_names_handed(ctx, node, callee), names)  # type: ignore[arg-type]
            reached = (callee, frozenset(handed.items()), frozenset(inner.items()))
            if reached not in walked:
                walked.add(reached)  # type: ignore[arg-type]
                queue.append((callee, handed, inner, (*calls, node)))  # type: ignore[arg-type]


def _kept(ctx: FileContext, function: cst.FunctionDef, flags: Flags) -> list[cst.CSTNode]:
    """The nodes of `function`'s own code that `flags` do not rule out (see `ruled_out`),
    kept per file: many calls run the same function under the same flags."""
    memo = ctx.shared(_kept_memo)
    key = (function, frozenset(flags.items()))
    found = memo.get(key)
    if found is None:
        found = memo[key] = [node for node in ctx.own_nodes(function.body) if not ruled_out(ctx, node, flags)]
    return found


def _kept_memo(ctx: FileContext) -> dict[tuple[cst.FunctionDef, frozenset[tuple[str, str]]], list[cst.CSTNode]]:
    return {}


def in_callers_terms(ran: Ran, text: str) -> str | None:
    """`text`, an expression as `ran`'s function writes it (`self.model`, `model`), as the
    function first called writes it; None when it starts from a name no call hands on."""
    return text if ran.names is None else _translated(text, ran.names)


def as_caller_writes(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef, text: str) -> str | None:
    """`text`, an expression as `callee` writes it on entry (`self.model`, `model`), as the code
    making `call` writes it; None when it starts from a name the call does not hand on."""
    return _translated(text, _names_handed(ctx, call, callee))


def _names_handed(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef) -> dict[str, str]:
    """The parameters of `callee` that `call` hands a name or an attribute, with its code;
    and the first parameter of a method called on `self` (`self._run_batch(...)`), with
    `self` (see `handed_receiver`)."""
    names = {param: ctx.code(value) for param, value in bound_arguments(ctx, call, callee)[0]
             if type(value) in (cst.Name, cst.Attribute)}
    return names | {param: receiver.value for param, receiver in handed_receiver(ctx, call, callee).items()}


def _composed(inner: dict[str, str], outer: dict[str, str] | None) -> dict[str, str]:
    """What the names of a function called further in stand for in the first caller's
    terms, given what those of its caller stand for (None: they are the first caller's)."""
    if outer is None:
        return inner
    return {name: found for name, text in inner.items() if (found := _translated(text, outer)) is not None}


def _translated(text: str, names: dict[str, str]) -> str | None:
    head, dot, rest = text.partition(".")
    return names[head] + dot + rest if head in names else None


def rebound_names(ctx: FileContext, function: cst.FunctionDef) -> frozenset[str]:
    """The names `function`'s own code binds (assigns, loops over, enters `with` as),
    kept per file: asked of a caller at each of its calls (see `_reads_from`)."""
    memo = ctx.shared(_rebound_memo)
    found = memo.get(function)
    if found is None:
        found = memo[function] = frozenset(name for node in ctx.own_nodes(function.body)
                                           for name in bound_names(node))
    return found


def _rebound_memo(ctx: FileContext) -> dict[cst.FunctionDef, frozenset[str]]:
    return {}


def truth(test: cst.BaseExpression, flags: Flags) -> bool | None:
    """Whether `test` holds while the names of `flags` hold their constants: a flag
    (`train`), its negation, `and` / `or` of such, an equality of a flag with a
    constant (`phase == "train"`, `mode != "eval"`) or its identity with `True`,
    `False` or `None` (`is_train is True`, `optimizer is not None`); None when it
    depends on more."""
    if type(test) is cst.Name and test.value in flags:
        return constant_truth(flags[test.value])
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = truth(test.expression, flags)
        return None if inner is None else not inner
    if type(test) is cst.BooleanOperation:
        left, right = truth(test.left, flags), truth(test.right, flags)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else (True if left is right is True else None)
        return True if True in (left, right) else (False if left is right is False else None)
    compared = _compared(test)
    if compared is None or compared[0] not in flags:
        return None
    flag, other, holds = compared
    if other in _SINGLETONS and type(test.comparisons[0].operator) in (cst.Is, cst.IsNot):  # type: ignore[attr-defined]
        same: bool | None = flags[flag] == other  # one object of each: the same text is the same object
    else:
        same = _equal_constants(flags[flag], other)
    return None if same is None else same is holds


def names_tested(test: cst.BaseExpression) -> set[str]:
    """The names whose constants `truth` reads in `test`: tested for their truth
    (`train`, `not train`, `train and x`) or compared with a constant (`phase ==
    "train"`, `is_train is True`), not any name of the test (`x > threshold`,
    `isinstance(train, bool)` test something else)."""
    if type(test) is cst.Name and constant_text(test) is None:
        return {test.value}
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return names_tested(test.expression)
    if type(test) is cst.BooleanOperation:
        return names_tested(test.left) | names_tested(test.right)
    compared = _compared(test)
    return {compared[0]} if compared is not None else set()


# what `is` / `is not` may compare a flag with: objects Python keeps one of each
_SINGLETONS = frozenset({"True", "False", "None"})


def _compared(test: cst.BaseExpression) -> tuple[str, str, bool] | None:
    """(name, constant, whether the test holds when they are equal) of a comparison of a
    name with a constant: `==` / `!=`, or `is` / `is not` with `True`, `False`, `None`."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    comparison = test.comparisons[0]
    sides = (test.left, comparison.comparator)
    name = next((side.value for side in sides if type(side) is cst.Name and constant_text(side) is None), None)
    other = next((text for side in sides if (text := constant_text(side)) is not None), None)
    operator = type(comparison.operator)
    if name is None or other is None:
        return None
    if operator in (cst.Equal, cst.NotEqual):
        return name, other, operator is cst.Equal
    if operator in (cst.Is, cst.IsNot) and other in _SINGLETONS:
        return name, other, operator is cst.Is
    return None


@lru_cache(maxsize=1024)  # `literal_eval` is slow (see `trainlint.analysis.literals`); few constants recur
def _equal_constants(left: str, right: str) -> bool | None:
    """Whether two constants, as `constant_text` writes them, are equal as Python compares
    them (`1 == True`, `1 == 1.0`); None when one cannot be read back (`inf`)."""
    try:
        return bool(ast.literal_eval(left) == ast.literal_eval(right))
    except (ValueError, SyntaxError):
        return None


def ruled_out(ctx: FileContext, node: cst.CSTNode, flags: Flags) -> bool:
    """`node` lies, within its function, in a branch that `flags` make the code skip:
    the body of an `if` whose test they make false, its `else` where they make it
    true, an arm of an `if` expression likewise, or the rest of a block after an `if`
    they make true that leaves it (`if not train: continue`)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return False
        if type(ancestor) is cst.IndentedBlock and any(
                _leaves(statement, flags) for statement in ancestor.body[:ancestor.body.index(child)]):
            return True
        if type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test:  # type: ignore[attr-defined]
            held = truth(ancestor.test, flags)  # type: ignore[attr-defined]
            if held is not None and (child is ancestor.body) is not held:  # type: ignore[attr-defined]
                return True
        child = ancestor
    return False


def fixed_mode(ctx: FileContext, node: cst.CSTNode, flags: Flags) -> tuple[cst.BaseExpression, bool] | None:
    """The model `node` switches, and to which mode (True: train), when it runs under
    `flags`: `model.eval()`, `model.train(train)` of a flag, an arm of `model.train()
    if train else model.eval()` that they choose. None for anything else, or a switch
    they leave unknown."""
    switch = mode_switch(ctx, node)
    written = train_mode_call(node)
    if switch is None or written is None or ruled_out(ctx, node, flags):
        return None
    if written[1] is not None:
        return written[0], written[1]
    held = truth(node.args[0].value, flags) if type(node) is cst.Call and node.args else None
    return None if held is None else (written[0], held)


def _leaves(statement: cst.BaseStatement, flags: Flags) -> bool:
    """`statement` is an `if` with no `else`, that `flags` make true, leaving the block."""
    return (type(statement) is cst.If and statement.orelse is None and leaves_block(statement)
            and truth(statement.test, flags) is True)


def leaves_block(statement: cst.If) -> bool:
    """The body of the `if` ends by leaving the block around it (`continue`, `break`,
    `return`, `raise`), on lines of its own or on the `if`'s line (`if not update: return loss.item()`)."""
    return type(final_statement(statement.body)) in (cst.Continue, cst.Break, cst.Return, cst.Raise)
