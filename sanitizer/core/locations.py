"""Finding the user's code on the stack: `file:line` for events, frames for holders."""
from __future__ import annotations

import ast
import functools
import os
import re
import site
import sys
import sysconfig
from types import CodeType, FrameType, TracebackType
from typing import Any, Callable, TypeVar

_Callable = TypeVar("_Callable", bound=Callable[..., Any])

# The whole sanitizer package (this file sits in sanitizer/core/) is library code.
_SANITIZER_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIPPED_PREFIXES: list[str] = [_SANITIZER_ROOT + os.sep]


def skip_package(module: object) -> None:
    """Treat frames from this package (e.g. torch) as library frames, not user code."""
    path = getattr(module, "__file__", None)
    prefix = os.path.dirname(os.path.abspath(path)) + os.sep if path else None
    if prefix and prefix not in _SKIPPED_PREFIXES:
        _SKIPPED_PREFIXES.append(prefix)
        _USER_FILE.clear()


def _library_prefixes() -> list[str]:
    """Where the standard library and installed packages live (numpy, torchvision,
    multiprocessing...): their frames are nobody's training code."""
    paths = {path for key, path in sysconfig.get_paths().items()
             if key in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE:
        paths.add(site.getusersitepackages())
    return sorted({os.path.abspath(path) + os.sep for path in paths if path})


_LIBRARY_PREFIXES = _library_prefixes()
# Folders inside those that hold the watched script's own code (a script or package run
# from an installed location): user code all the same.
_USER_ROOTS: list[str] = []


def add_user_root(path: str) -> None:
    """Count file `path`, or the files under folder `path`, as user code even where
    packages are installed."""
    prefix = os.path.abspath(path) + ("" if os.path.isfile(path) else os.sep)
    if prefix not in _USER_ROOTS and any(prefix.startswith(library) for library in _LIBRARY_PREFIXES):
        _USER_ROOTS.append(prefix)
        _USER_FILE.clear()


# Verdicts per file name: hooks ask on every step, for the same few files.
_USER_FILE: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    verdict = _USER_FILE.get(filename)
    if verdict is None:
        verdict = (not filename.startswith("<")
                   and not any(filename.startswith(prefix) for prefix in _SKIPPED_PREFIXES)
                   and (not any(filename.startswith(prefix) for prefix in _LIBRARY_PREFIXES)
                        or any(filename.startswith(root) for root in _USER_ROOTS)))
        _USER_FILE[filename] = verdict
    return verdict


def is_user_code(function: Any) -> bool:
    """`function` (through `functools.partial`s and bound methods) is the script's code,
    not torch's, another installed library's, nor the sanitizer's own."""
    code = code_of(function)
    return code is not None and is_user_file(code.co_filename)


def code_of(function: Any) -> CodeType | None:
    """The code object a call of `function` runs: through `functools.partial`s and bound
    methods; None for a builtin or a callable object."""
    while isinstance(function, functools.partial):
        function = function.func
    return getattr(getattr(function, "__func__", function), "__code__", None)


def transparent(function: _Callable) -> _Callable:
    """`function` (a wrapper the sanitizer put around the script's calls) with its
    frames, and those of the sanitizer below it, taken out of the traceback of any
    exception passing through: the script's errors read as under plain python."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except BaseException as exc:
            exc.__traceback__ = without_own_frames(exc.__traceback__)
            raise  # a bare raise does not add this frame back
    return call  # type: ignore[return-value]


def without_own_frames(tb: TracebackType | None) -> TracebackType | None:
    """The traceback chain `tb` relinked around the sanitizer's own frames."""
    head: TracebackType | None = None
    last: TracebackType | None = None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_SANITIZER_ROOT + os.sep):
            if last is None:
                head = tb
            else:
                last.tb_next = tb
            last = tb
        tb = tb.tb_next
    if last is not None:
        last.tb_next = None
    return head


_STACK_ENTRY = re.compile(r'  File "([^"\n]*)", line \d+, in [^\n]*\n')


def without_own_entries(stack: list[str]) -> list[str]:
    """A stack as `traceback.format_list` writes it, outermost first, without the
    sanitizer's frames, as the stack of a plain run shows it: those of its wrappers, and,
    when its runner started the script, the runner's and the interpreter's below the
    script's first frame. An entry that is not one frame's is kept."""
    files = [match.group(1) if isinstance(entry, str) and (match := _STACK_ENTRY.match(entry))
             and entry.count('\n  File "') == 0 else None for entry in stack]
    start = 0
    for index, filename in enumerate(files):
        if filename is None or is_user_file(filename):
            break
        if filename.startswith(_SANITIZER_ROOT + os.sep):
            start = index + 1
    return [entry for entry, filename in zip(stack[start:], files[start:])
            if filename is None or not filename.startswith(_SANITIZER_ROOT + os.sep)]


def _is_import_machinery(frame: FrameType) -> bool:
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def warning_frame(frame: FrameType, stacklevel: int, skipped: tuple[str, ...] = ()) -> FrameType | None:
    """The frame a `warnings.warn(..., stacklevel=stacklevel)` called in `frame` (or in
    the sanitizer frames below it) is attributed to, as plain Python attributes it, the
    sanitizer's frames not counted: a torch warning raised through one of its wrappers
    names the script's line, and is filtered and shown once by the script's module."""
    found: FrameType | None = frame
    while found is not None and is_own(found):
        found = found.f_back
    if found is None or stacklevel <= 1:
        return found
    # as `warnings.warn` does: past the first frame, the import system's frames and
    # the files the call asks to skip are not counted, unless the call comes from them
    external = not _is_import_machinery(found)
    for _ in range(stacklevel - 1):
        if found.f_code.co_name == "<module>" and found.f_globals.get("__name__") == "__main__":
            return None  # the script's top level: nothing called it in a plain run
        found = found.f_back
        while found is not None and (is_own(found) or external and (
                _is_import_machinery(found) or found.f_code.co_filename.startswith(skipped))):
            found = found.f_back
        if found is None:
            return None
    return found


def is_own(frame: FrameType) -> bool:
    return frame.f_code.co_filename.startswith(_SANITIZER_ROOT + os.sep)


def user_frames(limit: int = 12) -> list[FrameType]:
    """The innermost user frames on the current stack, innermost first."""
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and len(frames) < limit:
        if is_user_file(frame.f_code.co_filename):
            frames.append(frame)
        frame = frame.f_back
    return frames


def called_from_user_code() -> bool:
    """Whether the innermost frame outside the sanitizer on the caller's stack is user
    code (the script called the patched function, not torch or another library)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and is_own(frame):
        frame = frame.f_back
    return frame is not None and is_user_file(frame.f_code.co_filename)


def user_site(frame: FrameType | None = None) -> str | None:
    """`file:line` of the innermost user frame (of the caller's stack, or from
    `frame` outwards), or None."""
    frame = frame if frame is not None else sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return format_site(frame.f_code.co_filename, frame_line(frame))
        frame = frame.f_back
    return None


def user_point() -> tuple[CodeType, int] | None:
    """(code, instruction) of the caller's innermost user frame: what `user_site` would
    format, kept for later (`point_site`) where the site is rarely needed; no frame is kept."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame.f_code, frame.f_lasti
        frame = frame.f_back
    return None


def point_site(point: tuple[CodeType, int]) -> str:
    """`file:line` of a `user_point`."""
    code, lasti = point
    line = next((line for start, end, line in code.co_lines() if start <= lasti < end), None)
    return format_site(code.co_filename, line)


# The line of each instruction of user code asked about, found once. Python finds a
# frame's line by scanning its code's line table from the start: tens of microseconds
# at the end of a long script's top level, asked on every step (the lines of the
# forward, the loss and the optimizer's step). Keyed by the code's id, the code kept
# beside the line (hashing a code object hashes all its constants); no frame is kept,
# so no frame's tensors are held.
_LINES: dict[tuple[int, int], tuple[CodeType, int | None]] = {}
MAX_CACHED_LINES = 4096


def frame_line(frame: FrameType) -> int | None:
    """`frame.f_lineno`, remembered by its code and instruction."""
    code = frame.f_code
    key = (id(code), frame.f_lasti)
    known = _LINES.get(key)
    if known is not None and known[0] is code:
        return known[1]
    if len(_LINES) >= MAX_CACHED_LINES:
        _LINES.clear()
    line = frame.f_lineno
    _LINES[key] = (code, line)
    return line


# The directory the watched run was launched from: sites are shown from there, as
# the lint's paths are, also after the script changes directory (and without
# asking the system for the working directory on every step).
_launch_directory: str | None = None


def set_launch_directory(path: str) -> None:
    global _launch_directory
    _launch_directory = path


def format_site(filename: str, line: int | None) -> str:
    return _format_site(filename, line, _base())


def display_path(filename: str) -> str:
    return _display_path(filename, _base())


def _base() -> str:
    """What paths are shown relative to: the launch directory once a run is watched."""
    return _launch_directory or os.getcwd()


@functools.lru_cache(maxsize=1024)
def _format_site(filename: str, line: int | None, base: str) -> str:
    return f"{_display_path(filename, base)}:{line}"


@functools.lru_cache(maxsize=256)
def _display_path(filename: str, cwd: str) -> str:
    try:
        relative = os.path.relpath(filename, cwd)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative


def parse_site(site: str) -> tuple[str, int] | None:
    """(absolute file name, line) of a `file:line` that `format_site` wrote, or None."""
    filename, _, line = site.rpartition(":")
    if not filename or not line.isdigit():
        return None
    return os.path.join(_base(), filename), int(line)


@functools.lru_cache(maxsize=32)
def parsed_source(filename: str) -> ast.Module | None:
    """The syntax tree of a user's file, read once (None when it cannot be read or parsed)."""
    try:
        with open(filename, encoding="utf-8") as source:
            return ast.parse(source.read(), filename)
    except (OSError, SyntaxError, ValueError):
        return None


def code_scope(filename: str, first_line: int, name: str) -> ast.AST | None:
    """The syntax of the code a frame runs, told by its code object's file, first line
    (a decorated function's first decorator) and name: the module's tree for `<module>`,
    the `def` of a function; None for a lambda's or a comprehension's code, or a source
    that cannot be read."""
    tree = parsed_source(filename)
    if tree is None or name == "<module>":
        return tree
    return next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.name == name and min([node.lineno, *(d.lineno for d in node.decorator_list)]) == first_line),
                None)
