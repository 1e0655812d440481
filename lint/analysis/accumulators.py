"""Where a running total or a list of losses goes once it is built: into a
backward pass (a loss being built, not a log), out of its function (whoever
receives it may back-propagate it or call tensor methods on it), or only into
arithmetic, formatting and logging, where a number does as well as a tensor.

Names are dotted names (`total`, `self.losses`) read within one body.
"""

from __future__ import annotations

import re
from typing import Iterable

import libcst as cst

from trainlint.analysis.dataflow import always_before, backward_targets, bound_at, names_in, reaching, target_names
from trainlint.analysis.literals import string_value
from trainlint.analysis.loops import lexical_grad_mode
from trainlint.analysis.scopes import _parameters, assigned_parts, assignment_targets, dotted_name
from trainlint.analysis.training import ancestors_within, loops_within, method_call
from trainlint.analysis.walk import only
from trainlint.context import FileContext

AUTOGRAD_BACKWARD = "torch.autograd.backward"
# calls that differentiate the values they are given, keywords included
_DIFFERENTIATING = frozenset({AUTOGRAD_BACKWARD, "torch.autograd.grad"})
# calls that only read numbers: their result is not the tensor itself
_READING_BUILTINS = frozenset({"print", "len", "float", "int", "round", "str", "repr", "format", "bool"})
_LOGGING_METHODS = frozenset(
    {"format", "info", "debug", "warning", "write", "add_scalar", "set_postfix", "set_description"}
)
# what turns a tensor into a value without its autograd graph
_DETACHING_METHODS = frozenset({"item", "detach", "tolist", "numpy", "data"})
_DETACHING_BUILTINS = frozenset({"float", "int", "round"})
# libraries whose functions return new values: the result is followed, not the call
_TRANSPARENT_MODULES = ("torch.", "numpy.", "math.", "statistics.")
# ...except those that differentiate what they are given: they need its graph
_GRAPH_MODULES = ("torch.autograd.", "torch.func.", "functorch.")
# ...and those that keep what they are given as it is (a file, a queue, another process)
_KEEPING = frozenset({"torch.save", "torch.jit.save", "numpy.save", "numpy.savez", "torch.distributed.send",
                      "torch.distributed.broadcast_object_list", "torch.distributed.all_gather_object"})
# what only a tensor with its graph answers as before: `.detach()` changes them
_GRAPH_ATTRIBUTES = frozenset({"grad_fn", "requires_grad", "is_leaf", "grad", "register_hook", "retain_grad"})
# methods that put what they are given into their receiver (a list, a dict, a queue)
STORING_METHODS = ("append", "extend", "insert", "add", "update", "setdefault", "put", "appendleft")
# ...of them, those of a list or a deque, each with the position of the one element it
# adds (None: `extend`, whose argument holds the elements)
_ELEMENT_SLOTS: dict[str, int | None] = {"append": 0, "appendleft": 0, "insert": 1, "extend": None,
                                         "extendleft": None}


def stored_elements(node: cst.CSTNode) -> tuple[cst.BaseExpression, list[cst.BaseExpression]] | None:
    """The list (or deque) a call adds elements to, and the elements it adds, one by
    one: `xs.append(x)`, `xs.appendleft(x)`, `xs.insert(i, x)`, and an `extend` of a
    list or tuple written out (`xs.extend([x])`, `xs.extend((x, y))`). None for any
    other call, and for an `extend` of what cannot be read element by element
    (`xs.extend(other)`, `xs.extend(x.tolist())`, `[*ys]`)."""
    if type(node) is not cst.Call or type(node.func) is not cst.Attribute:
        return None
    method = node.func.attr.value
    if method not in _ELEMENT_SLOTS or any(arg.keyword is not None or arg.star for arg in node.args):
        return None
    slot = _ELEMENT_SLOTS[method]
    if slot is not None:
        return (node.func.value, [node.args[slot].value]) if len(node.args) == slot + 1 else None
    elements = written_elements(node.args[0].value) if len(node.args) == 1 else None
    return (node.func.value, elements) if elements else None


def written_elements(value: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The elements of a list or tuple written out (`[x]`, `(x, y)`), none of them
    unpacked (`[*ys]`); None for anything else."""
    if type(value) not in (cst.List, cst.Tuple):
        return None
    elements = value.elements  # type: ignore[attr-defined]
    if any(type(element) is cst.StarredElement for element in elements):
        return None
    return [element.value for element in elements]


def consumed_names(
    ctx: FileContext, body: cst.CSTNode, handed: Iterable[str] = (), differentiated: bool = False,
    graph_only: bool = False,
) -> set[str]:
    """Names whose values flow into a backward pass in `body`: the receiver
    of `.backward()`, the arguments of `torch.autograd.backward(...)`, the
    names `handed` to a function that back-propagates them, then back through
    assignments (`loss = sum(losses)`) and loops (`for l in losses: l.backward()`).
    With `differentiated`, every value handed to `torch.autograd.grad(...)` or
    `torch.autograd.backward(...)` counts, keywords included. With `graph_only`,
    an assignment made under `torch.no_grad()` (`target = teacher(x)`) hands no
    graph on: what it reads is not consumed through it."""
    # each name with the nodes that consume it (None: somewhere out of sight)
    uses: dict[str, set[cst.CSTNode | None]] = {name: {None} for name in handed}
    for node in only(ctx.subtree(body), cst.Call):
        targets = backward_targets(node, ctx)
        if differentiated and node.args and ctx.call_name(node) in _DIFFERENTIATING:  # type: ignore[attr-defined]
            targets = [arg.value for arg in node.args]  # type: ignore[attr-defined]
        elif not targets and ctx.call_name(node) == AUTOGRAD_BACKWARD and node.args:  # type: ignore[attr-defined]
            targets = [node.args[0].value]  # type: ignore[attr-defined]
        found: set[str] = set()
        for target in targets:
            found |= names_in(target)
        if targets and method_call(node, "backward") is not None:
            # `accelerator.backward(loss)`, `fabric.backward(loss)`, a DeepSpeed
            # engine's: the loss is the argument (of a tensor's own
            # `.backward(gradient)`, the gradient: counted too, which only spares)
            for arg in node.args:  # type: ignore[attr-defined]
                if arg.keyword is None and not arg.star:
                    found |= names_in(arg.value)
        # a backward in a nested function runs whenever it is called: anywhere; of the
        # function's own local (`loss = criterion(...)` in a nested `step()`), never the outer name
        nested = [a for a in ancestors_within(ctx, node, body) if type(a) in (cst.FunctionDef, cst.Lambda)]
        local = set().union(*(_bound_in(ctx, function) for function in nested)) if nested else set()
        for name in found - local:
            uses.setdefault(name, set()).add(None if nested else node)
    return _consumed_closure(ctx, body, uses, graph_only)


def _bound_in(ctx: FileContext, function: cst.CSTNode) -> set[str]:
    """Names a nested function assigns or takes as parameters: its own locals."""
    if type(function) is not cst.FunctionDef:
        return set()
    params = {param.name.value for param in (*function.params.params, *function.params.kwonly_params,
                                             *function.params.posonly_params)}
    return params.union(*(bound for bound, _ in _sources(ctx, function.body)))


def _consumed_closure(ctx: FileContext, body: cst.CSTNode, uses: dict[str, set[cst.CSTNode | None]],
                      graph_only: bool = False) -> set[str]:
    """`uses` grown back through the assignments and `for` loops of `body`: what
    an assignment reads is consumed when what it binds is consumed later, or in
    a loop around both (`losses` of `loss = sum(losses); loss.backward()`), not
    by a backward that only ran before it (`loss.backward()` in the loop, then
    `loss = sum(epoch_losses) / n` for the log after it). With `graph_only`, not
    through an assignment made without gradients."""
    sources = [(bound, read, node) for node in only(ctx.subtree(body), cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)
               if not (graph_only and lexical_grad_mode(ctx, node) == "off")
               for bound, read in _sources_of(ctx, node)]
    loops: dict[cst.CSTNode, set[cst.CSTNode]] = {}

    def around(node: cst.CSTNode) -> set[cst.CSTNode]:
        if node not in loops:
            loops[node] = loops_within(ctx, node, None)
        return loops[node]

    binders: dict[str, list[cst.CSTNode]] = {}
    for bound, _, node in sources:
        for name in bound:
            binders.setdefault(name, []).append(node)

    def reaches(name: str, assignment: cst.CSTNode, use: cst.CSTNode | None) -> bool:
        """The value `assignment` gives `name` may be the one `use` consumes: later in the
        text, or earlier in a loop around both unless the loop binds `name` again before
        the use (`loss = criterion(...)` then `loss.backward()` in the next epoch)."""
        if use is None or ctx.order_index(use) > ctx.order_index(assignment):
            return True
        common = around(assignment) & around(use)
        if not common:
            return False
        start = max(ctx.order_index(loop) for loop in common)  # the innermost loop around both
        return not any(start < ctx.order_index(other) < ctx.order_index(use)
                       for other in binders.get(name, ()) if other is not assignment)

    changed = True
    while changed:
        changed = False
        for bound, read, node in sources:
            if not any(reaches(name, node, use) for name in bound for use in uses.get(name, ())):
                continue
            for name in read:
                if node not in uses.setdefault(name, set()):
                    uses[name].add(node)
                    changed = True
    return set(uses)


def _sources(ctx: FileContext, body: cst.CSTNode) -> list[tuple[set[str], set[str]]]:
    """(names bound, names read) for every assignment and `for` of `body`."""
    return [edge for node in only(ctx.subtree(body), cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)
            for edge in _sources_of(ctx, node)]


def _sources_of(ctx: FileContext, node: cst.CSTNode) -> list[tuple[set[str], set[str]]]:
    """(names bound, names read) of one assignment or `for`."""
    if type(node) is cst.Assign:
        return [(set().union(*(_bound(t.target) for t in node.targets)), names_in(node.value, ctx))]
    if type(node) in (cst.AugAssign, cst.AnnAssign) and node.value is not None:  # type: ignore[attr-defined]
        return [(_bound(node.target), names_in(node.value, ctx))]  # type: ignore[attr-defined]
    if type(node) is cst.For:
        return [(target_names(node.target), names_in(node.iter, ctx))]
    return []


def _bound(target: cst.BaseExpression) -> set[str]:
    """The names an assignment to `target` gives a value to; an item
    (`losses["mask"] = ...`) gives its container one."""
    if type(target) is cst.Subscript:
        target = target.value
    name = dotted_name(target)
    return {name} if name is not None else target_names(target)


def escapes(ctx: FileContext, body: cst.CSTNode, name: str, skip: set[cst.CSTNode]) -> bool:
    """Whether the value of `name`, or anything computed from it, leaves the
    plain reading of numbers in `body`: it is returned or yielded, stored in
    an attribute, item or container, passed to a call that may need the
    tensor (anything but printing, formatting, logging and library math, and
    not `torch.autograd`'s functions), or asked for its graph (`.grad_fn`,
    `.requires_grad`). Nodes in `skip` (the accumulating statements) are not uses."""
    tracked = _derived(ctx, body, name)
    targets = _target_nodes(ctx, body)
    for node in ctx.subtree(body):
        if node in skip or node in targets:
            continue
        if type(node) in (cst.Return, cst.Yield) and node.value is not None and names_in(node.value) & tracked:
            return True
        if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign) and node.value is not None:
            targets = assignment_targets(node)
            if names_in(node.value) & tracked and not all(type(t) is cst.Name for t in targets):
                return True
        if type(node) is cst.Call and not reads_only(ctx, node):
            if any(names_in(arg.value) & tracked for arg in node.args):
                return True
        if type(node) in (cst.List, cst.Tuple, cst.Dict, cst.Set) and _holds(node, tracked):
            return True
        if type(node) is cst.Attribute and node.attr.value in _GRAPH_ATTRIBUTES and names_in(node.value) & tracked:
            return True
    return False


def needs_tensor(ctx: FileContext, body: cst.CSTNode, name: str) -> bool:
    """Whether code in `body` would break if the total `name` were a Python number:
    an attribute read on it or on anything computed from it (`total.item()`,
    `avg.item()` after `avg = total / n`, `(total / n).item()`), an item of it
    (`total[0]`: a one-element total is a tensor of shape (1,)), its length,
    iterating or unpacking it (`for v in total`, `print(*total)`), `@`, or a torch
    function given it (`torch.exp(total / n)`: torch's functions take tensors,
    except the constructors that make one from a number)."""
    tracked = _derived(ctx, body, name)
    for node in ctx.subtree(body):
        kind = type(node)
        if kind in (cst.Attribute, cst.Subscript) and names_in(node.value) & tracked:  # type: ignore[attr-defined]
            return True
        if kind in (cst.For, cst.CompFor) and names_in(node.iter) & tracked:  # type: ignore[attr-defined]
            return True
        if (kind is cst.BinaryOperation and type(node.operator) is cst.MatrixMultiply  # type: ignore[attr-defined]
                and names_in(node) & tracked):
            return True
        if kind is cst.Call and any(names_in(arg.value) & tracked for arg in node.args):  # type: ignore[attr-defined]
            if any(arg.star and names_in(arg.value) & tracked for arg in node.args):  # type: ignore[attr-defined]
                return True
            func = node.func  # type: ignore[attr-defined]
            if type(func) is cst.Name and func.value == "len" and ctx.qualified_name(func) is None:
                return True
            qualified = ctx.qualified_name(func)
            if qualified is not None and qualified.startswith("torch.") and qualified not in _FROM_NUMBERS:
                return True
            if type(func) is cst.Attribute and func.attr.value == "format" and _reads_fields(func.value):
                return True  # `"{0.dtype}".format(total)`
    return False


def _reads_fields(template: cst.BaseExpression) -> bool:
    """A `str.format` template that may read an attribute or an item of what it is
    given (`{0.dtype}`, `{t[0]}`), or one that is not a literal."""
    text = string_value(template)
    return text is None or re.search(r"\{[^{}:!]*[.\[]", text) is not None


# torch functions that accept a Python number where a tensor was
_FROM_NUMBERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})


def _target_nodes(ctx: FileContext, body: cst.CSTNode) -> set[cst.CSTNode]:
    """Unpacking targets (`total, losses = 0, []`): tuples that bind, not hold."""
    out: set[cst.CSTNode] = set()
    for node in ctx.subtree(body):
        if type(node) in (cst.AssignTarget, cst.For, cst.CompFor):
            out.add(node.target)
    return out


def _derived(ctx: FileContext, body: cst.CSTNode, name: str) -> set[str]:
    """`name` and every name assigned from an expression reading it, or bound
    by a loop or comprehension over one (`l` of `[l.grad_fn for l in losses]`)."""
    edges = [(read, bound) for bound, read in _sources(ctx, body)]
    edges += [(names_in(node.iter, ctx), target_names(node.target))  # type: ignore[attr-defined]
              for node in only(ctx.subtree(body), cst.CompFor)]
    return _closure({name}, edges)


def returned_names(ctx: FileContext, function: cst.FunctionDef) -> set[str]:
    """Names whose values flow into what `function` returns: read by a
    `return`, then back through assignments, an item stored into a returned
    container included (`losses["mask"] = loss_mask / n; return losses`)."""
    returned: set[str] = set()
    for node in only(ctx.subtree(function.body), cst.Return):
        if node.value is not None:  # type: ignore[attr-defined]
            returned |= names_in(node.value, ctx)  # type: ignore[attr-defined]
    return _closure(returned, _sources(ctx, function.body))


def outlives_call(ctx: FileContext, function: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """Whether `value`, an expression of `function`, or anything built from it without
    detaching it, may still be read once the call of `function` is over: it is returned
    or yielded, or bound to or stored (`outs.append(value)`, `logs["x"] = value`) in a
    variable that is not the function's own local (`self.samples`, an item of a
    parameter, a module global). Followed through the bindings that may reach each
    read: `x = x.detach()` ends what `x` held before."""
    binders = _binders(ctx, function)
    rebindings: dict[str, list[cst.CSTNode]] = {}  # the values each name is bound to anew
    for node, _, names, stored in binders:
        for name in () if stored else names:
            rebindings.setdefault(name, []).append(node)
    graph: set[cst.CSTNode] = set()  # the binders whose values hold the graph
    held: set[str] = set()  # the names they give them

    def holds_graph(expr: cst.BaseExpression) -> bool:
        """`expr` is `value` or reads it, or a name that a binder holding the graph may
        have given its value where `expr` reads it; and does not detach what it reads."""
        if detaches(expr):
            return False
        for node in ctx.subtree(expr):
            if node is value:
                return True
            name = dotted_name(node) if type(node) in (cst.Name, cst.Attribute) else None  # type: ignore[arg-type]
            if name not in held:
                continue
            stores = [binder for binder, _, names, stored in binders if stored and binder in graph and name in names]
            if graph.intersection(reaching(ctx, node, rebindings.get(name, []) + stores)):  # type: ignore[arg-type]
                return True
        return False

    changed = True
    while changed:
        changed = False
        for node, values, names, _ in binders:
            if node not in graph and any(holds_graph(v) for v in values):
                graph.add(node)
                held |= names
                changed = True
    if any(not own_variable(ctx, value, name.partition(".")[0]) for name in held):
        return True
    return any(node.value is not None and holds_graph(node.value)  # type: ignore[attr-defined]
               for node in ctx.subtree(function.body) if type(node) in (cst.Return, cst.Yield))


def kept_past_iteration(ctx: FileContext, loop: cst.For | cst.While, name: str, skip: set[cst.CSTNode]) -> bool:
    """Whether the list variable `name`, which each iteration of `loop` binds anew and
    the calls in `skip` fill, or anything built from it without detaching it, may outlive
    the iteration that built it; True where it cannot be told. Followed in the order of
    the bindings, as `outlives_call` does (`total = total.item()` ends what `total` held:
    what reads it later reads a number). It may outlive the iteration where: a binding of
    `name` is anything but a fresh empty list (the object may be shared); it is read in
    an iteration after the one that built it or after the loop (`keep = losses` before
    `losses = []`; `total = total + sum(losses)` reads the total of the iteration
    before: a binding binds past the value it reads), or read by a nested function or bound by `:=`; it is handed to a call
    that may keep it (anything but library math, printing and logging, and `sum`, `len`
    and the like), stored in an attribute, an item or another container, returned,
    yielded, asked for its graph (`.grad_fn`), or held by a variable of another scope."""
    function = ctx.enclosing_function(loop)
    if function is None:
        return True
    binders = _binders(ctx, function)
    rebindings: dict[str, list[cst.CSTNode]] = {}
    for node, _, names, stored in binders:
        for bound in () if stored else names:
            rebindings.setdefault(bound, []).append(node)
    lists = rebindings.get(name, [])
    if not lists or not all(type(node) is cst.Assign and _empty_list(node.value) for node in lists):  # type: ignore[attr-defined]
        return True
    graph: set[cst.CSTNode] = set(lists)  # the binders whose values hold the list or what is built from it
    held = {name}
    unordered: set[str] = set()  # names a comprehension binds from them: every read counts
    bound = _bound_name_nodes(ctx, function)
    reads = [node for node in ctx.subtree(function.body) if type(node) is cst.Name and node not in bound]
    reaching_of: dict[cst.Name, list[cst.CSTNode]] = {}  # asked again on every pass: the bindings stay put

    def holding(read: cst.Name) -> list[cst.CSTNode]:
        """The binders holding the graph whose value `read` may read."""
        if read.value in unordered:
            return [read]
        if read.value not in held or _skipped(ctx, read, skip):
            return []
        if read not in reaching_of:
            reaching_of[read] = reaching(ctx, read, rebindings.get(read.value, []))
        return [b for b in reaching_of[read] if b in graph]

    changed = True
    while changed:
        changed = False
        for node, values, names, stored in binders:
            if node in graph or node in skip:
                continue
            if any(holding(read) and not _made_number(ctx, read, value)
                   for value in values for read in ctx.subtree(value) if type(read) is cst.Name):
                if stored or any("." in n or not own_variable(ctx, node, n) for n in names):
                    return True  # stored beside what a name holds, or in a name of another scope
                graph.add(node)
                held |= names
                changed = True
        for comprehension in only(ctx.subtree(function.body), cst.CompFor):
            targets = target_names(comprehension.target)  # type: ignore[attr-defined]
            if not targets <= unordered and any(
                    holding(read) for read in ctx.subtree(comprehension.iter) if type(read) is cst.Name):  # type: ignore[attr-defined]
                unordered |= targets
                changed = True
    start, end = ctx.order_index(loop), ctx.subtree_end(loop)
    for read in reads:
        sources = holding(read)  # type: ignore[arg-type]
        if not sources:
            continue
        at = ctx.order_index(read)
        if not start < at <= end or any(source is not read and bound_at(ctx, source) >= at for source in sources):
            return True  # read after the loop, or in an iteration after the one that built it
        if read.value not in unordered and not any(ctx.order_index(value) > start
                                                   for value in always_before(ctx, read, rebindings[read.value])):
            return True  # a binding in a branch (`if c: total = sum(losses)`) may be of an earlier iteration
        if ctx.enclosing_function(read) is not function:
            return True  # read by a nested function, whenever it is called
        if _may_keep(ctx, read):
            return True
    return False


def _empty_list(value: cst.BaseExpression) -> bool:
    """`[]`, `list()`: a new list, shared with nothing."""
    if type(value) is cst.List:
        return not value.elements
    return (type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "list"
            and not value.args)


def _bound_name_nodes(ctx: FileContext, function: cst.FunctionDef) -> set[cst.CSTNode]:
    """The names of `function` that are bound, not read: assignment, loop and
    comprehension targets, `:=` and `as` targets, parameters, attributes' and keywords'
    names (`x.total`, `f(total=...)`)."""
    bound: set[cst.CSTNode] = set()
    for node in ctx.subtree(function):
        target = getattr(node, "target", None) if type(node) in (
            cst.AssignTarget, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr) else None
        if type(node) is cst.AsName:
            target = node.name
        if target is not None:
            bound.update(n for n in ctx.subtree(target) if type(n) is cst.Name and _binds_itself(ctx, n, target))
        elif type(node) is cst.Attribute:
            bound.add(node.attr)
        elif type(node) in (cst.Arg, cst.Param) and getattr(node, "keyword", None) is not None:
            bound.add(node.keyword)  # type: ignore[attr-defined]
        if type(node) in (cst.Param, cst.FunctionDef, cst.ClassDef):
            bound.add(node.name)  # type: ignore[attr-defined]
    return bound


def _binds_itself(ctx: FileContext, name: cst.Name, target: cst.CSTNode) -> bool:
    """`name`, in the target `target`, is bound itself: not the object of an attribute
    or an item set (`self` of `self.total = ...`, `losses` of `losses[0] = ...`)."""
    node: cst.CSTNode = name
    while node is not target:
        node = ctx.parent(node)  # type: ignore[assignment]
        if type(node) not in (cst.Tuple, cst.List, cst.Element, cst.StarredElement):
            return node is target
    return True


def _skipped(ctx: FileContext, read: cst.Name, skip: set[cst.CSTNode]) -> bool:
    """`read` is the receiver of one of the filling calls (`losses` of `losses.append(loss)`)."""
    call = ctx.parent(ctx.parent(read))  # type: ignore[arg-type]
    return call in skip and getattr(call, "func", None) is ctx.parent(read)


# builtins that build a new value from what they are given and run none of the
# caller's code: what they return is followed, not the call
_FOLLOWED_BUILTINS = frozenset({"sum", "min", "max", "len", "list", "tuple", "reversed", "enumerate", "zip"})
# statements whose evaluation keeps nothing it reads (an expression statement drops its value)
_READING_STATEMENTS = (cst.Expr, cst.If, cst.While, cst.Del, cst.Assign, cst.AnnAssign, cst.For)


def _may_keep(ctx: FileContext, read: cst.Name) -> bool:
    """What `read` reads may be kept by the expression and statement around it: it is
    handed to a call that may keep it (see `reads_only`), put in a container written
    out, asked for its graph, read by a lambda, a nested function or a generator, bound by
    `:=`, or read by a statement other than an expression, a test, a `del` or a binding
    of plain names (which the caller follows). A number made of it (`sum(losses).item()`,
    `len(losses)`) keeps nothing."""
    child: cst.CSTNode = read
    for ancestor in ctx.ancestors(read):
        kind = type(ancestor)
        if _number(ctx, ancestor, child):
            return False  # a number (`sum(losses).item()`, `len(losses)`) keeps no graph
        if kind in (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.NamedExpr, cst.Yield, cst.Await, cst.GeneratorExp,
                    cst.List, cst.Tuple, cst.Set, cst.Dict, cst.StarredElement):
            return True
        if kind is cst.Attribute and ancestor.attr.value in _GRAPH_ATTRIBUTES:  # type: ignore[attr-defined]
            return True
        if kind is cst.Arg and not _follows(ctx, ctx.parent(ancestor)):  # type: ignore[arg-type]
            return True
        if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            if kind not in _READING_STATEMENTS:
                return True
            if kind in (cst.Assign, cst.AnnAssign) and not all(
                    type(t) is cst.Name for t in assignment_targets(ancestor)):  # type: ignore[arg-type]
                return True
            if kind is cst.For and child is not ancestor.iter:  # type: ignore[attr-defined]
                return True
            return False
        child = ancestor
    return True


def _made_number(ctx: FileContext, read: cst.Name, value: cst.BaseExpression) -> bool:
    """`value` makes what `read` reads a number on the way (`total.item()`, `len(losses)`)."""
    node: cst.CSTNode = read
    while node is not value:
        child, node = node, ctx.parent(node)  # type: ignore[assignment]
        if _number(ctx, node, child):
            return True
    return False


def _number(ctx: FileContext, node: cst.CSTNode, child: cst.CSTNode) -> bool:
    """`node` makes its part `child` a value without a graph: `child.item()`,
    `child.detach()`, `child.data` (see `detaches`), `float(child)`, `len(child)`."""
    if type(node) is cst.Attribute:
        return node.value is child and node.attr.value in _DETACHING_METHODS
    if type(node) is cst.Arg and type(call := ctx.parent(node)) is cst.Call and type(call.func) is cst.Name:
        return (call.func.value in (*_DETACHING_BUILTINS, "len") and ctx.qualified_name(call.func) is None
                and len(call.args) == 1)
    return False


def _follows(ctx: FileContext, call: cst.Call) -> bool:
    """A call whose arguments are followed into what it returns, not kept by it:
    library math, printing and logging (see `reads_only`), `sum(...)`, `len(...)`."""
    func = call.func
    if type(func) is cst.Name and func.value in _FOLLOWED_BUILTINS and ctx.qualified_name(func) is None:
        return not any(arg.keyword is not None for arg in call.args)
    return reads_only(ctx, call)


def _binders(ctx: FileContext, function: cst.FunctionDef
             ) -> list[tuple[cst.CSTNode, list[cst.BaseExpression], set[str], bool]]:
    """The assignments, `for` loops and storing calls (`outs.append(x)`) of `function`:
    each with the values it binds or stores, the names it gives them, and whether it
    stores them beside what the name holds (an item, `+=`, a storing call) rather than
    binding the name anew."""
    found: list[tuple[cst.CSTNode, list[cst.BaseExpression], set[str], bool]] = []
    for node in ctx.subtree(function.body):
        if type(node) is cst.For:
            found.append((node, [node.iter], target_names(node.target), False))
        elif type(node) in (cst.Assign, cst.AnnAssign, cst.AugAssign) and node.value is not None:  # type: ignore[attr-defined]
            targets = assignment_targets(node)
            stored = type(node) is cst.AugAssign or any(type(t) is cst.Subscript for t in targets)
            found.append((node, [node.value], set().union(*(_bound(t) for t in targets)), stored))  # type: ignore[attr-defined]
        elif (receiver := method_call(node, *STORING_METHODS)) is not None:
            found.append((node, [arg.value for arg in node.args], _bound(receiver), True))  # type: ignore[attr-defined]
    return found


def _closure(names: set[str], edges: list[tuple[set[str], set[str]]]) -> set[str]:
    """`names` grown through `edges` (from, to) until nothing changes: any
    edge whose `from` meets the set adds its `to`."""
    grown = set(names)
    changed = True
    while changed:
        changed = False
        for start, end in edges:
            if start & grown and not end <= grown:
                grown |= end
                changed = True
    return grown


def reads_only(ctx: FileContext, call: cst.Call) -> bool:
    """`call` reads what it is handed and keeps none of it: a builtin that reads
    (`print`, `len`), a logging method, a function of a module that only reads;
    never a call given `out=`, which writes into a buffer that outlives it
    (`torch.cat(parts, out=buf)`)."""
    if any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args):
        return False
    func = call.func
    if type(func) is cst.Name and func.value in _READING_BUILTINS and ctx.qualified_name(func) is None:
        return True
    if type(func) is cst.Attribute and func.attr.value in _LOGGING_METHODS:
        return True
    qualified = ctx.qualified_name(func)
    return (qualified is not None and qualified.startswith(_TRANSPARENT_MODULES)
            and not qualified.startswith(_GRAPH_MODULES) and qualified not in _KEEPING)


def _holds(container: cst.List | cst.Tuple | cst.Dict | cst.Set, tracked: set[str]) -> bool:
    values = [element.value for element in container.elements]
    return any(type(v) in (cst.Name, cst.Attribute) and dotted_name(v) in tracked for v in values)


def detaches(expr: cst.BaseExpression) -> bool:
    """`x.item()`, `x.detach().cpu()`, `x.data`, `float(x)`, a number."""
    if type(expr) in (cst.Integer, cst.Float):
        return True
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in _DETACHING_BUILTINS:
        return True
    while type(expr) in (cst.Call, cst.Attribute, cst.Subscript):
        if type(expr) is cst.Attribute and expr.attr.value in _DETACHING_METHODS:
            return True
        expr = expr.func if type(expr) is cst.Call else expr.value
    return False


def own_variable(ctx: FileContext, at: cst.CSTNode, name: str) -> bool:
    """Whether `name`, accumulated at `at`, is a variable whose every use the
    checks of its body see: a local of the enclosing function (bound there, not
    declared `global` / `nonlocal`, not a parameter: those are shared with the
    code outside), or a variable of the module accumulated in the module's own
    code that no function or class of the module reads."""
    scope = ctx.scope_of(at)
    if scope.is_class or name in scope.declared_outer or (name not in scope.locals and name not in scope.aliases):
        return False
    if scope.is_function:
        return name not in {param.name.value for param in _parameters(scope.node.params)}  # type: ignore[union-attr]
    return not _read_in_inner_scope(ctx, name)


def _read_in_inner_scope(ctx: FileContext, name: str) -> bool:
    """A function or class of the module reads the module's variable `name`."""
    module_scope = ctx.scopes.module_scope
    for node in ctx.nodes_of(cst.Name):
        if node.value != name:  # type: ignore[attr-defined]
            continue
        scope = ctx.scope_of(node)
        if scope is module_scope:
            continue
        parent = ctx.parent(node)
        if getattr(parent, "attr", None) is node or getattr(parent, "keyword", None) is node:
            continue  # `x.total`, `f(total=...)`: not the variable
        if name in scope.declared_outer or (name not in scope.locals and name not in scope.aliases):
            return True
    return False


# what gives a plain number (or some other value that is no tensor), never a tensor
_NUMBER_BUILTINS = frozenset({"float", "int", "round", "sum", "len", "abs", "max", "min", "pow", "bool", "complex"})
_NUMBER_METHODS = frozenset({"item", "tolist", "numpy"})
_NUMBER_MODULES = ("math.", "numpy.", "statistics.")
_NOT_TENSORS = (
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
    cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
    cst.Lambda, cst.BooleanOperation, cst.Comparison,
)
# calls by which code asks what a value is: it may be no tensor
_TYPE_TESTS = frozenset({"isinstance", "hasattr", "type", "callable"})


def may_hold_number(ctx: FileContext, body: cst.CSTNode, name: str) -> bool:
    """Whether `name` may hold a plain number (or anything else that is no
    tensor) in the code body `body`: some binding of it gives or may give one (a
    literal, `x if c else 0.0`, `a or 0.0`, `float(...)`, `sum(...)`, `.item()`,
    `name += 1.0`, a name that may hold one), the code asks what it holds
    (`torch.is_tensor(name)`, `isinstance(name, ...)`), or some function or
    class of the file declares it `global` / `nonlocal` and may rebind it."""
    if any(name in scope.declared_outer for scope in ctx.scopes.scopes()):
        return True
    return _may_hold_number(ctx, body, name, set())


def _may_hold_number(ctx: FileContext, body: cst.CSTNode, name: str, seen: set[str]) -> bool:
    if name in seen:
        return False
    seen.add(name)
    for node in ctx.own_nodes(body):
        kind = type(node)
        if kind is cst.Call and _tests_type(ctx, node, name):  # type: ignore[arg-type]
            return True
        if kind is cst.Assign:
            values = [v for t in node.targets for v in _bound_values(t.target, node.value, name)]  # type: ignore[attr-defined]
        elif kind in (cst.AnnAssign, cst.AugAssign, cst.NamedExpr) and node.value is not None:  # type: ignore[attr-defined]
            values = _bound_values(node.target, node.value, name)  # type: ignore[attr-defined]
        else:
            continue
        if any(_number_valued(ctx, body, value, seen) for value in values):
            return True
    return False


def _bound_values(target: cst.BaseExpression, value: cst.BaseExpression, name: str) -> list[cst.BaseExpression]:
    """What an assignment to `target` gives `name`, where it can be told: the
    whole value, or its element in `a, b = 0.0, loss` (other unpacking: nothing known)."""
    return [part for bound, part in assigned_parts(target, value) if part is not None and dotted_name(bound) == name]


def _number_valued(ctx: FileContext, body: cst.CSTNode, expr: cst.BaseExpression, seen: set[str]) -> bool:
    """`expr` gives, or may give, a value that is no tensor. A call or attribute
    the file cannot see into is judged by the rule's other evidence (the name is
    back-propagated, or a loss call)."""
    def number(part: cst.BaseExpression) -> bool:
        return _number_valued(ctx, body, part, seen)

    kind = type(expr)
    if kind in _NOT_TENSORS:
        return True
    if kind is cst.Name:
        value = expr.value  # type: ignore[attr-defined]
        return value in ("None", "True", "False") or _may_hold_number(ctx, body, value, seen)
    if kind is cst.UnaryOperation:
        return number(expr.expression)  # type: ignore[attr-defined]
    if kind is cst.IfExp:
        return number(expr.body) or number(expr.orelse)  # type: ignore[attr-defined]
    if kind is cst.BinaryOperation:  # a tensor and a number make a tensor
        return number(expr.left) and number(expr.right)  # type: ignore[attr-defined]
    if kind is cst.Call:
        func = expr.func  # type: ignore[attr-defined]
        if type(func) is cst.Name and func.value in _NUMBER_BUILTINS and ctx.qualified_name(func) is None:
            return True
        if type(func) is cst.Attribute and func.attr.value in _NUMBER_METHODS:
            return True
        qualified = ctx.qualified_name(func)
        return qualified is not None and qualified.startswith(_NUMBER_MODULES)
    return False


def _tests_type(ctx: FileContext, call: cst.Call, name: str) -> bool:
    """`torch.is_tensor(name)`, `isinstance(name, torch.Tensor)`, `hasattr(name, "item")`."""
    if not call.args or dotted_name(call.args[0].value) != name:
        return False
    func = call.func
    if type(func) is cst.Name and func.value in _TYPE_TESTS and ctx.qualified_name(func) is None:
        return True
    return ctx.qualified_name(func) in ("torch.is_tensor", "torch.is_floating_point")
