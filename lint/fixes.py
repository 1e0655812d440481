"""Applying fixes through LibCST, so formatting and comments survive, and
writing fixed files atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Sequence

import libcst as cst

from trainlint.analysis.literals import is_docstring
from trainlint.analysis.scopes import ScopeTable, dotted_name, import_from_module
from trainlint.project import member_of
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Fix, Replacement


class RequiredImport(str):
    """An entry of `Fix.imports` added even where the module already binds the
    name at top level: the fix knows that binding may not have run when the
    fixed code does (it is conditional, or comes after it)."""

    __slots__ = ()


class _Replace(cst.CSTTransformer):
    def __init__(self, edits: dict[cst.CSTNode, Replacement]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Replacement:  # type: ignore[override]
        if type(original_node) in (cst.IndentedBlock, cst.Module) and original_node not in self.edits:
            return self._keep_comments(original_node, updated_node)  # type: ignore[arg-type]
        return self.edits.get(original_node, updated_node)

    def _keep_comments(self, original: cst.IndentedBlock | cst.Module,
                       updated: cst.IndentedBlock | cst.Module) -> cst.IndentedBlock | cst.Module:
        """A removed statement's own-line comments above it stay: they go to the
        next statement that stays, or to the block's footer (`# why we free
        memory here` may describe more than the line a fix removes)."""
        removed = [isinstance(self.edits.get(statement), cst.RemovalSentinel) for statement in original.body]
        if not any(removed) or len(updated.body) != removed.count(False):
            return updated
        body, pending = [], []
        kept = iter(updated.body)
        for statement, gone in zip(original.body, removed):
            if gone:
                lines = list(statement.leading_lines)  # type: ignore[attr-defined]
                if any(line.comment is not None for line in lines):
                    pending.extend(lines)
                continue
            node = next(kept)
            if pending and hasattr(node, "leading_lines"):
                node = node.with_changes(leading_lines=[*pending, *node.leading_lines])
                pending = []
            body.append(node)
        if not pending:
            return updated.with_changes(body=body)
        if not body and type(updated) is cst.IndentedBlock:
            return updated  # `pass` stands in for a block's only statement; nothing is lost there
        return updated.with_changes(body=body, footer=[*pending, *updated.footer])


def disjoint(fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes applied together: each in turn, less those that edit a node an
    earlier one edits (the engine re-lints and fixes again until stable)."""
    edited: set[cst.CSTNode] = set()
    kept = []
    for fix in fixes:
        if not edited.isdisjoint(fix.edits):
            continue
        edited.update(fix.edits)
        kept.append(fix)
    return kept


def apply_fixes(module: cst.Module, fixes: Sequence[Fix], unsafe: bool = False) -> str:
    """The module's code with the `disjoint` fixes applied.
    `unsafe`: the run allows unsafe fixes (see `drop_unused_imports`)."""
    edits: dict[cst.CSTNode, Replacement] = {}
    imports: dict[str, str] = {}  # one entry per module, required if any fix requires it
    droppable: set[str] = set()
    for fix in disjoint(fixes):
        edits.update(fix.edits)
        for name in fix.imports:
            if name not in imports or isinstance(name, RequiredImport):
                imports[name] = name
        droppable.update(fix.unused_imports)
    fixed = module.visit(_Replace(edits))
    if droppable:
        fixed = drop_unused_imports(fixed, droppable, outside_functions=unsafe, edited=_edited_functions(module, edits))
    if imports:
        fixed = add_imports(fixed, list(imports.values()))
    return fixed.code


def drop_unused_imports(module: cst.Module, qualified: set[str], outside_functions: bool = False,
                        edited: set[tuple[str, ...]] | None = None) -> cst.Module:
    """Remove the import of each name in `qualified` that nothing reads: inside a
    function, and (`outside_functions`, an unsafe fix) at module or class level too,
    where the name is also an attribute another module may import from this one.
    Given `edited` (the paths of the functions a fix changed, see `_edited_functions`),
    a function not among them keeps its imports, used or not."""
    return module.visit(_DropImports(qualified, _names_read(module), outside_functions, edited))


def _edited_functions(module: cst.Module, edits: dict[cst.CSTNode, Replacement]) -> set[tuple[str, ...]]:
    """The functions holding a node of `edits`, each as the names of the classes and
    functions it is defined in, and its own (`("Trainer", "fit")`)."""
    found: set[tuple[str, ...]] = set()
    pending: list[tuple[cst.CSTNode, tuple[str, ...], tuple[str, ...] | None]] = [(module, (), None)]
    while pending:  # without recursion: a deep expression is no deeper a walk
        node, path, function = pending.pop()
        if node in edits and function is not None:
            found.add(function)
        if type(node) in (cst.FunctionDef, cst.ClassDef):
            path = (*path, node.name.value)  # type: ignore[attr-defined]
            if type(node) is cst.FunctionDef:
                function = path
        pending.extend((child, path, function) for child in node.children)
    return found


def _names_read(module: cst.Module) -> set[str]:
    """Names read anywhere outside import statements (`x` in `x.y`, not `y`)."""
    skipped: set[cst.CSTNode] = set()
    read: set[str] = set()
    for node in iter_nodes(module):
        if type(node) in (cst.Import, cst.ImportFrom):
            skipped.update(iter_nodes(node))
        elif type(node) is cst.Attribute:
            skipped.add(node.attr)
        elif type(node) is cst.Name and node not in skipped:
            read.add(node.value)
    return read


_EMPTY = cst.Module(body=[])


class _DropImports(cst.CSTTransformer):
    def __init__(self, qualified: set[str], used: set[str], outside_functions: bool,
                 edited: set[tuple[str, ...]] | None) -> None:
        super().__init__()
        self.qualified = qualified
        self.used = used
        self.outside_functions = outside_functions
        self.edited = edited
        self.functions = 0  # depth of function definitions around the current node
        self.path: list[str] = []  # the classes and functions around the current node
        self.changed: list[bool] = []  # per enclosing function, innermost last: a fix changed it
        # import lines removed whole, with the comments the next statement keeps
        self.orphans: dict[cst.CSTNode, list[cst.EmptyLine]] = {}

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        if updated_node.body or not original_node.body:
            return updated_node
        comment = original_node.trailing_whitespace.comment
        lines = [line for line in original_node.leading_lines if line.comment is not None]
        if comment is not None:
            lines.append(cst.EmptyLine(comment=comment))
        self.orphans[original_node] = lines
        return cst.RemoveFromParent()

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body, footer = self._adopt(original_node.body, updated_node.body, block=True)
        return updated_node.with_changes(body=body, footer=[*footer, *updated_node.footer])

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body, footer = self._adopt(original_node.body, updated_node.body)
        return updated_node.with_changes(body=body, footer=[*footer, *updated_node.footer])

    def _adopt(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement], block: bool = False
    ) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        """Give the comments of removed lines to the statement that follows
        them (or to the block's footer): a fix never deletes a comment. In a
        `block` whose first lines were removed, the blank lines that set them
        apart from the next statement go with them: the block does not start
        with a blank line (`if s is None:` then a blank line, then `s = ...`)."""
        survivors = iter(updated)
        out: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        removed_first = False
        for statement in original:
            if statement in self.orphans:
                pending += self.orphans.pop(statement)
                removed_first = removed_first or (block and not out)
                continue
            kept = next(survivors)
            if removed_first and not out and not pending:
                lines = list(kept.leading_lines)  # type: ignore[attr-defined]
                while lines and lines[0].comment is None:
                    lines.pop(0)
                kept = kept.with_changes(leading_lines=lines)  # type: ignore[call-arg]
            if pending:
                kept = kept.with_changes(leading_lines=[*pending, *kept.leading_lines])  # type: ignore[call-arg]
                pending = []
            out.append(kept)
        out.extend(survivors)
        return out, pending

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.path.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.path.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions += 1
        self.path.append(node.name.value)
        self.changed.append(self.edited is None or tuple(self.path) in self.edited)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.functions -= 1
        self.path.pop()
        self.changed.pop()
        return updated_node

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if type(updated_node.names) is cst.ImportStar or not (self.functions or self.outside_functions):
            return updated_node
        module = import_from_module(updated_node)
        keep = [a for a in updated_node.names if not self._unused(member_of(module, dotted_name(a.name) or ""), a)]
        return self._rebuild(updated_node, keep)

    def leave_Import(
        self, original_node: cst.Import, updated_node: cst.Import
    ) -> cst.Import | cst.RemovalSentinel:
        if not (self.functions or self.outside_functions):
            return updated_node
        keep = [a for a in updated_node.names if not (a.asname and self._unused(dotted_name(a.name) or "", a))]
        return self._rebuild(updated_node, keep)

    def _unused(self, qualified: str, alias: cst.ImportAlias) -> bool:
        if self.changed and not self.changed[-1]:
            return False  # a function no fix changed: its imports are none of the fixes' business
        local = alias.asname.name.value if alias.asname else dotted_name(alias.name)  # type: ignore[union-attr]
        # a name with its own comment (one per line in parentheses) stays, comment and all
        return qualified in self.qualified and local not in self.used and "#" not in _EMPTY.code_for_node(alias)

    @staticmethod
    def _rebuild(node: cst.Import | cst.ImportFrom, keep: list[cst.ImportAlias]) -> cst.CSTNode | cst.RemovalSentinel:
        if len(keep) == len(node.names):
            return node
        if not keep:
            return cst.RemoveFromParent()
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(names=keep)


def add_imports(module: cst.Module, modules: Sequence[str]) -> cst.Module:
    """`import X` for each X the module does not already bind at top level (or
    for each `RequiredImport`), after the docstring and every line that starts
    with a `from __future__` import."""
    scope = ScopeTable(module).module_scope
    missing = [m for m in modules
               if isinstance(m, RequiredImport) or scope.imports.get(m.split(".")[0]) != {m.split(".")[0]}]
    if not missing:
        return module
    body = list(module.body)
    header = 0
    while header < len(body) and _is_header(body[header], header):
        header += 1
    placed: dict[int, list[cst.BaseStatement]] = {}
    for name in missing:
        # with the module's first import of that package, so that what runs before it
        # (`os.environ["OMP_NUM_THREADS"] = "1"`, a `sys.path` entry) still does
        index = max(header, _first_import_of(body, name.split(".")[0]))
        placed.setdefault(index, []).append(cst.parse_statement(f"import {name}\n"))
    new_body: list[cst.BaseStatement] = []
    for index, statement in enumerate(body):
        added = placed.get(index, [])
        if added and index > header:  # in a statement's place: the lines above it go above the imports
            added = [added[0].with_changes(leading_lines=statement.leading_lines), *added[1:]]
            statement = statement.with_changes(leading_lines=())
        new_body += [*added, statement]
    return module.with_changes(body=[*new_body, *placed.get(len(body), [])])


def _first_import_of(body: Sequence[cst.BaseStatement], package: str) -> int:
    """The index of the first line of the module's own block that imports
    `package` or one of its modules; 0 when none does."""
    for index, statement in enumerate(body):
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Import and any(
                    (dotted_name(alias.name) or "").split(".")[0] == package for alias in small.names):
                return index
            if (type(small) is cst.ImportFrom and not small.relative and small.module is not None
                    and (dotted_name(small.module) or "").split(".")[0] == package):
                return index
    return 0


def _is_header(stmt: cst.CSTNode, index: int) -> bool:
    """The docstring's line or a `from __future__` import's: whatever shares
    the line with it (`from __future__ import annotations; import os`) is
    header too, since an import goes in before or after whole lines."""
    if type(stmt) is not cst.SimpleStatementLine or not stmt.body:
        return False
    small = stmt.body[0]
    if index == 0 and is_docstring(small):
        return True
    return type(small) is cst.ImportFrom and type(small.module) is cst.Name and small.module.value == "__future__"


def write_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> None:
    """Replace `path` with `text` so that a reader (or a crash) sees either the
    old file or the new one, never a part of it. Permissions are kept, and the
    owner and group where the process may set them (root fixing another
    user's file). The file is replaced: a hard link to it keeps the old text."""
    target = Path(path)
    old = target.stat() if target.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if old is not None:
            _keep_owner(tmp, old)
            os.chmod(tmp, old.st_mode & 0o7777)  # after chown, which clears the set-id bits
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _keep_owner(path: str, old: os.stat_result) -> None:
    """Give `path` the owner and group of `old`, or its group alone (a user may
    give a file any group they belong to), or neither, as the process may."""
    if not hasattr(os, "chown"):  # Windows
        return
    for uid, gid in ((old.st_uid, old.st_gid), (-1, old.st_gid)):
        try:
            os.chown(path, uid, gid)
            return
        except PermissionError:
            continue
