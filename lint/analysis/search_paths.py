"""The folders a module puts on `sys.path`, relative to its own folder.

Detection and pose repositories keep their packages under `lib/` and start
each script with `import _init_paths`, a module of the scripts' folder that
runs `sys.path.insert(0, osp.join(osp.dirname(__file__), '..', 'lib'))`
(often through a helper, `add_path(lib_path)`); the scripts then import
`from core.function import train`. Only a folder spelled from `__file__`
(`os.path` or `pathlib`, through names the module binds once) is known: a
folder relative to the working directory, or computed any other way, is not.
"""

from __future__ import annotations

import posixpath
from typing import Iterator, Sequence

import libcst as cst

from trainlint.analysis.literals import string_value
from trainlint.semantic import SemanticModel

_FILE = "<file>"  # the value of `__file__`: the module itself, not a folder
_SAME = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "pathlib.Path"})
_SAME_METHODS = frozenset({"resolve", "absolute"})
_ADDERS = {"sys.path.insert": 1, "sys.path.append": 0}  # the place of the folder among the arguments


def search_paths(ctx: SemanticModel) -> tuple[str, ...]:
    """The folders the module's own statements add to `sys.path` (`..` / `../lib`,
    posix, relative to the module's folder), in the order they are added."""
    adders = _adding_functions(ctx)
    values: dict[str, str | None] = {}
    found: list[str] = []
    for statement in _module_lines(ctx.module.body):
        for small in statement.body:
            if type(small) is cst.Assign:
                _bind(ctx, small, values)
            elif type(small) is cst.Expr and type(small.value) is cst.Call:
                folder = _added_folder(ctx, small.value, adders, values)
                if folder is not None and folder not in found:
                    found.append(folder)
    return tuple(found)


def _module_lines(body: Sequence[cst.BaseStatement]) -> Iterator[cst.SimpleStatementLine]:
    """The module's simple statements, those under its `if`s included
    (`if lib_path not in sys.path: sys.path.insert(0, lib_path)`), in order."""
    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            yield statement
        elif type(statement) is cst.If:
            branch: cst.If | cst.Else | None = statement
            while branch is not None:
                if type(branch.body) is cst.IndentedBlock:
                    yield from _module_lines(branch.body.body)
                branch = branch.orelse if type(branch) is cst.If else None  # type: ignore[assignment]


def _bind(ctx: SemanticModel, node: cst.Assign, values: dict[str, str | None]) -> None:
    """`this_dir = osp.dirname(__file__)`: a name bound a second time is not known."""
    for target in node.targets:
        if type(target.target) is cst.Name:
            name = target.target.value
            values[name] = None if name in values else _path_value(ctx, node.value, values)


def _added_folder(ctx: SemanticModel, call: cst.Call, adders: dict[str, int],
                  values: dict[str, str | None]) -> str | None:
    """The folder `sys.path.insert(0, p)`, `sys.path.append(p)` or `add_path(p)` adds."""
    name = ctx.call_name(call)
    if name in _ADDERS:
        index = _ADDERS[name]
    elif type(call.func) is cst.Name and call.func.value in adders:
        index = adders[call.func.value]
    else:
        return None
    if len(call.args) <= index or any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    value = _path_value(ctx, call.args[index].value, values)
    return None if value in (None, _FILE) else value


def _adding_functions(ctx: SemanticModel) -> dict[str, int]:
    """Module-level functions that put one of their parameters on `sys.path`
    (`def add_path(path): sys.path.insert(0, path)`), by the parameter's place."""
    found: dict[str, int] = {}
    for statement in ctx.module.body:
        if type(statement) is not cst.FunctionDef:
            continue
        params = [param.name.value for param in statement.params.params]
        for node in ctx.subtree(statement):
            index = _ADDERS.get(ctx.call_name(node) or "") if type(node) is cst.Call else None
            if index is not None:
                args = node.args  # type: ignore[attr-defined]
                if len(args) > index and type(args[index].value) is cst.Name and args[index].value.value in params:
                    found[statement.name.value] = params.index(args[index].value.value)
    return found


def _path_value(ctx: SemanticModel, expr: cst.BaseExpression, values: dict[str, str | None]) -> str | None:
    """`_FILE`, a folder relative to the module's folder, or None when not known."""
    if type(expr) is cst.Name:
        if expr.value in values:
            return values[expr.value]
        return _FILE if expr.value == "__file__" else None
    if type(expr) is cst.Attribute and expr.attr.value == "parent":
        return _parent(_path_value(ctx, expr.value, values))
    if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Divide:
        return _joined(_path_value(ctx, expr.left, values), [expr.right])
    if type(expr) is not cst.Call:
        return None
    func = expr.func
    if type(func) is cst.Attribute and func.attr.value in _SAME_METHODS and not expr.args:
        return _path_value(ctx, func.value, values)
    if type(func) is cst.Attribute and func.attr.value == "joinpath":
        return _joined(_path_value(ctx, func.value, values), [arg.value for arg in expr.args])
    name = ctx.call_name(expr)
    if name is None and type(func) is cst.Name and func.value == "str" and "str" not in values:
        name = "os.fspath"  # the builtin: the text of a Path is the same folder
    args = [arg.value for arg in expr.args if arg.keyword is None and not arg.star]
    if not args or len(args) != len(expr.args):
        return None
    if name == "os.path.dirname" and len(args) == 1:
        return _parent(_path_value(ctx, args[0], values))
    if name in _SAME and len(args) == 1:
        return _path_value(ctx, args[0], values)
    if name == "os.path.join":
        return _joined(_path_value(ctx, args[0], values), args[1:])
    return None


def _parent(value: str | None) -> str | None:
    if value is None:
        return None
    return "." if value == _FILE else posixpath.normpath(posixpath.join(value, ".."))


def _joined(value: str | None, parts: list[cst.BaseExpression]) -> str | None:
    """`value` joined with string literals: a part that is no literal, or an absolute
    one, is not known."""
    if value in (None, _FILE):
        return None
    texts = [string_value(part) for part in parts]
    if any(text is None or text.startswith("/") for text in texts):
        return None
    return posixpath.normpath(posixpath.join(value, *texts))  # type: ignore[arg-type]
