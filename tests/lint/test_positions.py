"""`node_ranges` gives exactly the ranges of LibCST's PositionProvider, for
every node of every test input, also when asked for a few nodes only."""

from __future__ import annotations

import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from trainlint.positions import node_ranges
from trainlint.semantic import SemanticModel

from lint_inputs import INPUTS, parsed


@pytest.mark.parametrize("source", INPUTS)
def test_ranges_match_position_provider(source: str) -> None:
    module = parsed(source)
    if module is None:
        return
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = SemanticModel("input.py", source, module).nodes()
    every = node_ranges(module, nodes)
    assert every == {n: ((r.start.line, r.start.column), (r.end.line, r.end.column)) for n, r in expected.items() if n in every}
    assert len(every) == len(nodes)
    few = nodes[len(nodes) // 3 :: max(1, len(nodes) // 4)]
    assert node_ranges(module, few) == {node: every[node] for node in few}
