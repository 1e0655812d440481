"""`stored_elements` reads what a call adds to a list or deque, element by element:
the one reader TL202 and the function summaries share."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.accumulators import stored_elements


def _read(call: str) -> tuple[str, list[str]] | None:
    found = stored_elements(cst.parse_expression(call))
    if found is None:
        return None
    receiver, elements = found
    module = cst.Module(body=[])
    return module.code_for_node(receiver), [module.code_for_node(element) for element in elements]


@pytest.mark.parametrize(("call", "expected"), [
    ("losses.append(loss)", ("losses", ["loss"])),
    ("self.losses.appendleft(loss)", ("self.losses", ["loss"])),
    ("history.insert(0, loss)", ("history", ["loss"])),
    ("losses.extend([loss])", ("losses", ["loss"])),
    ("losses.extend((loss, aux))", ("losses", ["loss", "aux"])),
    ("recent.extendleft([loss])", ("recent", ["loss"])),
])
def test_reads_each_element(call: str, expected: tuple[str, list[str]]) -> None:
    assert _read(call) == expected


@pytest.mark.parametrize("call", [
    "losses.extend(batch_losses)",  # its elements cannot be told
    "losses.extend(loss.tolist())",
    "losses.extend([*batch_losses])",
    "losses.extend([])",
    "losses.insert(loss)",  # not the list method's shape
    "losses.append(*pair)",
    "losses.append(x=loss)",
    "meter.update(loss)",  # stores, but not as a list's element
    "append(losses, loss)",
])
def test_reads_nothing_it_cannot_tell(call: str) -> None:
    assert _read(call) is None
