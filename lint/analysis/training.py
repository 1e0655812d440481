"""Small facts about training code that several rules share: which calls clip
gradients, call a method on what receiver, and where code bodies are."""

from __future__ import annotations

import bisect
import re
from typing import Iterator, Sequence

import libcst as cst

from trainlint.analysis.handlers import BREAK, CONTINUE, ON, RETURN, endings, may_raise
from trainlint.analysis.partials import partial_of, partial_target
from trainlint.analysis.scopes import (
    _parameters, alternatives, as_receiver_path, dotted_name, head_name, receiver_method,
)
from trainlint.context import FileContext

CLIP_FUNCTIONS = frozenset(
    {
        "torch.nn.utils.clip_grad_norm_",
        "torch.nn.utils.clip_grad_norm",
        "torch.nn.utils.clip_grad_value_",
    }
)


def method_call(node: cst.CSTNode, *methods: str) -> cst.BaseExpression | None:
    """The receiver of `receiver.method(...)` when `node` is such a call."""
    # asked of every node by many rules: `type() is` spares the slow
    # isinstance() of LibCST's ABC node classes (Call has no subclasses)
    if (
        type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and node.func.attr.value in methods
    ):
        return node.func.value
    return None


# methods of `nn.Module` that return the module itself
MODULE_CHAIN = ("eval", "train", "to", "cuda", "cpu", "half", "float", "bfloat16", "double", "requires_grad_")


def unchain_module(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`model` of `model.to(device)`, `model.cuda().eval()` and the like."""
    while True:
        inner = method_call(expr, *MODULE_CHAIN)
        if inner is None:
            return expr
        expr = inner


# classes of `torch.nn` that are no modules: a tensor's, or a sequence's of `torch.nn.utils`
_NOT_MODULES = ("torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.parameter.", "torch.nn.utils.")


def is_torch_nn_class(qualified: str | None) -> bool:
    """`qualified` names a module class of `torch.nn` (`torch.nn.Linear`, `torch.nn.Module`):
    a module where it is called, a module class where it is a base; not one of its
    functions or submodules (`torch.nn.functional.relu`, `torch.nn.init.zeros_`), nor a
    class whose instances are no module (`torch.nn.Parameter`, `torch.nn.utils.rnn.PackedSequence`)."""
    return (qualified is not None and qualified.startswith("torch.nn.") and not qualified.startswith(_NOT_MODULES)
            and qualified.rsplit(".", 1)[-1][:1].isupper())


# wrappers whose `zero_grad()`, `parameters()` and `train()` are the wrapped module's
MODULE_WRAPPERS = frozenset({"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel", "torch.compile",
                             "torch.distributed.fsdp.FullyShardedDataParallel"})


def module_behind(ctx: FileContext, value: cst.BaseExpression) -> cst.BaseExpression:
    """The module `value` is, moved or wrapped: `model` of `model.cuda()`,
    `DDP(model.to(rank))`, `torch.compile(model)`."""
    value = unchain_module(value)
    if type(value) is cst.Call and ctx.call_name(value) in MODULE_WRAPPERS and value.args:
        value = unchain_module(value.args[0].value)
    return value


def wrapped_module(ctx: FileContext, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The one model that the variable `expr` reads holds, moved or wrapped, where every
    value the variable is assigned is that model (`parallel_model =
    nn.DataParallel(model).cuda()`, `parallel_model = model` in another branch), assigned
    anew after each assignment to the model (see `Receivers.wraps_current`): calling the
    variable runs that model's forward. None where it may hold anything else."""
    receivers = ctx.receivers
    binding = receivers.binding(expr)
    values = receivers.only_assigned(binding) if binding is not None else None
    if not values:
        return None
    behind = [module_behind(ctx, value) for value in values]
    held = {receivers.binding(module) for module in behind}
    if len(held) != 1 or None in held or binding in held:
        return None
    # a model variable given another object may no longer be the one the wrapper holds
    # (`runner = DataParallel(model); model = Net()`)
    return behind[0] if receivers.wraps_current(held.pop(), binding) else None  # type: ignore[arg-type]


def replaced_parameter(ctx: FileContext, receiver: cst.BaseExpression) -> bool:
    """`receiver` is a parameter of its function that the function assigns, before it
    (or in a loop around both), another object than the module it was given
    (`model = copy.deepcopy(model)`): it no longer names the caller's model. Moved,
    unwrapped, wrapped or copied shallowly (`model = model.to(device)`, `model.module`,
    `DDP(model)`, `copy.copy(model)`, each arm of an `if` expression), it still does."""
    function = ctx.enclosing_function(receiver)
    if type(receiver) is not cst.Name or function is None:
        return False
    if receiver.value not in {param.name.value for param in _parameters(function.params)}:
        return False
    at = ctx.order_index(receiver)
    loops = [a for a in ancestors_within(ctx, receiver, function) if type(a) in (cst.For, cst.While)]
    for node in ctx.own_nodes(function.body):
        if type(node) is not cst.Assign or not any(
                type(t.target) is cst.Name and t.target.value == receiver.value for t in node.targets):
            continue
        runs_before = ctx.subtree_end(node) < at or any(
            ctx.order_index(loop) < ctx.order_index(node) <= ctx.subtree_end(loop) for loop in loops)
        if runs_before and not all(_same_module(ctx, arm, receiver.value) for arm in alternatives(node.value)):
            return True
    return False


def _same_module(ctx: FileContext, value: cst.BaseExpression, name: str) -> bool:
    """`value` is the module the variable `name` holds, moved, wrapped or unwrapped, or
    a shallow copy of it (`copy.copy(model)` shares its submodules: its `.eval()`
    switches theirs)."""
    value = module_behind(ctx, value)
    while True:
        if type(value) is cst.Attribute and value.attr.value == "module":
            value = module_behind(ctx, value.value)
        elif type(value) is cst.Call and ctx.call_name(value) == "copy.copy" and len(value.args) == 1:
            value = module_behind(ctx, value.args[0].value)
        else:
            return type(value) is cst.Name and value.value == name


def is_clip_call(ctx: FileContext, node: cst.CSTNode) -> bool:
    """A call of a gradient clip, also through a `functools.partial` of one
    (`clip = partial(clip_grad_value_, clip_value=1.0)`, then `clip(params)`)."""
    if type(node) is not cst.Call:
        return False
    name = ctx.call_name(node)
    if name in CLIP_FUNCTIONS:
        return True
    return name is None and partial_target(ctx, node) in CLIP_FUNCTIONS


def measures_only(ctx: FileContext, call: cst.Call) -> bool:
    """A clip with an infinite threshold: used to compute the norm, it clips nothing."""
    made = partial_of(ctx, call) if ctx.call_name(call) is None else None
    # through a partial, its own arguments come first (`partial(clip, params, inf)`)
    args = [*made.args[1:], *call.args] if made is not None else list(call.args)
    positional = [arg.value for arg in args if arg.keyword is None and not arg.star]
    threshold = positional[1] if len(positional) > 1 else None
    for arg in args:
        if arg.keyword is not None and arg.keyword.value in ("max_norm", "clip_value"):
            threshold = arg.value
    return threshold is not None and bool(_INFINITY.match(ctx.code(threshold).replace(" ", "")))


_INFINITY = re.compile(r"""^(float\(\s*['"][+]?inf(inity)?['"]\s*\)|([A-Za-z_]\w*\.)*inf)$""", re.IGNORECASE)


def scaled_backward_scaler(node: cst.CSTNode) -> cst.BaseExpression | None:
    """`S` when `node` is `S.scale(loss).backward()`."""
    inner = method_call(node, "backward")
    if type(inner) is cst.Call:
        return method_call(inner, "scale")
    return None


def code_bodies(ctx: FileContext) -> Iterator[cst.BaseSuite | cst.Module]:
    """Every body that runs as one unit: each function's, and the module's own
    top-level statements (scripts often train at module level)."""
    yield ctx.module
    for node in ctx.scopes.by_node:
        if type(node) is cst.FunctionDef:
            yield node.body


def statement_of(ctx: FileContext, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The statement line holding `node`, if it is on a line of its own."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.SimpleStatementLine:
            return ancestor
        if isinstance(ancestor, cst.SimpleStatementSuite | cst.BaseCompoundStatement):
            return None
    return None


def ancestors_within(ctx: FileContext, node: cst.CSTNode, root: cst.CSTNode | None) -> list[cst.CSTNode]:
    """The ancestors of `node`, innermost first, up to (not including) `root`."""
    found = []
    for ancestor in ctx.ancestors(node):
        if ancestor is root:
            break
        found.append(ancestor)
    return found


def loops_within(ctx: FileContext, node: cst.CSTNode, root: cst.CSTNode | None) -> set[cst.CSTNode]:
    """The loops around `node`, up to (not including) `root`: two nodes
    whose sets meet run in the same iteration of some loop."""
    return {a for a in ancestors_within(ctx, node, root) if type(a) in (cst.For, cst.While)}


def opposite_branches(ctx: FileContext, node: cst.CSTNode) -> Iterator[tuple[cst.CSTNode | None, bool]]:
    """For each `if` around `node` in its function, innermost first (statement or
    expression): the branch `node` is not in (None for an `if` without `else`), and
    whether `node` is part of the condition instead (then the branch is None)."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            return
        if type(ancestor) in (cst.If, cst.IfExp):
            if child is ancestor.test:  # type: ignore[attr-defined]
                yield None, True
            else:
                yield (ancestor.orelse if child is ancestor.body else ancestor.body), False  # type: ignore[attr-defined]
        child = ancestor


def statements_before(ctx: FileContext, node: cst.CSTNode, stop: cst.CSTNode | None = None) -> Iterator[cst.CSTNode]:
    """The statements that always run before `node` once the code around it runs: the
    earlier statements of its block and of each block around it, innermost first, up
    to `stop` (a loop: within one iteration) or the enclosing function."""
    statement: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if ancestor is stop:
            return
        if type(ancestor) in (cst.IndentedBlock, cst.Module):
            for sibling in ancestor.body:
                if sibling is statement:
                    break
                yield sibling
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return
        statement = ancestor


def evaluating_statement(ctx: FileContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The statement whose every run evaluates `node` (a small statement, or the
    compound one whose test or head holds it); None when `node` is evaluated only
    some of the time, or never, when that statement runs: in a lambda, in a
    comprehension (but its first iterable), on the right of `and` / `or`, in an
    arm of `x if c else y`, past the first comparison of a chain (`a < b <
    f()`), in an `assert`. A statement is its own."""
    if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
        return node
    child = node
    for ancestor in ctx.ancestors(node):
        kind = type(ancestor)
        if kind in (cst.Lambda, cst.Assert, cst.CompIf):
            return None
        if kind is cst.CompFor and not (child is ancestor.iter  # type: ignore[attr-defined]
                                        and type(ctx.parent(ancestor)) is not cst.CompFor):
            return None
        if kind in (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp) \
                and child is not ancestor.for_in:  # type: ignore[attr-defined]
            return None
        if kind is cst.BooleanOperation and child is not ancestor.left:  # type: ignore[attr-defined]
            return None
        if kind is cst.IfExp and child is not ancestor.test:  # type: ignore[attr-defined]
            return None
        if kind is cst.Comparison and child is not ancestor.left \
                and child is not ancestor.comparisons[0]:  # type: ignore[attr-defined]
            return None
        if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return ancestor
        child = ancestor
    return None


def skipped_before(ctx: FileContext, node: cst.CSTNode, stop: cst.For | cst.While | cst.FunctionDef) -> bool:
    """An earlier statement of the same iteration of the loop `stop` (of the same run
    of the function `stop`), one that runs before `node` does, may end it short of
    `node`: a `continue` of the loop (`if loss > 1: continue`, then `losses.clear()`),
    a `return` of the function, or an exception that a handler catches and goes on
    after (see `_caught_before`)."""
    for inner in _leaving_before(ctx, node, stop):
        if type(inner) is cst.Continue and _continued_loop(ctx, inner) is stop and not _done_before(ctx, inner, node):
            return True
        if type(inner) is cst.Return and ctx.enclosing_function(inner) is stop and not _done_before(ctx, inner, node):
            return True
    return _caught_before(ctx, node, stop)


def _blocks_before(ctx: FileContext, node: cst.CSTNode, stop: cst.CSTNode | None) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    """The blocks whose earlier statements `statements_before` reads, innermost first,
    each with its statement that holds `node`."""
    found: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    statement: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if ancestor is stop or type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if type(ancestor) in (cst.IndentedBlock, cst.Module):
            found.append((ancestor, statement))
        statement = ancestor
    return found


def _leaving_before(ctx: FileContext, node: cst.CSTNode, stop: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The `continue` and `return` statements inside `statements_before(ctx, node, stop)`,
    found from the file's list of them rather than by walking those statements: a reset
    deep in a long `try` body is asked about once per accumulator, and each walk of the
    statements before it made a body of n resets cost n² (see `bench/scaling.py`'s
    `resets`)."""
    blocks = _blocks_before(ctx, node, stop)
    if not blocks:
        return
    holding = {id(block): statement for block, statement in blocks}
    leaving, places = ctx.shared(_leaving_statements)
    start, end = ctx.order_index(blocks[-1][0]), ctx.order_index(node)
    for inner in leaving[bisect.bisect_left(places, start):bisect.bisect_left(places, end)]:
        # earlier in source order within the outermost block: it is in a statement before
        # `node` when the first block around it that also holds `node` reaches it by
        # another statement (not by the one holding `node`: an `if` arm beside it)
        child = inner
        for ancestor in ctx.ancestors(inner):
            if id(ancestor) in holding:
                if child is not holding[id(ancestor)]:
                    yield inner
                break
            child = ancestor


def _leaving_statements(ctx: FileContext) -> tuple[list[cst.CSTNode], list[int]]:
    """Every `continue` and `return` of the file in source order, with their places."""
    found = ctx.nodes_of(cst.Continue, cst.Return)
    return found, [ctx.order_index(node) for node in found]


def _caught_before(ctx: FileContext, node: cst.CSTNode, stop: cst.CSTNode) -> bool:
    """`node` is in the body of a `try` (within `stop`), after other code of that body
    that may raise (see `may_raise`), or in its `else:`, and a handler of the `try` surely
    may let the iteration (the run) go on without it (see `_goes_on`); `finally:` runs
    anyway."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is stop or type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return False
        if type(ancestor) in (cst.Try, cst.TryStar) and (
                child is ancestor.orelse  # type: ignore[attr-defined]
                or (child is ancestor.body and _raises_before(ctx, node, ancestor))
        ) and any(_goes_on(ctx, handler, stop) and not _repeats(handler, node)
                  for handler in ancestor.handlers):  # type: ignore[attr-defined]
            return True
        child = ancestor
    return False


def _raises_before(ctx: FileContext, node: cst.CSTNode, attempt: cst.CSTNode) -> bool:
    """Some statement of `statements_before(ctx, node, attempt)` may raise (see `may_raise`):
    for each block, whether its first statement that may raise comes before the one holding
    `node`, that first one found once per block (not once per statement asked about)."""
    first_raising = ctx.shared(_first_raising_memo)
    for block, statement in _blocks_before(ctx, node, attempt):
        if block not in first_raising:
            first_raising[block] = next((s for s in block.body if may_raise(s)), None)  # type: ignore[attr-defined]
        raising = first_raising[block]
        if raising is not None and ctx.order_index(raising) < ctx.order_index(statement):
            return True
    return False


def _first_raising_memo(ctx: FileContext) -> dict[cst.CSTNode, cst.CSTNode | None]:
    return {}


def _goes_on(ctx: FileContext, handler: cst.ExceptHandler | cst.ExceptStarHandler, stop: cst.CSTNode) -> bool:
    """`handler` may end so that the iteration of the loop `stop` (the run of the function
    `stop`) goes on: past its end, by `continue`, by `break` of a loop within `stop`, or by
    `return` where `stop` is the function (its caller goes on). One that raises, exits,
    breaks out of `stop` or returns from around it lets nothing go on; one that ends in code
    the linter cannot follow is not taken to go on."""
    ends = endings(handler.body)
    if ON in ends or CONTINUE in ends:
        return True
    if RETURN in ends and type(stop) is cst.FunctionDef:
        return True
    return BREAK in ends and _continued_loop(ctx, handler) is not stop


def _done_before(ctx: FileContext, leaving: cst.Continue | cst.Return, node: cst.CSTNode) -> bool:
    """The block of `leaving` runs the small statement `node` (written the same) before it,
    at its own level, so every path to `leaving` has done it (`losses.clear(); continue`)."""
    line = ctx.parent(leaving)
    block = line if type(line) is cst.SimpleStatementSuite else ctx.parent(line)
    if type(block) not in (cst.IndentedBlock, cst.SimpleStatementSuite):
        return False
    for small in simple_statements(block):  # type: ignore[arg-type]
        if small is leaving:
            return False
        if small.deep_equals(node):
            return True
    return False


def _repeats(handler: cst.ExceptHandler | cst.ExceptStarHandler, node: cst.CSTNode) -> bool:
    """`handler` itself runs the small statement `node` (written the same) before it may go
    on: as one of its leading simple statements, after none that can leave it early
    (`except OSError: losses.clear(); return`)."""
    for small in simple_statements(handler.body, leading=True):
        if small.deep_equals(node):
            return True
        if type(small) in (cst.Return, cst.Continue, cst.Break, cst.Raise):
            return False
    return False


def simple_statements(block: cst.BaseSuite, leading: bool = False) -> list[cst.BaseSmallStatement]:
    """The small statements of `block` at its own level, in order (not those in its
    compound statements); with `leading`, only those before its first compound statement."""
    lines = block.body if type(block) is cst.IndentedBlock else (block,)
    found: list[cst.BaseSmallStatement] = []
    for line in lines:
        if not isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            if leading:
                break
            continue
        found += line.body
    return found


def final_statement(block: cst.BaseSuite) -> cst.BaseSmallStatement | None:
    """The last simple statement of `block`, on a line of its own or on its header's
    line (`if done: return`); None when the block ends with a compound statement."""
    if type(block) is cst.SimpleStatementSuite:
        parts: Sequence[cst.BaseSmallStatement] = block.body
    else:
        last = block.body[-1] if block.body else None  # type: ignore[attr-defined]
        parts = last.body if type(last) is cst.SimpleStatementLine else ()
    return parts[-1] if parts else None


def _continued_loop(ctx: FileContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The loop a `continue` (a `break`) at `node` goes on with (leaves): the innermost
    whose body holds it (not its `else:`)."""
    child: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.For, cst.While) and child is ancestor.body:  # type: ignore[attr-defined]
            return ancestor
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            return None
        child = ancestor
    return None


def loop_guards(ctx: FileContext, node: cst.CSTNode) -> tuple[cst.For | cst.While, list[cst.BaseExpression]] | None:
    """The innermost loop of the same function that runs `node` on each
    iteration, with the `if` conditions between them; None when `node` is not
    in a loop or only runs in an exception handler."""
    tests: list[cst.BaseExpression] = []
    child: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.ExceptHandler, cst.ExceptStarHandler):
            return None
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return None
        if type(ancestor) is cst.If and child is not ancestor.test:
            tests.append(ancestor.test)
        if type(ancestor) is cst.IfExp and child is not ancestor.test:
            tests.append(ancestor.test)
        if type(ancestor) in (cst.For, cst.While) and child is ancestor.body:
            return ancestor, tests
        child = ancestor
    return None


def own_attribute(ctx: FileContext, at: cst.CSTNode, attribute: str) -> cst.BaseExpression | None:
    """An occurrence of `attribute` (`self.scaler`) in the class whose method holds `at`,
    reached through the instance a method runs on, whatever that method calls it
    (`trainer.scaler` of `def fit(trainer)`): a node the receivers can say what it holds of."""
    cls = next((a for a in ctx.ancestors(at) if type(a) is cst.ClassDef), None)
    if cls is None:
        return None
    path = attribute.partition(".")[2]
    for node in ctx.subtree(cls):
        if type(node) is cst.Attribute and (dotted := dotted_name(node)) is not None \
                and dotted.partition(".")[2] == path and (head := head_name(node)) is not None \
                and as_receiver_path(dotted, head.value) == attribute and receiver_method(ctx, head) is not None:
            return node  # type: ignore[return-value]
    return None

