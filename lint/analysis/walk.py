"""A fast walk over a LibCST tree.

LibCST's own `visit` rebuilds every node it passes through; reading the
dataclass fields that can hold code is an order of magnitude cheaper. Fields
that only hold whitespace, comments or punctuation are skipped.
"""

from __future__ import annotations

import dataclasses
from typing import Container, Iterable, Iterator

import libcst as cst

_SKIPPED_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "semicolon", "colon", "equal", "dot", "star",
        "header", "footer", "leading_lines", "lines_after_decorators", "newline",
        "trailing_whitespace", "empty_lines", "lbracket", "rbracket", "lbrace",
        "rbrace", "asynchronous", "first_line", "default_indent", "default_newline",
        "encoding", "quote", "prefix",
    }
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(node_type: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _CHILD_FIELDS[node_type] = names
    return names


# LibCST's node classes are ABCs, whose isinstance() checks are slow; the
# walk asks "is this a node?" millions of times, so it remembers per type.
_IS_NODE: dict[type, bool] = {}


def is_node(value: object) -> bool:
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = isinstance(value, cst.CSTNode)
    return known


def only(nodes: Iterable[cst.CSTNode], *kinds: type[cst.CSTNode]) -> list[cst.CSTNode]:
    """The nodes of exactly these concrete types, in their order. LibCST's
    concrete node classes have no subclasses, so this is isinstance(), without
    the cost of its ABC check on every node that is not one of them."""
    wanted = frozenset(kinds)
    return [node for node in nodes if type(node) in wanted]


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Code-bearing children of `node`, in field order. A list, not a
    generator, and `is_node` inlined: the model's walk asks it of every node."""
    out: list[cst.CSTNode] = []
    fields = _CHILD_FIELDS.get(type(node)) or _child_fields(type(node))
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                known = _IS_NODE.get(type(item))
                if known or (known is None and is_node(item)):
                    out.append(item)
        elif value is not None:
            known = _IS_NODE.get(kind)
            if known or (known is None and is_node(value)):
                out.append(value)
    return out


def iter_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every code-bearing node under `root` (itself included), pre-order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        kids = children(node)
        kids.reverse()
        stack.extend(kids)


def calls_in_order(root: cst.CSTNode, within: Container[cst.CSTNode] | None = None) -> list[cst.Call]:
    """Calls under `root` in the order Python evaluates them: a call's receiver
    and arguments before the call itself (`s.scale(loss).backward()` yields
    `s.scale(loss)` then `.backward()`). Nested functions and lambdas are not
    entered: their bodies do not run here. With `within`, only the nodes it
    holds are entered: the order of the calls found is the same, and the
    subtrees left out are not walked."""
    out: list[cst.Call] = []
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            out.append(node)  # type: ignore[arg-type]
            continue
        if type(node) in _BOUNDARIES and node is not root:
            continue
        if type(node) is cst.Call:
            stack.append((node, True))
        kids = [kid for kid in children(node) if within is None or kid in within]
        stack.extend((kid, False) for kid in reversed(kids))
    return out


_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes of one code body (a function's, or a module's top level), not
    entering nested functions, classes or lambdas: their code runs elsewhere."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node is not root and type(node) in _BOUNDARIES:
            continue
        yield node
        kids = children(node)
        kids.reverse()
        stack.extend(kids)
