"""Line and column of the nodes a rule reported.

LibCST's `PositionProvider` gives every node of a module a `CodeRange`
through its metadata machinery, which costs twice the parse of a large
training script; a linter needs the ranges of the few nodes it reports. One
codegen pass gives the same ranges (the syntactic position a node records,
else the one including its whitespace) for those nodes only, kept as plain
tuples, and stops as soon as the last of them has been written out.
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Collection

import libcst as cst
from libcst._nodes.internal import CodegenState  # the state every node's codegen writes to

Point = tuple[int, int]  # line (from 1), column (from 0)
Range = tuple[Point, Point]
_NEWLINE = re.compile(r"\r\n?|\n")


class _Done(Exception):
    """Every wanted node has been written out: the rest need not be."""


class _PositionState(CodegenState):
    """Counts lines and columns of everything written out; records ranges
    only inside the wanted nodes (a node's range can be taken from its
    children's), which is all that is asked for."""

    def __init__(self, module: cst.Module, wanted: Collection[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.ranges: dict[cst.CSTNode, Range] = {}
        self._wanted = frozenset(map(id, wanted))  # by id(): a node's __hash__ is a Python call
        self._pending = set(wanted)
        self._open: list[tuple[cst.CSTNode, Point]] = []  # nodes being written out inside a wanted one

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)  # the module reads them to end the file
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self._open or id(node) in self._wanted:
            self._open.append((node, (self.line, self.column)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if not self._open or self._open[-1][0] is not node:
            return
        start = self._open.pop()[1]
        if node not in self.ranges:
            self.ranges[node] = (start, (self.line, self.column))
        if node in self._pending:
            self._pending.discard(node)
            if not self._pending:
                raise _Done

    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> _Unrecorded | _Recording:
        # asked around most nodes: outside the wanted ones, one shared context
        # that does nothing (a generator-based one per node costs more than
        # the rest of the node's codegen)
        if not self._open:
            return _UNRECORDED
        return _Recording(self, node, start_node, end_node)


class _TextState(CodegenState):
    """`Module.code_for_node`'s state, with the shared do-nothing context."""

    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> _Unrecorded:
        return _UNRECORDED


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    """The code of `node` as `module.code_for_node(node)` writes it, at about
    two thirds of its cost (rules ask it of many conditions and operands)."""
    state = _TextState(default_indent=module.default_indent, default_newline=module.default_newline)
    node._codegen(state)
    return "".join(state.tokens)


class _Unrecorded:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


_UNRECORDED = _Unrecorded()


class _Recording:
    """Records the range written out inside it as the range of `node`."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self, state: _PositionState, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = (state.line, state.column)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> bool:
        if kind is not None:  # `_Done`: the ranges wanted are all known
            return False
        state = self.state
        start, end = self.start, (state.line, state.column)
        if self.start_node is not None:
            start = state.ranges[self.start_node][0]
        if self.end_node is not None:
            end = state.ranges[self.end_node][1]
        state.ranges[self.node] = (start, end)
        return False


def node_ranges(module: cst.Module, wanted: Collection[cst.CSTNode]) -> dict[cst.CSTNode, Range]:
    """The range `PositionProvider` would give each node of `wanted` (nodes of
    `module`), found without writing out the code after the last of them."""
    state = _PositionState(module, wanted)
    try:
        module._codegen(state)
    except _Done:
        pass
    return {node: state.ranges[node] for node in wanted}
