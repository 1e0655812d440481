"""The semantic model of one file, complete before any rule runs.

One walk of the tree records, for every code-bearing node, its parent, the
scope it is evaluated in, and its place in source order; the statements give
the scopes' bindings (`ScopeTable`); the calls that run a function of the
same file give the file's call graph. Rules only read the model, so a query
gives the same answer whenever it is asked.

Analyses built on top of the model (what each variable holds, what values
flow where) are computed on first use through `shared()`, once per file:
the model they read is already complete, so when they run cannot change
what they find.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence, TypeVar

import libcst as cst

from trainlint.analysis import names
from trainlint.analysis.scopes import Scope, ScopeTable, binding_scope, receiver_method
from trainlint.analysis.walk import calls_in_order, children, iter_nodes, own_nodes
from trainlint.positions import code_of
from trainlint.timing import NoTimer, Timer

T = TypeVar("T")
_CALLED = object()  # marks the end of a call's subtree in the walk
M = TypeVar("M", bound="SemanticModel")


class SemanticModel:
    def __init__(self, path: str, source: str, module: cst.Module, timer: Timer | None = None) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.timer = timer or NoTimer()
        self.scopes = ScopeTable(module)
        # keyed by id(): a LibCST node's __hash__ is a Python call, and these
        # are filled for every node; the tree keeps every keyed node alive
        self._parents: dict[int, cst.CSTNode] = {}
        self._scope: dict[int, Scope] = {}
        self._order: list[cst.CSTNode] = []
        self._by_type: dict[type, list[cst.CSTNode]] = {}
        self._own: dict[cst.CSTNode, list[cst.CSTNode]] = {}
        self._index: dict[int, int] = {}  # place in source order
        self._calls: dict[cst.CSTNode, list[cst.CSTNode]] = {}
        self._qualified: dict[cst.CSTNode, str | None] = {}
        self._import_heads: frozenset[str] | None = None  # names an import or alias binds (`may_be_imported`)
        self._star_import = False
        # before the call graph: finding a method's receiver asks a shared analysis of the tree
        self._shared: dict[Callable[..., object], object] = {}
        self._record_tree()
        self._classes = self._kept_classes(_classes(self.scopes))
        self._constructors = _constructors(self.scopes, self._classes)
        self._callees: dict[cst.Call, cst.FunctionDef] = {}
        self._call_sites: dict[cst.FunctionDef, list[cst.Call]] = {}
        self._record_call_graph()

    # -- construction --------------------------------------------------------
    def _record_tree(self) -> None:
        """One walk: parent, scope, source order and type of every node; and
        for each code body (a function's, the module's) its own nodes and its
        calls in evaluation order, nested functions, classes and lambdas apart."""
        parents, scope_of, order, by_type, index = self._parents, self._scope, self._order, self._by_type, self._index
        own, calls = self._own, self._calls
        scope_for = self.scopes.by_node
        module = self.module
        # the lists of the body a node belongs to travel with it (own nodes,
        # calls): no lookup by body per node
        body: tuple[list[cst.CSTNode], list[cst.CSTNode]] | None = ([], [])
        own[module], calls[module] = body  # type: ignore[misc]
        stack: list[tuple[cst.CSTNode, object, Scope, tuple[list[cst.CSTNode], list[cst.CSTNode]] | None]] = [
            (module, None, self.scopes.module_scope, body)
        ]
        while stack:
            node, parent, scope, body = stack.pop()
            if parent is _CALLED:  # every node under this call has been seen
                body[1].append(node)  # type: ignore[index]
                continue
            key = id(node)
            index[key] = len(order)
            order.append(node)
            scope_of[key] = scope
            if parent is not None:
                parents[key] = parent  # type: ignore[assignment]
            kind = type(node)
            same = by_type.get(kind)
            if same is None:
                by_type[kind] = [node]
            else:
                same.append(node)
            kids = children(node)
            kids.reverse()
            if kind is cst.FunctionDef or kind is cst.ClassDef:
                # the body runs in the scope the definition opens; decorators,
                # bases, defaults and annotations in the enclosing one, when
                # the definition runs: they belong to no body's flow
                inner_body, inner = node.body, scope_for[node]  # type: ignore[attr-defined,index]
                inner_lists = None
                if kind is cst.FunctionDef:
                    inner_lists = ([], [])
                    own[inner_body], calls[inner_body] = inner_lists
                stack.extend(
                    (kid, node, inner, inner_lists) if kid is inner_body else (kid, node, scope, None)
                    for kid in kids
                )
                continue
            if kind is cst.Lambda:
                body = None
            elif body is not None:
                body[0].append(node)
                if kind is cst.Call:
                    stack.append((node, _CALLED, scope, body))
            stack.extend([(kid, node, scope, body) for kid in kids])

    def _record_call_graph(self) -> None:
        functions = self.scopes.functions
        classes = self._constructors
        for call in self.nodes_of(cst.Call):
            assert type(call) is cst.Call
            func = call.func
            name = self._called_name(func) or (func.attr.value if type(func) is cst.Attribute else None)
            if name not in functions and name not in classes:
                continue
            callee = self.local_function(call.func)
            if callee is not None:
                self._callees[call] = callee
                self._call_sites.setdefault(callee, []).append(call)

    # -- tree navigation -----------------------------------------------------
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(id(node))

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        parents = self._parents
        current = parents.get(id(node))
        while current is not None:
            yield current
            current = parents.get(id(current))

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for ancestor in self.ancestors(node):
            if type(ancestor) is cst.FunctionDef:
                return ancestor  # type: ignore[return-value]
        return None

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope in which `node` is evaluated. Nodes built by a rule (not
        part of the file's tree) are read in the module scope."""
        return self._scope.get(id(node), self.scopes.module_scope)

    def nodes(self) -> list[cst.CSTNode]:
        """Every code-bearing node of the file in source (pre-)order."""
        return self._order

    def nodes_of(self, *types: type) -> list[cst.CSTNode]:
        """Nodes of exactly these (concrete) types, in source order."""
        if len(types) == 1:
            return self._by_type.get(types[0], [])
        found = [node for kind in set(types) for node in self._by_type.get(kind, ())]
        index = self._index
        found.sort(key=lambda node: index[id(node)])  # sorted runs, merged: no walk over every node
        return found

    def subtree(self, root: cst.CSTNode) -> Sequence[cst.CSTNode]:
        """`root` and every node under it in source order, as `walk.iter_nodes`
        yields them: a slice of the model's node list, not a walk."""
        start = self._index.get(id(root))
        if start is None:
            return list(iter_nodes(root))
        return self._order[start : self.subtree_end(root) + 1]

    def order_index(self, node: cst.CSTNode) -> int:
        """The place of a node of the file in source (pre-)order."""
        return self._index[id(node)]

    def subtree_end(self, root: cst.CSTNode) -> int:
        """The place in source order of the last node under `root` (a node of
        the file): its subtree ends with it."""
        last = root  # follow the last children
        while True:
            kids = children(last)
            if not kids:
                return self._index[id(last)]
            last = kids[-1]

    def own_nodes(self, body: cst.CSTNode) -> Sequence[cst.CSTNode]:
        """The nodes of one code body (a function's body, or the module) in
        source order, not those of nested functions, classes or lambdas:
        their code runs elsewhere. Any other node: its subtree, likewise."""
        found = self._own.get(body)
        return found if found is not None else list(own_nodes(body))

    def calls_in_order(self, body: cst.CSTNode) -> Sequence[cst.Call]:
        """The calls of `body` in the order Python evaluates them (see
        `walk.calls_in_order`), for a code body without walking it again."""
        found = self._calls.get(body)
        return found if found is not None else calls_in_order(body)  # type: ignore[return-value]

    def loops(self) -> list[cst.For | cst.While]:
        """Every `for` and `while` statement, in source order."""
        return self.nodes_of(cst.For, cst.While)  # type: ignore[return-value]

    def code(self, node: cst.CSTNode) -> str:
        return code_of(self.module, node)

    # -- the file's own functions ----------------------------------------------
    def local_callee(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The function of this file that a call `f(...)` / `self.f(...)` /
        `cls.f(...)` runs, when its name is defined once and not imported; or the
        method a call on its class runs (`Trainer.step(self, x)`, see `_class_method`)."""
        return self._callees.get(node) if type(node) is cst.Call else None

    def local_class(self, func: cst.BaseExpression) -> cst.ClassDef | None:
        """The class of this file that `func` names where it is read: defined once, its
        name bound to nothing else (see `_kept_classes`), and not shadowed by an import."""
        if type(func) is not cst.Name or self.qualified_name(func) is not None:
            return None
        return self._classes.get(func.value)

    def local_function(self, func: cst.BaseExpression) -> cst.FunctionDef | None:
        """The function of this file that `f` / `self.f` / `cls.f` / `Trainer.f` names;
        for `f`, one that the name, where it is read, is bound to (see `_bound_at`)."""
        name = self._called_name(func)
        if name is None:
            return self._class_method(func) if type(func) is cst.Attribute else None
        defs = self.scopes.functions.get(name)
        if defs is None and type(func) is cst.Name:
            defs = self._constructors.get(name)  # calling a class runs its __init__
        if defs and type(func) is cst.Name:
            defs = self._bound_at(func, defs)  # type: ignore[arg-type]
        if not defs:
            return None
        if len(defs) > 1 and not self._redefined_method(defs):
            return None
        if type(func) is cst.Name and self.qualified_name(func) is not None:
            return None  # an import shadows it
        return defs[-1]

    def _called_name(self, func: cst.BaseExpression) -> str | None:
        """`f` for `f`, and for `self.f` / `cls.f` called on the instance (or class) a
        method runs on, whatever the method calls it (`trainer.f` of `def fit(trainer)`):
        the names a local function is called by."""
        if type(func) is cst.Name:
            return func.value
        if type(func) is cst.Attribute and receiver_method(self, func.value, classes=True) is not None:  # type: ignore[arg-type]
            return func.attr.value
        return None

    def functions_named(self, name: cst.Name) -> list[cst.FunctionDef]:
        """The functions of this file that `name`, where it is read, may be bound to
        (see `_bound_at`): more than one where its scope defines it more than once."""
        defs = self.scopes.functions.get(name.value)
        return self._bound_at(name, defs) if defs else []

    def functions_called(self, call: cst.Call) -> list[cst.FunctionDef]:
        """The functions of this file a call may run: those its bare name is bound to
        (`build()`, see `functions_named`), or the one a method call on `self` or `cls`
        runs when the file defines it once (`self.configure_optimizers()`)."""
        if type(call.func) is cst.Name:
            return self.functions_named(call.func)
        callee = self.local_callee(call)
        return [callee] if callee is not None else []

    def _bound_at(self, name: cst.Name, defs: list[cst.FunctionDef]) -> list[cst.FunctionDef]:
        """The functions among `defs` (or the `__init__` of classes) whose definition
        binds the binding `name` sees where it is read: a function nested in another
        is seen in that one (and in closures there), not in the rest of the file, and
        not where the name is bound to something else (`cleanup = lambda: ...`); read
        in the scope of the definition itself, only one above the read."""
        here = self.scope_of(name)
        seen = binding_scope(name.value, here)
        read_at = self._index.get(id(name))
        found = []
        for func in defs:
            definition = func if func.name.value == name.value else self.parent(self.parent(func))  # a class
            assert definition is not None
            if binding_scope(name.value, self.scope_of(definition)) is not seen:
                continue
            if seen is here and read_at is not None and self._index[id(definition)] > read_at:
                continue
            found.append(func)
        return found

    def _kept_classes(self, classes: dict[str, cst.ClassDef]) -> dict[str, cst.ClassDef]:
        """`classes` but those whose name is bound again, in the scope their `class`
        statement binds it in, to anything but the class itself (`Trainer =
        wrap(Trainer)`, a loop variable, an assignment in a function under `global
        Trainer`): what the name holds may no longer be the class (`Trainer = Trainer`,
        `(Trainer := Trainer)` keep it). A comprehension's variable is the
        comprehension's own (`[Trainer for Trainer in ...]` binds no name of the module)."""
        rebound: set[str] = set()
        for node in self.nodes_of(cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr,
                                  cst.AsName):
            target = node.name if type(node) is cst.AsName else node.target  # type: ignore[attr-defined]
            value = getattr(self.parent(node), "value", None) if type(node) is cst.AssignTarget else None
            if type(node) in (cst.AnnAssign, cst.NamedExpr):
                if node.value is None:  # type: ignore[attr-defined]
                    continue  # `Trainer: type`, a declaration only
                value = node.value  # type: ignore[attr-defined]
            for part in _target_names(target):
                if type(part) is not cst.Name or part.value not in classes:
                    continue
                if (type(value) is not cst.Name or value.value != part.value) and binding_scope(
                        part.value, self.scope_of(part)) is self.scope_of(classes[part.value]):
                    rebound.add(part.value)
        return {name: cls for name, cls in classes.items() if name not in rebound}

    def _class_method(self, func: cst.Attribute) -> cst.FunctionDef | None:
        """The method `Trainer.f` names: `f` of the body of the file's one class
        `Trainer`, where `Trainer` is read in a scope that sees that class (no import,
        no other binding), and the class defines `f` once (or redefines it, see
        `_redefined_method`). None for a method it inherits: a base may be another
        module's class, and which one defines `f` is not known here."""
        owner = func.value
        if type(owner) is not cst.Name:
            return None
        cls = self._classes.get(owner.value)
        if cls is None or self.qualified_name(owner) is not None:
            return None
        if binding_scope(owner.value, self.scope_of(owner)) is not binding_scope(owner.value, self.scope_of(cls)):
            return None
        body = self.scopes.by_node[cls]
        defs = [f for f in self.scopes.functions.get(func.attr.value, ()) if self._scope[id(f)] is body]
        if not defs or (len(defs) > 1 and not self._redefined_method(defs)):
            return None
        return defs[-1]

    def _redefined_method(self, defs: list[cst.FunctionDef]) -> bool:
        """A method defined more than once in one class body, each time
        unconditionally (a stub, then the real one): the class keeps the last.
        A property's setter is another function, not a redefinition."""
        body = self.parent(defs[0])
        if type(body) is not cst.IndentedBlock or type(self.parent(body)) is not cst.ClassDef:
            return False
        if any(self.parent(other) is not body for other in defs[1:]):
            return False
        return not any(type(d.decorator) is cst.Attribute for d in defs[-1].decorators)

    def call_sites(self, func: cst.FunctionDef) -> list[cst.Call]:
        """Every call of the file that runs `func` (see `local_callee`)."""
        return self._call_sites.get(func, [])

    # -- names ---------------------------------------------------------------
    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        """Canonical torch-style qualified name of `expr`, or None. Rules ask
        it of the same names again and again; the scopes it reads are
        complete, so each answer is kept."""
        try:
            return self._qualified[expr]
        except KeyError:
            found = names.resolve(expr, self.scope_of(expr)) if self.may_be_imported(expr) else None
            self._qualified[expr] = found
            return found

    def may_be_imported(self, expr: cst.BaseExpression) -> bool:
        """Whether `x` / `x.a.b` can have a qualified name at all: `x` is bound
        by an import or an alias somewhere in the file, or the module has a
        star import. Most names are locals, parameters or `self`: this
        answers them without a lookup through their scopes."""
        if self._import_heads is None:
            scopes = list(self.scopes.scopes())
            self._import_heads = frozenset(name for s in scopes for name in (*s.imports, *s.aliases))
            self._star_import = any(s.star_imports for s in scopes)
        head = expr
        while type(head) is cst.Attribute:
            head = head.value  # type: ignore[attr-defined]
        return type(head) is cst.Name and (self._star_import or head.value in self._import_heads)  # type: ignore[attr-defined]

    def qualified_names(self, expr: cst.BaseExpression) -> set[str]:
        return names.resolve_all(expr, self.scope_of(expr))

    def call_name(self, node: cst.CSTNode) -> str | None:
        """Qualified name of the function a call calls, or None."""
        if type(node) is cst.Call:
            return self.qualified_name(node.func)  # type: ignore[attr-defined]
        return None

    def local_name_for(self, qualified: str, at: cst.CSTNode) -> str | None:
        """A name visible at `at` that is bound by import to `qualified`
        (`th` after `import torch as th`), or None."""
        here = self.scope_of(at)
        scope: Scope | None = here
        while scope is not None:
            for local, targets in scope.imports.items():
                if targets == {qualified} and names.lookup(local, here) == {qualified}:
                    return local
            scope = scope.parent
        return None

    # -- analyses built on the model -----------------------------------------
    def shared(self: M, analysis: Callable[[M], T]) -> T:
        """`analysis(self)`, computed once per file and shared by every rule
        that asks. `analysis` must only read the model."""
        if analysis not in self._shared:
            with self.timer.measure(analysis.__name__):
                self._shared[analysis] = analysis(self)
        return self._shared[analysis]  # type: ignore[return-value]

    def release(self) -> None:
        """Empty the model and its shared analyses once the file is done
        (findings, facts and fixes are plain data by then); the model cannot
        be asked anything after. Analyses and rules point back at the model
        and at one another, so the tree would otherwise live on in reference
        cycles until the cyclic collector walks it: about a twentieth of a
        cold run went to those walks."""
        for analysis in self._shared.values():
            if hasattr(analysis, "__dict__"):
                vars(analysis).clear()
        vars(self).clear()




def _target_names(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The parts an assignment's target binds, tuples and lists unpacked."""
    if type(target) in (cst.Tuple, cst.List):
        for element in target.elements:  # type: ignore[attr-defined]
            yield from _target_names(element.value)
    elif type(target) is cst.StarredElement:
        yield from _target_names(target.value)  # type: ignore[attr-defined]
    else:
        yield target


def _classes(scopes: ScopeTable) -> dict[str, cst.ClassDef]:
    """Each class the file defines once, by name, where no function has its name."""
    classes: dict[str, list[cst.ClassDef]] = {}
    for node in scopes.by_node:
        if type(node) is cst.ClassDef:
            classes.setdefault(node.name.value, []).append(node)
    return {name: defs[0] for name, defs in classes.items() if len(defs) == 1 and name not in scopes.functions}


def _constructors(scopes: ScopeTable, classes: dict[str, cst.ClassDef]) -> dict[str, list[cst.FunctionDef]]:
    """`__init__` of each class defined once in the file, by class name."""
    return {
        name: [s for s in cls.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"]
        for name, cls in classes.items()
    }
