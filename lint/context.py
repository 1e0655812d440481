"""Everything the rules of one file share: the tree, its scopes, its parents,
and the analyses computed once for all of them."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Mapping

import libcst as cst

from lint.analysis import names
from lint.analysis.scopes import Scope, ScopeTable

if TYPE_CHECKING:
    from lint.analysis.receivers import Receivers
    from lint.analysis.summarize import FileSummaries
    from lint.rule import Diagnostic
    from lint.summaries import Summary


class FileContext:
    def __init__(
        self, path: str, source: str, module: cst.Module, external: Mapping[str, Summary] | None = None
    ) -> None:
        self.path = path
        # summaries of the project's other modules, by the names this file calls them
        self.external: Mapping[str, Summary] = external or {}
        self.source = source
        self.module = module
        self.scopes = ScopeTable(module)
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.diagnostics: list[Diagnostic] = []
        self.walked = False  # set once every node has its parent recorded
        self._scopes_of: dict[cst.CSTNode, Scope] = {}
        self._nodes: list[cst.CSTNode] | None = None
        self._call_sites: dict[cst.FunctionDef, list[cst.Call]] | None = None
        self._by_type: dict[tuple[type, ...], list[cst.CSTNode]] = {}

    # -- tree navigation ---------------------------------------------------
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, cst.FunctionDef):
                return ancestor
        return None

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope in which `node` is evaluated."""
        cache = self._scopes_of
        found = cache.get(node)
        if found is not None:
            return found
        path = [node]
        child = node
        scope = self.scopes.module_scope
        for ancestor in self.ancestors(node):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef) and child is ancestor.body:  # type: ignore[attr-defined]
                scope = self.scopes.scope_for(ancestor)  # type: ignore[arg-type]
                break
            known = cache.get(ancestor)
            if known is not None and not (type(ancestor) in (cst.FunctionDef, cst.ClassDef)):
                scope = known
                break
            path.append(ancestor)
            child = ancestor
        for visited in path:
            cache[visited] = scope
        return scope

    def nodes(self) -> list[cst.CSTNode]:
        """Every code-bearing node of the file in source (pre-)order, as the
        one walk of the engine saw them; no second walk needed."""
        if not self.walked:
            raise RuntimeError("the node list is complete only after the walk: use it in Rule.finish()")
        if self._nodes is None:
            self._nodes = [self.module, *self.parents]
        return self._nodes

    def nodes_of(self, *types: type) -> list[cst.CSTNode]:
        """Nodes of exactly these (concrete) types, in source order; cached."""
        found = self._by_type.get(types)
        if found is None:
            wanted = set(types)
            found = self._by_type[types] = [n for n in self.nodes() if type(n) in wanted]
        return found

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # -- the file's own functions ----------------------------------------------
    def local_callee(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        """The function of this file that a call `f(...)` / `self.f(...)` /
        `cls.f(...)` runs, when its name is defined once and not imported."""
        return self.local_function(node.func) if isinstance(node, cst.Call) else None

    def local_function(self, func: cst.BaseExpression) -> cst.FunctionDef | None:
        """The function of this file that `f` / `self.f` / `cls.f` names."""
        name = None
        if isinstance(func, cst.Name):
            name = func.value
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            name = func.attr.value
        defs = self.scopes.functions.get(name or "")
        if (defs is None or len(defs) != 1) and isinstance(func, cst.Name):
            defs = self._constructors(func.value)
        if defs is None or len(defs) != 1:
            return None
        if isinstance(func, cst.Name) and self.qualified_name(func) is not None:
            return None  # an import shadows it
        return defs[0]

    def _constructors(self, name: str) -> list[cst.FunctionDef]:
        """`__init__` of the one class of the file called `name`: calling the
        class runs it."""
        classes = [n for n in self.scopes.by_node if isinstance(n, cst.ClassDef) and n.name.value == name]
        if len(classes) != 1 or name in self.scopes.functions:
            return []
        return [
            stmt for stmt in classes[0].body.body
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__"
        ]

    def call_sites(self, func: cst.FunctionDef) -> list[cst.Call]:
        """Every call of the file that runs `func` (see `local_callee`)."""
        if self._call_sites is None:
            self._call_sites = {}
            for call in self.nodes_of(cst.Call):
                callee = self.local_callee(call)
                if callee is not None:
                    self._call_sites.setdefault(callee, []).append(call)  # type: ignore[arg-type]
        return self._call_sites.get(func, [])

    # -- names ---------------------------------------------------------------
    def qualified_name(self, expr: cst.BaseExpression) -> str | None:
        """Canonical torch-style qualified name of `expr`, or None."""
        return names.resolve(expr, self.scope_of(expr))

    def qualified_names(self, expr: cst.BaseExpression) -> set[str]:
        return names.resolve_all(expr, self.scope_of(expr))

    def call_name(self, node: cst.CSTNode) -> str | None:
        """Qualified name of the function a call calls, or None."""
        if isinstance(node, cst.Call):
            return self.qualified_name(node.func)
        return None

    def local_name_for(self, qualified: str, at: cst.CSTNode) -> str | None:
        """A name visible at `at` that is bound by import to `qualified`
        (`th` after `import torch as th`), or None."""
        scope: Scope | None = self.scope_of(at)
        while scope is not None:
            for local, targets in scope.imports.items():
                if targets == {qualified} and names.lookup(local, self.scope_of(at)) == {qualified}:
                    return local
            scope = scope.parent
        return None

    # -- shared analyses -------------------------------------------------------
    @cached_property
    def receivers(self) -> Receivers:
        from lint.analysis.receivers import Receivers

        if not self.walked:
            raise RuntimeError("receivers need the whole tree: query them in Rule.finish()")
        return Receivers(self)

    @cached_property
    def summaries(self) -> FileSummaries:
        from lint.analysis.summarize import FileSummaries

        if not self.walked:
            raise RuntimeError("summaries need the whole tree: query them in Rule.finish()")
        return FileSummaries(self, self.external)
