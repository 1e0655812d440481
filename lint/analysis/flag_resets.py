"""Whether a flag turned off stays off until a statement runs.

`if not args.cuda: args.fp16 = False` before `if args.fp16: model.half()` means
the conversion runs only with CUDA, as long as nothing sets `args.fp16` again, nor
changes `args.cuda`, in between. A flag is set the ways Python sets an attribute: `args.fp16 = value`,
`setattr(args, "fp16", value)`, `vars(args)["fp16"] = value` or
`args.__dict__["fp16"] = value`. A write whose attribute is not written out
(`setattr(args, key, value)`) may set any flag or none: it is not counted, so a
rule that relies on the reset stays silent rather than guess; so is a call of code
out of reach given the object.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trainlint.analysis.dataflow import unpacked
from trainlint.analysis.literals import constant_text, string_value
from trainlint.analysis.phases import rebound_names
from trainlint.analysis.scopes import (
    and_operands, argument_slots, binding_scope, binds_first_parameter, bound_arguments, dotted_name,
)
from trainlint.context import FileContext


@dataclass(frozen=True)
class FlagWrite:
    """`owner.attribute = value`, however it is written."""

    owner: cst.BaseExpression
    attribute: str
    value: cst.BaseExpression


@dataclass(frozen=True)
class _Watched:
    """What undoes a reset if code after it writes it: the flag, or what it is read from
    (`args.fp16`, `args`), given a value other than `False`; and what the reset's test
    reads (`args.cuda`, `args`), given any value, after which the flag still on no
    longer tells that the test held."""

    flag: frozenset[str]
    test: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.flag or self.test)

    def undone_by(self, written: str, value: str | None) -> bool:
        """Whether writing `value` (as `constant_text` writes it; None: a value that is not
        a constant, or not written out) to `written` undoes it."""
        return written in self.test or (written in self.flag and value != "False")


def pinning_writes(ctx: FileContext) -> list[tuple[cst.CSTNode, cst.BaseExpression]]:
    """Each write of `pin_memory` of the file that may turn it on, with the object written:
    `loader.pin_memory = True`, `setattr(loader, "pin_memory", flag)`; not `= False`."""
    if "pin_memory" not in ctx.source:
        return []
    writes = (flag_write(ctx, node) for node in (*ctx.nodes_of(cst.Assign), *ctx.nodes_of(cst.Call)))
    return [(write.value, write.owner) for write in writes
            if write is not None and write.attribute == "pin_memory" and constant_text(write.value) != "False"]


def flag_write(ctx: FileContext, node: cst.CSTNode) -> FlagWrite | None:
    """The flag a one-target assignment or a `setattr` call sets, when its attribute is
    written out."""
    if type(node) is cst.Assign and len(node.targets) == 1:
        written = written_attribute(node.targets[0].target)
        return FlagWrite(*written, node.value) if written is not None else None
    if (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "setattr"
            and len(node.args) == 3 and not any(arg.star or arg.keyword for arg in node.args)):
        attribute = string_value(node.args[1].value)
        return FlagWrite(node.args[0].value, attribute, node.args[2].value) if attribute is not None else None
    return None


def written_attribute(target: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """The object and attribute an assignment target sets: `args.fp16`, and
    `vars(args)["fp16"]` or `args.__dict__["fp16"]`, which set the same attribute."""
    if type(target) is cst.Attribute:
        return target.value, target.attr.value
    if type(target) is not cst.Subscript or len(target.slice) != 1 or type(target.slice[0].slice) is not cst.Index:
        return None
    key = string_value(target.slice[0].slice.value)
    holder = target.value
    if key is None:
        return None
    if (type(holder) is cst.Call and type(holder.func) is cst.Name and holder.func.value == "vars"
            and len(holder.args) == 1 and not holder.args[0].star and holder.args[0].keyword is None):
        return holder.args[0].value, key
    if type(holder) is cst.Attribute and holder.attr.value == "__dict__":
        return holder.value, key
    return None


def flag_text(ctx: FileContext, write: FlagWrite) -> str:
    """`args.fp16`, as a test of the flag reads it."""
    return f"{ctx.code(write.owner)}.{write.attribute}"


def implied_by_turning_off(ctx: FileContext, statement: cst.CSTNode, tests: set[str]) -> set[str]:
    """The tests that hold whenever a flag among `tests` is still on at `statement`,
    because its code body turned the flag off before it where they fail
    (Transformer-XL's `if args.fp16: if not args.cuda: args.fp16 = False`: `args.fp16`
    then means `args.cuda`), and nothing may turn it back on in between."""
    implied: set[str] = set()
    at = ctx.order_index(statement)
    for reset in (*ctx.nodes_of(cst.Assign), *ctx.nodes_of(cst.Call)):
        if ctx.order_index(reset) >= at:
            continue
        write = flag_write(ctx, reset)
        if write is None:
            if type(reset) is cst.Call and _runs_before(ctx, reset, statement):
                implied |= _implied_by_helper(ctx, reset, statement, tests)
            continue
        flag = flag_text(ctx, write)
        needed = _needed_to_stay_on(ctx, reset, flag)
        watched = _Watched(_flag_and_owners(ctx, write), _read_by(ctx, needed))
        if (constant_text(write.value) == "False" and flag in tests
                and _code_body(ctx, reset) is _code_body(ctx, statement)
                and not _written_after(ctx, reset, statement, watched)):
            implied |= {ctx.code(test) for test in needed}
    return implied


def _runs_before(ctx: FileContext, call: cst.Call, statement: cst.CSTNode) -> bool:
    """`call`, before `statement`, is a statement of its own in the same code body, under
    no `if`, loop or `with`: it runs whenever `statement` does."""
    if _code_body(ctx, call) is not _code_body(ctx, statement):
        return False
    for ancestor in ctx.ancestors(call):
        if type(ancestor) in (cst.FunctionDef, cst.Module):
            return True
        if type(ancestor) not in (cst.Expr, cst.SimpleStatementLine, cst.IndentedBlock):
            return False
    return False


def _implied_by_helper(ctx: FileContext, call: cst.Call, statement: cst.CSTNode, tests: set[str]) -> set[str]:
    """The tests implied by a reset that the one function of the file `call` runs makes
    (`check_args(args)`, `def check_args(cfg): if not cfg.cuda: cfg.fp16 = False`), read
    as the caller writes them (`args.cuda`): each a dotted name of the object handed
    over, through a parameter the function never binds again, or of the same
    module-level one, with no `return` before the reset, nothing after it in the
    function, nor between the call and `statement`, that may set the flag again or
    change what the test reads."""
    funcs = ctx.functions_called(call)
    if len(funcs) != 1:
        return set()
    func = funcs[0]
    handed = _handed(ctx, call, func)
    implied: set[str] = set()
    for reset in ctx.own_nodes(func.body):
        write = flag_write(ctx, reset) if type(reset) in (cst.Assign, cst.Call) else None
        if type(reset) is cst.Return:
            break  # a reset after it may not run
        owner = dotted_name(write.owner) if write is not None else None
        if write is None or owner is None or constant_text(write.value) != "False":
            continue
        flag = _caller_text(ctx, f"{owner}.{write.attribute}", handed, call, func)
        own_tests = _needed_to_stay_on(ctx, reset, flag_text(ctx, write))
        needed = [_caller_text(ctx, dotted_name(test) or "", handed, call, func) for test in own_tests]
        if flag not in tests or not needed or None in needed:
            continue
        rest = ctx.nodes()[ctx.order_index(reset) + 1 : ctx.subtree_end(func) + 1]
        inside = _Watched(_flag_and_owners(ctx, write), _read_by(ctx, own_tests))
        if any(_may_write(ctx, node, inside) for node in rest):
            continue
        read = frozenset().union(*(_dotted_and_owners(test) for test in needed))  # type: ignore[arg-type]
        if not _written_after(ctx, call, statement, _Watched(_dotted_and_owners(flag), read)):
            implied |= set(needed)  # type: ignore[arg-type]
    return implied


def _handed(ctx: FileContext, call: cst.Call, func: cst.FunctionDef) -> list[tuple[str, str]]:
    """(parameter, the caller's dotted name given it) for each dotted name `call` hands
    `func`, the object a method runs on included, through a parameter `func` never binds
    again: one it binds (`cfg = copy.copy(cfg)`, `for cfg in others:`, `cuda =
    detect_cuda()`) may hold something else than the caller's when the reset runs."""
    pairs = [(param, dotted_name(arg)) for param, arg in bound_arguments(ctx, call, func)[0]]
    positional = (*func.params.posonly_params, *func.params.params)
    if type(call.func) is cst.Attribute and positional and binds_first_parameter(ctx, call, func):
        pairs.append((positional[0].name.value, dotted_name(call.func.value)))
    rebound = rebound_names(ctx, func)
    return [(param, given) for param, given in pairs if given is not None and param not in rebound]


def _caller_text(ctx: FileContext, text: str, handed: list[tuple[str, str]], call: cst.Call,
                 func: cst.FunctionDef) -> str | None:
    """A dotted name read in `func` (`cfg.cuda`) as the caller of `call` writes it
    (`args.cuda`): through the parameter it is handed to, or the same module-level name
    where neither binds it; None for anything else (a local of `func`, not a dotted name)."""
    root, dot, rest = text.partition(".")
    if not root:
        return None
    for param, given in handed:
        if root == param:
            return given + dot + rest
    module = ctx.scopes.module_scope
    if (binding_scope(root, ctx.scopes.scope_for(func)) in (module, None)
            and binding_scope(root, ctx.scope_of(call)) in (module, None)):
        return text
    return None


def _dotted_and_owners(flag: str) -> frozenset[str]:
    """`args.fp16` and what it is read from: `args`."""
    parts = flag.split(".")
    return frozenset(".".join(parts[:end]) for end in range(1, len(parts) + 1))


def _needed_to_stay_on(ctx: FileContext, reset: cst.CSTNode, flag: str) -> list[cst.BaseExpression]:
    """What must hold for `flag` to stay on past `reset` (`flag = False`): the one
    condition its `if`s deny (`if not args.cuda:`, or the test of an `if` whose `else`
    holds it), when every other condition around it is the flag itself and nothing
    but `if`s stands between it and its code body (not a loop, which may not run);
    [] otherwise."""
    denied: list[cst.BaseExpression] = []
    child: cst.CSTNode = reset
    for ancestor in ctx.ancestors(reset):
        if type(ancestor) in (cst.FunctionDef, cst.Module):
            break
        if type(ancestor) is cst.If and child is ancestor.body:
            for operand in and_operands(ancestor.test):
                if type(operand) is cst.UnaryOperation and type(operand.operator) is cst.Not:
                    denied.append(operand.expression)
                elif ctx.code(operand) != flag:
                    return []
        elif type(ancestor) is cst.If:
            denied.append(ancestor.test)
        # `cst.Expr`: the statement a `setattr(...)` reset is
        elif type(ancestor) not in (cst.SimpleStatementLine, cst.IndentedBlock, cst.Else, cst.Expr):
            return []
        child = ancestor
    return and_operands(denied[0]) if len(denied) == 1 else []


def _code_body(ctx: FileContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The function, lambda or class body `node` runs in; None at module level."""
    return next((a for a in ctx.ancestors(node) if type(a) in (cst.FunctionDef, cst.Lambda, cst.ClassDef)), None)


def _written_after(ctx: FileContext, reset: cst.CSTNode, statement: cst.CSTNode, watched: _Watched) -> bool:
    """Whether code after `reset` may undo it before `statement` runs: a write of the
    flag (other than `False`) or of the object it is an attribute of (`args = ...`), or
    one of what its test reads (`args.cuda = False`), there or in a function of the
    file called there (given the object, or reading the same module-level one), also
    later in a loop around `statement` (its next turn runs it again)."""
    end = ctx.order_index(statement)
    for ancestor in ctx.ancestors(statement):
        if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            break
        if type(ancestor) in (cst.For, cst.While):
            end = ctx.subtree_end(ancestor)
    between = ctx.nodes()[ctx.order_index(reset) + 1 : end + 1]
    return any(_may_write(ctx, node, watched) for node in between)


def _flag_and_owners(ctx: FileContext, write: FlagWrite) -> frozenset[str]:
    """`args.fp16` and what it is read from: `args`."""
    owners = {flag_text(ctx, write)}
    target = write.owner
    owners.add(ctx.code(target))
    while type(target) in (cst.Attribute, cst.Subscript):
        target = target.value  # type: ignore[attr-defined]
        owners.add(ctx.code(target))
    return frozenset(owners)


def _read_by(ctx: FileContext, tests: list[cst.BaseExpression]) -> frozenset[str]:
    """The dotted names `tests` read, and what each is read from (`args.cuda`, `args`;
    not `cuda`, the attribute's own name)."""
    return frozenset(dotted for test in tests for node in ctx.subtree(test)
                     if type(node) is cst.Attribute or (type(node) is cst.Name and not _attribute_name(ctx, node))
                     if (dotted := dotted_name(node)) is not None)  # type: ignore[arg-type]


def _attribute_name(ctx: FileContext, name: cst.Name) -> bool:
    """`name` is the `cuda` of an `args.cuda`."""
    parent = ctx.parent(name)
    return type(parent) is cst.Attribute and parent.attr is name


def _writes(ctx: FileContext, node: cst.CSTNode, watched: _Watched) -> bool:
    """Whether `node` writes what undoes a reset (see `_Watched`)."""
    if type(node) is cst.Call:
        write = flag_write(ctx, node)
        return write is not None and watched.undone_by(flag_text(ctx, write), constant_text(write.value))
    value = None
    if type(node) is cst.Assign:
        value = constant_text(node.value)
        targets = [target.target for target in node.targets]
    elif type(node) is cst.WithItem:
        targets = [node.asname.name] if node.asname is not None else []
    elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.Del, cst.NamedExpr):
        targets = [node.target]  # type: ignore[attr-defined]
    else:
        return False
    return any(watched.undone_by(_written_text(ctx, part), value) for target in targets for part in unpacked(target))


def _written_text(ctx: FileContext, target: cst.BaseExpression) -> str:
    """`args.fp16` for `vars(args)["fp16"]` too; the target as written otherwise."""
    written = written_attribute(target)
    return f"{ctx.code(written[0])}.{written[1]}" if written is not None else ctx.code(target)


def _may_write(ctx: FileContext, node: cst.CSTNode, watched: _Watched) -> bool:
    """Whether `node` writes one of `watched` (see `_writes`), or is a call that may."""
    return _writes(ctx, node, watched) or _callee_writes(ctx, node, watched)


def _callee_writes(ctx: FileContext, call: cst.CSTNode, watched: _Watched) -> bool:
    """Whether a function of the file that `call` runs writes one of `watched`: through
    the parameter the call hands it to (`configure(args)`, `def configure(cfg):
    cfg.fp16 = True`), or the same module-level object, also through the functions it
    calls; or a function of another module of the project, through the parameter (see
    `Summary.flag_writes`). Each function is read once per file for what it is asked to
    watch (see `_body_writes`): functions that call one another along several paths are
    not walked once per path."""
    if type(call) is not cst.Call:
        return False
    if _external_writes(ctx, call, watched):
        return True
    bodies = ctx.shared(_bodies_memo)
    todo = _entered(ctx, call, watched)
    seen = set(todo)
    while todo:
        entry = todo.pop()
        if entry not in bodies:
            bodies[entry] = _body_writes(ctx, *entry)
        writes, callees = bodies[entry]
        if writes:
            return True
        fresh = [callee for callee in callees if callee not in seen]
        seen.update(fresh)
        todo.extend(fresh)
    return False


# a function of the file and what a caller watches, as written inside it
_Entry = tuple[cst.FunctionDef, _Watched]


def _bodies_memo(ctx: FileContext) -> dict[_Entry, tuple[bool, tuple[_Entry, ...]]]:
    return {}


def _body_writes(ctx: FileContext, func: cst.FunctionDef, watched: _Watched) -> tuple[bool, tuple[_Entry, ...]]:
    """Whether `func`'s own code writes one of `watched`, or calls a function of another
    module that does; else the functions of the file it calls, each with what `watched`
    is written as inside it."""
    callees: list[_Entry] = []
    for node in ctx.subtree(func.body):
        if _writes(ctx, node, watched) or (type(node) is cst.Call and _external_writes(ctx, node, watched)):
            return True, ()
        if type(node) is cst.Call:
            callees += _entered(ctx, node, watched)
    return False, tuple(callees)


def _entered(ctx: FileContext, call: cst.Call, watched: _Watched) -> list[_Entry]:
    """The functions of the file `call` runs, each with what `watched` is written as
    inside it, where it can be written there at all."""
    return [(func, inside) for func in ctx.functions_called(call)
            if (inside := _watched_inside(ctx, call, func, watched))]


def _external_writes(ctx: FileContext, call: cst.Call, watched: _Watched) -> bool:
    """Whether `call` runs a function of another module of the project that writes one of
    `watched` through the parameter it is handed (see `Summary.flag_writes`): the flag, to
    a value other than `False`, or what the reset's test reads (`setup(args)` that sets
    `cfg.cuda = False`), to any value."""
    summary = ctx.summaries.of_external_call(call)
    return summary is not None and any(
        watched.undone_by(f"{ctx.code(arg.value)}{flag[len(param):]}", value or None)
        for slot, arg in argument_slots(call) if (param := summary.slot(slot)) is not None
        for flag, value in summary.flag_writes if flag.startswith(param + "."))


def _watched_inside(ctx: FileContext, call: cst.Call, func: cst.FunctionDef, watched: _Watched) -> _Watched:
    """`watched`, as written inside `func`, run by `call` (see `_written_inside`)."""
    return _Watched(_written_inside(ctx, call, func, watched.flag), _written_inside(ctx, call, func, watched.test))


def _written_inside(ctx: FileContext, call: cst.Call, func: cst.FunctionDef,
                    watched: frozenset[str]) -> frozenset[str]:
    """What `watched` is written as inside `func`, run by `call`: `cfg.fp16` where the
    call hands `args` to the parameter `cfg` (binding `cfg` again there changes nothing
    of the caller's), and `args.fp16` itself where both read the module's `args`."""
    handed = [(param, ctx.code(arg)) for param, arg in bound_arguments(ctx, call, func)[0]]
    positional = (*func.params.posonly_params, *func.params.params)
    if type(call.func) is cst.Attribute and positional and binds_first_parameter(ctx, call, func):
        handed.append((positional[0].name.value, ctx.code(call.func.value)))
    inside = {param + text[len(given):] for param, given in handed for text in watched
              if text.startswith(given) and text[len(given):len(given) + 1] in (".", "[")}
    module = ctx.scopes.module_scope
    for text in watched:
        root = text.split(".", 1)[0].split("[", 1)[0]
        if (binding_scope(root, ctx.scope_of(call)) in (module, None)
                and binding_scope(root, ctx.scopes.scope_for(func)) in (module, None)):
            inside.add(text)
    return frozenset(inside)
