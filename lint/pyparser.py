"""CPython's own parser used as a checker: far faster than LibCST, it screens
files and says why a text is no Python. Standard library only, so the notebook
reader and the engine share it."""
from __future__ import annotations

import ast
import warnings
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def quiet() -> Iterator[None]:
    """Its warnings about the user's code (`"str"()`, invalid escapes) are not
    ours to print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def python_tree(source: str) -> ast.Module:
    """The `ast` tree of `source`; raises what CPython raises."""
    with quiet():
        return compile(source, "<lint>", "exec", ast.PyCF_ONLY_AST)  # type: ignore[no-any-return]


def python_error(source: str) -> SyntaxError | None:
    """The error CPython's parser raises for `source`, or None when it parses
    (or fails for another reason: a NUL character, nesting too deep)."""
    try:
        python_tree(source)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError):
        return None
    return None
