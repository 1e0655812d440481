"""The code bodies of a file as a flow analysis reads them: events (calls in
evaluation order, assignments), branches, loops, `try`, `match` and the
statements that end a path.

An analysis says which nodes its transfer reacts to; its `Program` keeps
those events and only the statements around them (and around every
`return`, `raise`, `break`, `continue`, `assert False` and endless loop),
found from the events upwards through the semantic model's parents: a
2,000-line training function with five relevant calls becomes a handful of
operations, and the rest of the tree is never walked. Dropping a branch,
loop or `try` that holds no kept event and no statement ending a path cannot
change what the analysis finds: every path through it leaves with the facts
it came in with (loops stay for analyses whose facts change between
iterations).
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Union

import libcst as cst

from trainlint.analysis.literals import number_value
from trainlint.analysis.scopes import and_operands
from trainlint.analysis.walk import calls_in_order, children, iter_nodes, only
from trainlint.semantic import SemanticModel

Events = tuple[cst.CSTNode, ...]
EventFilter = Callable[[cst.CSTNode], bool]
_EVENT_TYPES = (cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)
EXIT_TYPES = (cst.Return, cst.Raise, cst.Break, cst.Continue)  # statements that leave a block


class Step(NamedTuple):
    """Events run one after the other."""

    events: Events


class Exit(NamedTuple):
    """`return`, `raise`, `break` or `continue`, after the events of its value."""

    kind: str
    events: Events


class Branch(NamedTuple):
    """Paths part on the truth of `condition`: the test of an `if` or of `a if c
    else b`, or the left operand of `and`/`or`, whose right operand runs only
    after a true (`and`) or a false (`or`) left one."""

    condition: cst.BaseExpression
    test: Events
    body: Block
    orelse: Branch | Block | None  # an `elif` is a Branch


class Loop(NamedTuple):
    node: cst.For | cst.While
    head: Events  # the iterable of a `for`, the test of a `while`
    body: Block
    orelse: Block | None
    infinite: bool  # `while True:` leaves only by `break`
    runs_once: bool  # the body runs at least once (`for m in model.modules():` meets the model itself)


class Try(NamedTuple):
    body: Block
    handlers: tuple[Block, ...]
    orelse: Block | None
    final: Block | None


class Match(NamedTuple):
    subject: Events
    cases: tuple[Block, ...]
    exhaustive: bool  # the last case matches anything: `case _:` or `case x:`, with no guard


Op = Union[Step, Exit, Branch, Loop, Try, Match]
Block = tuple[Op, ...]


class Condition(NamedTuple):
    key: str  # the text both `if x:` and a later `if not x:` are decided by
    polarity: bool
    names: frozenset[str] | None  # names the test reads; None when it calls something


class FlowGraph:
    """What every flow analysis of one file starts from: the nodes that can
    be events, the statements that end a path, the loops; and, worked out
    when first needed, the key of each condition, the names each loop
    assigns, and one `Program` per kind of analysis."""

    def __init__(self, model: SemanticModel) -> None:
        self.model = model
        self.candidates = [node for kind in _EVENT_TYPES for node in model.nodes_of(kind)]
        self.exits = [node for kind in EXIT_TYPES for node in model.nodes_of(kind)]
        self.exits += [node for node in model.nodes_of(cst.Assert) if always_fails(node)]
        self.loops = model.loops()
        self._conditions: dict[cst.BaseExpression, Condition] = {}
        self._conjuncts: dict[cst.BaseExpression, frozenset[tuple[str, bool]]] = {}
        self._assigned: dict[cst.For | cst.While, frozenset[str]] = {}
        self._programs: dict[tuple[EventFilter | None, bool, bool], Program] = {}

    def program(self, keep: EventFilter | None, keep_loops: bool, through_calls: bool) -> Program:
        """The bodies of the file with only the events `keep` accepts (all when
        None). `keep_loops`: loops stay even when empty, for analyses whose
        facts change between iterations. `through_calls`: a call of a function
        of the file whose body holds events is an event too."""
        key = (keep, keep_loops, through_calls)
        found = self._programs.get(key)
        if found is None:
            found = self._programs[key] = Program(self, keep, keep_loops, through_calls)
        return found

    def condition(self, test: cst.BaseExpression) -> Condition:
        found = self._conditions.get(test)
        if found is None:
            found = self._conditions[test] = _condition(self.model, test)
        return found

    def conjuncts(self, test: cst.BaseExpression) -> frozenset[tuple[str, bool]]:
        """What a true `a and not b` says of its parts: `(key, value)` of each
        operand of its `and` chain; empty for any other test."""
        found = self._conjuncts.get(test)
        if found is None:
            parts = and_operands(test)
            found = frozenset() if len(parts) < 2 else frozenset(
                (condition.key, condition.polarity) for condition in map(self.condition, parts))
            self._conjuncts[test] = found
        return found

    def assigned(self, loop: cst.For | cst.While) -> frozenset[str]:
        """Names (and attribute names, for `self.flag = ...`) `loop` may rebind;
        `{"*"}` when it uses `global`, `nonlocal` or `del`."""
        found = self._assigned.get(loop)
        if found is None:
            found = self._assigned[loop] = assigned_names(self.model, loop)
        return found

    def spine(self, node: cst.CSTNode) -> tuple[cst.CSTNode, list[cst.CSTNode]] | None:
        """The body whose flow runs `node` (a function's body or the module),
        with `node` and every node between them; None when no flow runs it
        (in a lambda, a class body, a decorator or a default value)."""
        path = [node]
        child = node
        for ancestor in self.model.ancestors(node):
            kind = type(ancestor)
            if kind is cst.FunctionDef:
                return (child, path) if child is ancestor.body else None  # type: ignore[attr-defined]
            if kind is cst.Lambda or kind is cst.ClassDef:
                return None
            path.append(ancestor)
            child = ancestor
        return self.model.module, path


class Program:
    """The file's bodies compiled for one analysis, keeping only what can
    change its facts: its events, and the statements around them and around
    every `return`, `raise`, `break`, `continue` and endless loop."""

    def __init__(self, graph: FlowGraph, keep: EventFilter | None, keep_loops: bool, through_calls: bool) -> None:
        self.graph = graph
        self.relevant = {node for node in graph.candidates if keep is None or keep(node)}
        self.live: set[cst.CSTNode] = set()
        self._effectful: set[cst.CSTNode] = set()  # bodies that hold an event (or a kept loop)
        for node in self.relevant:
            self._mark(node, True)
        for node in graph.exits:
            self._mark(node, False)
        for loop in graph.loops:
            if keep_loops or _endless(loop):
                self._mark(loop, keep_loops)
        if through_calls:
            self._mark_calls()
        self._compiled: dict[cst.CSTNode, Block] = {}

    def holds_events(self, body: cst.CSTNode) -> bool:
        """Whether an event is kept in `body` (or, with calls followed, in a
        function it calls): elsewhere a transfer is never called."""
        return body in self._effectful

    def body(self, body: cst.CSTNode) -> Block:
        found = self._compiled.get(body)
        if found is None:
            found = self._compiled[body] = self._block(_statements(body))
        return found

    # -- what is kept --------------------------------------------------------------
    def _mark(self, node: cst.CSTNode, event: bool) -> None:
        found = self.graph.spine(node)
        if found is not None:
            body, path = found
            self.live.update(path)
            if event:
                self._effectful.add(body)

    def _mark_calls(self) -> None:
        """Calls of the file's functions whose bodies (transitively) hold events."""
        model = self.graph.model
        pending = list(self._effectful)
        while pending:
            func = model.parent(pending.pop())
            if type(func) is not cst.FunctionDef:
                continue
            for call in model.call_sites(func):
                if call in self.relevant:
                    continue
                self.relevant.add(call)
                found = self.graph.spine(call)
                if found is None:
                    continue
                caller, path = found
                self.live.update(path)
                if caller not in self._effectful:
                    self._effectful.add(caller)
                    pending.append(caller)

    # -- compiling -------------------------------------------------------------------
    def _calls(self, part: cst.CSTNode) -> Events:
        if part not in self.live:
            return ()
        relevant = self.relevant
        # every relevant call lies on a live path: the rest of `part` is not walked
        return tuple(call for call in calls_in_order(part, self.live) if call in relevant)

    def _block(self, statements: tuple[cst.CSTNode, ...]) -> Block:
        live = self.live
        ops: list[Op] = []
        for stmt in statements:
            if stmt not in live:
                continue
            if type(stmt) is cst.SimpleStatementLine:
                new = [op for small in stmt.body if small in live for op in self._small(small)]  # type: ignore[attr-defined]
            elif isinstance(stmt, cst.BaseSmallStatement):
                new = self._small(stmt)
            else:
                new = self._compound(stmt)
            for op in new:
                if type(op) is Step and ops and type(ops[-1]) is Step:
                    ops[-1] = Step(ops[-1].events + op.events)  # type: ignore[union-attr]
                else:
                    ops.append(op)
        return tuple(ops)

    def _small(self, small: cst.CSTNode) -> list[Op]:
        ops = self._evaluation(small)
        if type(small) is cst.Return:
            return _exit("return", ops)
        if type(small) is cst.Raise or (type(small) is cst.Assert and always_fails(small)):
            return _exit("raise", ops)
        if type(small) is cst.Break:
            return [Exit("break", ())]
        if type(small) is cst.Continue:
            return [Exit("continue", ())]
        if small in self.relevant:
            ops.append(Step((small,)))
        return ops

    def _evaluation(self, part: cst.CSTNode) -> list[Op]:
        """The kept calls of `part` in evaluation order (see `calls_in_order`),
        where an arm of `a if c else b` runs after its test and on some paths
        only, as does the right operand of `and`/`or`: a Branch of the arms."""
        ops: list[Op] = []
        if part in self.live:
            self._evaluate(part, ops)
        return ops

    def _evaluate(self, node: cst.CSTNode, ops: list[Op]) -> None:
        live = self.live
        kind = type(node)
        if kind is cst.IfExp and (node.body in live or node.orelse in live):  # type: ignore[attr-defined]
            self._evaluate(node.test, ops)  # type: ignore[attr-defined]
            body, orelse = self._arm(node.body), self._arm(node.orelse)  # type: ignore[attr-defined]
            ops.append(Branch(node.test, (), body, orelse or None))  # type: ignore[attr-defined]
            return
        if kind is cst.BooleanOperation and node.right in live:  # type: ignore[attr-defined]
            self._evaluate(node.left, ops)  # type: ignore[attr-defined]
            right = self._arm(node.right)  # type: ignore[attr-defined]
            on_true = type(node.operator) is cst.And  # type: ignore[attr-defined]
            ops.append(Branch(node.left, (), right, None) if on_true else Branch(node.left, (), (), right))  # type: ignore[attr-defined]
            return
        if node not in live:
            return
        for kid in children(node):
            self._evaluate(kid, ops)
        if kind is cst.Call and node in self.relevant:
            if ops and type(ops[-1]) is Step:
                ops[-1] = Step((*ops[-1].events, node))  # type: ignore[union-attr]
            else:
                ops.append(Step((node,)))

    def _arm(self, part: cst.CSTNode) -> Block:
        return tuple(self._evaluation(part))

    def _compound(self, stmt: cst.CSTNode) -> list[Op]:
        if type(stmt) is cst.If:
            return [self._branch(stmt)]
        if type(stmt) in (cst.For, cst.While):
            head = self._calls(stmt.iter if type(stmt) is cst.For else stmt.test)
            orelse = self._block(_statements(stmt.orelse.body)) if stmt.orelse is not None else None
            return [Loop(stmt, head, self._block(_statements(stmt.body)), orelse, _endless(stmt),
                         _runs_once(stmt, self.graph.model))]
        if type(stmt) is cst.With:
            items = tuple(call for item in stmt.items for call in self._calls(item.item))
            return [Step(items), *self._block(_statements(stmt.body))]
        if type(stmt) in (cst.Try, cst.TryStar):
            return [
                Try(
                    self._block(_statements(stmt.body)),
                    tuple(self._block(_statements(handler.body)) for handler in stmt.handlers),
                    self._block(_statements(stmt.orelse.body)) if stmt.orelse is not None else None,
                    self._block(_statements(stmt.finalbody.body)) if stmt.finalbody is not None else None,
                )
            ]
        if type(stmt) is cst.Match:
            return [Match(self._calls(stmt.subject), tuple(self._block(_statements(c.body)) for c in stmt.cases),
                          _irrefutable(stmt.cases[-1]))]
        return []

    def _branch(self, stmt: cst.If) -> Branch:
        orelse: Branch | Block | None = None
        if type(stmt.orelse) is cst.If:
            orelse = self._branch(stmt.orelse) if stmt.orelse in self.live else None
        elif stmt.orelse is not None:
            orelse = self._block(_statements(stmt.orelse.body)) or None
        return Branch(stmt.test, self._calls(stmt.test), self._block(_statements(stmt.body)), orelse)


def _exit(kind: str, ops: list[Op]) -> list[Op]:
    """The statement that leaves by `kind`, after the evaluation of its value."""
    if len(ops) == 1 and type(ops[0]) is Step:
        return [Exit(kind, ops[0].events)]  # type: ignore[union-attr]
    return [*ops, Exit(kind, ())]


def always_fails(node: cst.CSTNode) -> bool:
    """`assert False` (or `assert 0`), with or without a message: the
    unreachable branch of an `if`/`elif` chain, a path that ends in a raise."""
    if type(node) is not cst.Assert:
        return False
    test = node.test
    return (type(test) is cst.Name and test.value == "False") or (type(test) is cst.Integer and test.value == "0")


def _irrefutable(case: cst.MatchCase) -> bool:
    """A case with no guard whose pattern matches any subject (see `_matches_anything`)."""
    return case.guard is None and _matches_anything(case.pattern)


def _matches_anything(pattern: cst.MatchPattern) -> bool:
    """`_` or a bare capture `x`, also named (`_ as other`, `(x) as y`) or as one
    alternative of an or-pattern (`2 | _`)."""
    if type(pattern) is cst.MatchAs:
        return pattern.pattern is None or _matches_anything(pattern.pattern)
    if type(pattern) is cst.MatchOr:
        return any(_matches_anything(element.pattern) for element in pattern.patterns)
    return False


def _statements(body: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    if type(body) in (cst.IndentedBlock, cst.Module, cst.SimpleStatementSuite):
        return tuple(body.body)
    return ()


def _endless(loop: cst.For | cst.While) -> bool:
    """`while True:` leaves only by `break`."""
    return type(loop) is cst.While and always_true(loop.test)


def _runs_once(loop: cst.For | cst.While, model: SemanticModel) -> bool:
    """The body runs at least once: `for m in model.modules():` (or `named_modules()`:
    the walk starts at the model itself), or an iterable written out non-empty (`for m in
    (ema, vae)`, through `enumerate`, `zip`, a dict's `.items()`, `range(3)`), also held
    by a local name given only that (`optimizers = [opt_g, opt_d]`, then `for opt in
    optimizers:`)."""
    if type(loop) is not cst.For:
        return False
    iterable = loop.iter
    if type(iterable) is cst.Call and type(iterable.func) is cst.Attribute \
            and iterable.func.attr.value in ("modules", "named_modules"):
        return True
    if type(iterable) is cst.Name:
        held = _only_value(model, iterable)
        return held is not None and _non_empty(held)
    return _non_empty(iterable)


_EMPTYING = ("pop", "clear", "remove")


def _only_value(model: SemanticModel, name: cst.Name) -> cst.BaseExpression | None:
    """The one value a local variable of a function is given, when a plain assignment in
    that function is the only thing that binds it (no parameter, loop or `with` target,
    `global`, augmented or tuple assignment, import, and no nested function or class
    that names it) and nothing empties it (`.pop()`, `.clear()`, `.remove()`, `del`)."""
    function = model.enclosing_function(name)
    if function is None or name.value in {p.name.value for p in _all_params(function.params)}:
        return None

    def names_it(tree: cst.CSTNode | None) -> bool:
        return tree is not None and any(type(n) is cst.Name and n.value == name.value for n in model.subtree(tree))

    values: list[cst.BaseExpression] = []
    for node in model.subtree(function.body):
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Name and target.target.value == name.value:
                    values.append(node.value)  # type: ignore[attr-defined]
                elif type(target.target) is not cst.Subscript and names_it(target.target):
                    return None
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr):
            if type(node.target) is cst.Name and node.target.value == name.value:  # type: ignore[attr-defined]
                return None
        elif kind in (cst.For, cst.CompFor):
            if names_it(node.target):  # type: ignore[attr-defined]
                return None
        elif kind in (cst.Del, cst.Global, cst.Nonlocal, cst.AsName, cst.ImportAlias,
                      cst.FunctionDef, cst.ClassDef, cst.Lambda):
            if names_it(node):
                return None
        elif kind is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _EMPTYING \
                and type(node.func.value) is cst.Name and node.func.value.value == name.value:  # type: ignore[attr-defined]
            return None
    return values[0] if len(values) == 1 else None


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def _non_empty(iterable: cst.BaseExpression) -> bool:
    """`iterable` is written out with at least one item."""
    if type(iterable) in (cst.Tuple, cst.List, cst.Set):
        return any(type(element) is cst.Element for element in iterable.elements)  # type: ignore[attr-defined]
    if type(iterable) is cst.Dict:
        return any(type(element) is cst.DictElement for element in iterable.elements)
    if type(iterable) is not cst.Call:
        return False
    args = iterable.args
    plain = bool(args) and all(arg.keyword is None and not arg.star for arg in args)
    func = iterable.func
    if type(func) is cst.Attribute:  # `{"ema": ema}.items()`
        return not args and func.attr.value in ("items", "values", "keys") and _non_empty(func.value)
    if type(func) is not cst.Name or not plain:
        return False
    if func.value in ("enumerate", "reversed"):
        return _non_empty(args[0].value)
    if func.value == "zip":
        return all(_non_empty(arg.value) for arg in args)
    if func.value == "range" and len(args) <= 2:
        bounds = [number_value(arg.value) for arg in args]
        if not all(type(bound) is int for bound in bounds):
            return False
        start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
        return start < stop  # type: ignore[operator]
    return False


def always_true(test: cst.BaseExpression) -> bool:
    """`test` is a literal that is always true (`True`, `1`): `while True:` never ends by it."""
    if type(test) is cst.Name:
        return test.value == "True"
    return type(test) is cst.Integer and test.value not in ("0",)


# -- conditions and loops -------------------------------------------------------------
def _condition(model: SemanticModel, test: cst.BaseExpression) -> Condition:
    code = model.code
    nodes = model.subtree(test)
    calls = any(type(node) is cst.Call for node in nodes)
    names = None if calls else frozenset(node.value for node in nodes if type(node) is cst.Name)  # type: ignore[attr-defined]
    polarity = True
    while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test, polarity = test.expression, not polarity
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if type(target.comparator) is cst.Name and target.comparator.value == "None":
            if type(target.operator) is cst.Is:
                return Condition(code(test.left), not polarity, names)
            if type(target.operator) is cst.IsNot:
                return Condition(code(test.left), polarity, names)
    return Condition(code(test), polarity, names)


def assigned_names(model: SemanticModel, loop: cst.CSTNode) -> frozenset[str]:
    """Names (and attribute names, for `self.flag = ...`) `loop` (or any other subtree: a
    function's body) may rebind; `{"*"}` when it uses `global`, `nonlocal` or `del`."""
    assigned: set[str] = set()
    targets: list[cst.CSTNode] = [loop.target] if type(loop) is cst.For else []
    binders = only(
        model.subtree(loop),
        cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.AsName, cst.Global, cst.Nonlocal, cst.Del,
    )
    for node in binders:
        if type(node) is cst.Assign:
            targets.extend(t.target for t in node.targets)
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For):
            targets.append(node.target)
        elif type(node) is cst.AsName:
            targets.append(node.name)
        elif type(node) in (cst.Global, cst.Nonlocal, cst.Del):
            return frozenset({"*"})  # too dynamic to reason about: nothing is invariant
    for target in targets:
        for part in iter_nodes(target):
            if type(part) is cst.Name:
                assigned.add(part.value)
    return frozenset(assigned)
