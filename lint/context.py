"""Everything the rules of one file share: the tree, its scopes, its parents,
and the analyses computed once for all of them."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from lint.analysis import names
from lint.analysis.scopes import Scope, ScopeTable

if TYPE_CHECKING:
    from lint.analysis.receivers import Receivers
    from lint.rule import Diagnostic


class FileContext:
    def __init__(self, path: str, source: str, module: cst.Module) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.scopes = ScopeTable(module)
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.diagnostics: list[Diagnostic] = []
        self.walked = False  # set once every node has its parent recorded

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
        child = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, cst.FunctionDef | cst.ClassDef) and child is ancestor.body:
                return self.scopes.scope_for(ancestor)
            child = ancestor
        return self.scopes.module_scope

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

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
