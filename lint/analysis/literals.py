"""The text of string literals, without `ast.literal_eval` where it is not needed.

LibCST's `SimpleString.evaluated_value` runs `ast.literal_eval`, which builds
four closures in a reference cycle on every call: a training script has
hundreds of strings, and the cyclic collector then walks each set. A string
with no backslash and no bytes prefix reads the same as its text between the
quotes. A literal CPython refuses (`"\\N{NOTACHAR}"`) has no value here, where
`evaluated_value` raises.

Also whether a statement is a string literal written alone, as a docstring is.
"""

from __future__ import annotations

import libcst as cst


def is_docstring(statement: cst.CSTNode) -> bool:
    """`statement` is a string literal alone, as a docstring is: an expression statement
    whose value is one quoted literal of any prefix, bytes included (`"..."`, `b"..."`;
    not an f-string alone), or literals written side by side (`"a" "b"`, f-strings
    among them: `"a" f"{x}"`), or a line holding only that."""
    if type(statement) is cst.SimpleStatementLine:
        return len(statement.body) == 1 and is_docstring(statement.body[0])
    return type(statement) is cst.Expr and type(statement.value) in (cst.SimpleString, cst.ConcatenatedString)


def string_value(expr: cst.BaseExpression | None) -> str | None:
    """The value of a plain (not bytes, not f-) string literal, else None."""
    if type(expr) is not cst.SimpleString:  # a type check: isinstance() on LibCST's ABCs is slow
        return None
    text: str = expr.value  # type: ignore[union-attr]
    prefix = expr.prefix.lower()  # type: ignore[union-attr]
    if "b" in prefix:
        return None
    if "\r" not in text and ("\\" not in text or "r" in prefix):  # CPython reads "\r\n" as "\n"
        quote = 3 if text[len(prefix) : len(prefix) + 3] in ('"""', "'''") else 1
        return text[len(prefix) + quote : len(text) - quote]
    value = _evaluated(expr)  # type: ignore[arg-type]
    return value if isinstance(value, str) else None


def subscript_key(item: cst.Subscript) -> str | None:
    """The string key written out in `item` (`parts["scheduler"]`), else None."""
    if len(item.slice) != 1 or type(item.slice[0].slice) is not cst.Index:
        return None
    return string_value(item.slice[0].slice.value)  # type: ignore[attr-defined]


def literal_value(expr: cst.BaseExpression | None) -> str | bytes | None:
    """The value of a string or bytes literal (not an f-string), else None: the key of
    `d[b"k"]` is one too."""
    if type(expr) is not cst.SimpleString:
        return None
    return _evaluated(expr) if "b" in expr.prefix.lower() else string_value(expr)  # type: ignore[union-attr,arg-type]


def _evaluated(literal: cst.SimpleString) -> str | bytes | None:
    """LibCST's value of `literal`; None where CPython refuses the literal, which LibCST
    parses all the same (`"\\x"`, `"\\N{NOTACHAR}"`): the file does not compile,
    and a rule reading it must not crash."""
    try:
        return literal.evaluated_value
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in it
        return None


def constant_text(expr: cst.BaseExpression | None) -> str | None:
    """A constant as a summary keeps it, as Python writes it: a string (`'train'`), a
    number (`3`, `-1`, `0.5`), `True`, `False` or `None`; None for anything else."""
    text = string_value(expr)
    if text is not None:
        return repr(text)
    if type(expr) is cst.Name and expr.value in ("True", "False", "None"):  # type: ignore[union-attr]
        return expr.value  # type: ignore[union-attr,no-any-return]
    number = number_value(expr)
    return repr(number) if number is not None else None


def number_value(expr: cst.BaseExpression | None) -> int | float | None:
    """The value of a number literal (`3`, `0.5`, `-1`), else None."""
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:  # type: ignore[union-attr]
        value = number_value(expr.expression)  # type: ignore[union-attr]
        return -value if value is not None else None
    if type(expr) in (cst.Integer, cst.Float):
        return expr.evaluated_value  # type: ignore[union-attr,no-any-return]
    return None
