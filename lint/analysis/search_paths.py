"""The folders a module puts on `sys.path`, relative to its own folder.

Detection and pose repositories keep their packages under `lib/` and start
each script with `import _init_paths`, a module of the scripts' folder that
runs `sys.path.insert(0, osp.join(osp.dirname(__file__), '..', 'lib'))`
(often through a helper, `add_path(lib_path)`; or `sys.path.append(p)`,
`sys.path.extend([p, q])`, `sys.path += [p]`, `sys.path[:0] = [p, q]`); the scripts then import
`from core.function import train`. Only a folder spelled from `__file__`
(`os.path` or `pathlib`, through names the module binds once) is known: a
folder relative to the working directory, or computed any other way, is not,
and neither is what comes after it on the path (it may hold the module).
"""

from __future__ import annotations

import ntpath
import posixpath
from typing import Sequence

import libcst as cst

from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import runs_as_script_only
from trainlint.project import SearchPaths
from trainlint.semantic import SemanticModel

_FILE = "<file>"  # the value of `__file__`: the module itself, not a folder
_SAME = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "pathlib.Path"})
_SAME_METHODS = frozenset({"resolve", "absolute"})
_ADDERS = {"sys.path.insert": 1, "sys.path.append": 0}  # the place of the folder among the arguments
_FRONT, _BACK = "front", "back"  # `sys.path.insert(0, p)`: before every folder already there; `append`: after
_UNKNOWN = object()  # a folder added that is not known
_Step = tuple[str, object]  # (_FRONT or _BACK, a folder or _UNKNOWN)
_LOST: _Step = (_FRONT, _UNKNOWN)  # a change not understood: before any folder known, so that none is
# statements whose body runs at import time as many times as it may: none, once or more
_BLOCKS = (cst.For, cst.While, cst.Try, cst.TryStar, cst.With)


def search_paths(ctx: SemanticModel) -> SearchPaths:
    """The folders the module's own statements add to `sys.path` (`..` / `../lib`,
    posix, relative to the module's folder), where they land: those known."""
    steps = _steps(ctx, ctx.module.body, _adding_functions(ctx), {})
    return SearchPaths() if steps is None else _arranged(steps)


def _steps(ctx: SemanticModel, body: Sequence[cst.BaseStatement], adders: dict[str, tuple[int, str | None]],
           values: dict[str, str | None]) -> list[_Step] | None:
    """What the statements of `body` (the module's, or an `if`'s) add, in order: their
    simple statements and those under an `if` (`if lib_path not in sys.path:
    sys.path.insert(0, lib_path)`); None when it depends on which arm of an `if` runs.
    What a loop, `try` or `with` adds (`for p in paths: sys.path.insert(0, p)`) is not
    followed: not known."""
    found: list[_Step] = []
    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            found += _small_steps(ctx, statement.body, adders, values)
        elif type(statement) is cst.If and not runs_as_script_only(statement):  # what it adds is not followed
            arms = _arms(ctx, statement, adders, values)
            if arms is None:
                return None
            found += arms
        elif type(statement) in _BLOCKS and _adds_within(ctx, statement, adders, values):
            found.append(_LOST)
    return found


def _adds_within(ctx: SemanticModel, block: cst.CSTNode, adders: dict[str, tuple[int, str | None]],
                 values: dict[str, str | None]) -> bool:
    """Whether a statement of `block`, at any depth, changes `sys.path`."""
    return any(_small_steps(ctx, node.body, adders, dict(values))  # type: ignore[attr-defined]
               for node in ctx.subtree(block) if type(node) is cst.SimpleStatementLine)


def _small_steps(ctx: SemanticModel, statements: Sequence[cst.BaseSmallStatement],
                 adders: dict[str, tuple[int, str | None]], values: dict[str, str | None]) -> list[_Step]:
    found: list[_Step] = []
    for small in statements:
        if type(small) is cst.Assign:
            found += _assigned_folders(ctx, small, values)
            _bind(ctx, small, values)
        elif type(small) is cst.AugAssign and _is_sys_path(ctx, small.target):
            # `sys.path += [lib]`: `extend`
            found += _listed(ctx, small.value, _BACK, values) if type(small.operator) is cst.AddAssign else [_LOST]
        elif type(small) is cst.Expr and type(small.value) is cst.Call:
            found += _added_folders(ctx, small.value, adders, values)
    return found


def _is_sys_path(ctx: SemanticModel, node: cst.BaseExpression) -> bool:
    """`sys.path`, or `path` of `from sys import path`."""
    return type(node) in (cst.Attribute, cst.Name) and ctx.qualified_name(node) == "sys.path"


def _assigned_folders(ctx: SemanticModel, node: cst.Assign, values: dict[str, str | None]) -> list[_Step]:
    """`sys.path[:0] = [lib, ext]`: both before the folders already there, in that
    order; another slice, or `sys.path = [...]`, leaves none of them known."""
    found: list[_Step] = []
    for target in node.targets:
        held = target.target
        if type(held) is cst.Subscript and _is_sys_path(ctx, held.value):
            found += _listed(ctx, node.value, _FRONT, values) if _front_slice(held) else [_LOST]
        elif _is_sys_path(ctx, held):
            found.append(_LOST)
    return found


def _front_slice(node: cst.Subscript) -> bool:
    """`[:0]` or `[0:0]`: an empty slice at the front."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Slice:
        return False
    part = node.slice[0].slice
    zero = [type(bound) is cst.Integer and bound.value == "0" for bound in (part.lower, part.upper)]
    return part.step is None and (part.lower is None or zero[0]) and zero[1]


def _listed(ctx: SemanticModel, value: cst.BaseExpression, where: str, values: dict[str, str | None]) -> list[_Step]:
    """The folders of a literal list or tuple added at `where`, in the order Python
    looks in them once added; what a value that is no literal adds is not known."""
    if type(value) not in (cst.List, cst.Tuple) or any(
            type(element) is not cst.Element for element in value.elements):  # type: ignore[attr-defined]
        return [(where, _UNKNOWN)]
    folders = [_folder(ctx, element.value, values) for element in value.elements]  # type: ignore[attr-defined]
    # each lands at `where` in turn: the front's last one first, so that the first stays first
    return [(where, folder) for folder in (reversed(folders) if where == _FRONT else folders)]


def _folder(ctx: SemanticModel, expr: cst.BaseExpression, values: dict[str, str | None]) -> object:
    value = _path_value(ctx, expr, values)
    return _UNKNOWN if value in (None, _FILE) else value


def _arms(ctx: SemanticModel, statement: cst.If, adders: dict[str, tuple[int, str | None]],
          values: dict[str, str | None]) -> list[_Step] | None:
    """What an `if` adds: its body's, when it has no `else` (the guard above); else
    what every arm adds, when they all add the same, and None when they do not
    (`if FULL: insert lib` / `else: insert lib_dry`: which one runs is not known)."""
    if statement.orelse is None:
        return _block_steps(ctx, statement.body, adders, values)
    arms: list[list[_Step] | None] = []
    branch: cst.If | cst.Else | None = statement
    while type(branch) is cst.If:
        arms.append(_block_steps(ctx, branch.body, adders, values))
        branch = branch.orelse
    arms.append(_block_steps(ctx, branch.body, adders, values) if branch is not None else [])
    return arms[0] if all(arm is not None and arm == arms[0] for arm in arms) else None


def _block_steps(ctx: SemanticModel, block: cst.BaseSuite, adders: dict[str, tuple[int, str | None]],
                 values: dict[str, str | None]) -> list[_Step] | None:
    if type(block) is cst.IndentedBlock:
        return _steps(ctx, block.body, adders, values)
    return _small_steps(ctx, block.body, adders, values)  # type: ignore[attr-defined]  # `if x: f()` on one line


def _arranged(steps: list[_Step]) -> SearchPaths:
    """Where the folders land: a later `insert(0, p)` before an earlier one, an
    `append` after; a folder already there stays where it is. What comes after
    a folder not known is not known either."""
    path: list[object] = [None]  # None: the folders on `sys.path` before the module runs
    for where, folder in steps:
        if folder is not _UNKNOWN and folder in path:
            continue
        if where == _FRONT:
            path.insert(0, folder)
        else:
            path.append(folder)
    usual = path.index(None)
    front, back = _known_prefix(path[:usual]), _known_prefix(path[usual + 1:])
    if len(front) < usual:
        back = ()
    return SearchPaths(front, back)


def _known_prefix(folders: list[object]) -> tuple[str, ...]:
    known: list[str] = []
    for folder in folders:
        if not isinstance(folder, str):
            break
        known.append(folder)
    return tuple(known)


def _bind(ctx: SemanticModel, node: cst.Assign, values: dict[str, str | None]) -> None:
    """`this_dir = osp.dirname(__file__)`: a name bound a second time is not known."""
    for target in node.targets:
        if type(target.target) is cst.Name:
            name = target.target.value
            values[name] = None if name in values else _path_value(ctx, node.value, values)


def _added_folders(ctx: SemanticModel, call: cst.Call, adders: dict[str, tuple[int, str | None]],
                   values: dict[str, str | None]) -> list[_Step]:
    """Where `sys.path.insert(0, p)`, `sys.path.append(p)`, `sys.path.extend([p, q])`
    or `add_path(p)` puts which folders; none for a call that adds nothing."""
    name = ctx.call_name(call)
    if name == "sys.path.extend":
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return [_LOST]
        return _listed(ctx, call.args[0].value, _BACK, values)
    if name in _ADDERS:
        index, where = _ADDERS[name], _where(call)
    elif type(call.func) is cst.Name and call.func.value in adders:
        index, where = adders[call.func.value]
    else:
        return []
    if where is None or len(call.args) <= index or any(arg.keyword is not None or arg.star for arg in call.args):
        return [_LOST]
    return [(where, _folder(ctx, call.args[index].value, values))]


def _where(call: cst.Call) -> str | None:
    """`_FRONT` for `sys.path.insert(0, p)`, `_BACK` for an `append`, None for an
    insert at another place (`insert(1, p)`)."""
    if len(call.args) == 1:
        return _BACK
    if call.args and type(call.args[0].value) is cst.Integer and call.args[0].value.value == "0":
        return _FRONT
    return None


def _adding_functions(ctx: SemanticModel) -> dict[str, tuple[int, str | None]]:
    """Module-level functions that put one of their parameters on `sys.path`
    (`def add_path(path): sys.path.insert(0, path)`), by the parameter's place,
    with where it lands."""
    found: dict[str, tuple[int, str | None]] = {}
    for statement in ctx.module.body:
        if type(statement) is not cst.FunctionDef:
            continue
        params = [param.name.value for param in statement.params.params]
        for node in ctx.subtree(statement):
            index = _ADDERS.get(ctx.call_name(node) or "") if type(node) is cst.Call else None
            if index is not None:
                args = node.args  # type: ignore[attr-defined]
                if len(args) > index and type(args[index].value) is cst.Name and args[index].value.value in params:
                    where = _where(node)  # type: ignore[arg-type]
                    found[statement.name.value] = (params.index(args[index].value.value), where)
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


def _absolute(text: str) -> bool:
    """`/opt/lib`, `C:\\lib`, `\\\\server\\lib` or `~/lib`: not below the module's folder."""
    return text.startswith(("/", "\\", "~")) or bool(ntpath.splitdrive(text)[0])


def _joined(value: str | None, parts: list[cst.BaseExpression]) -> str | None:
    """`value` joined with string literals: a part that is no literal, or an absolute
    one, is not known."""
    if value in (None, _FILE):
        return None
    texts = [string_value(part) for part in parts]
    if any(text is None or _absolute(text) for text in texts):
        return None
    return posixpath.normpath(posixpath.join(value, *texts))  # type: ignore[arg-type]
