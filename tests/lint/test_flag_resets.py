"""What code after a flag's reset may set it again (`trainlint.analysis.flag_resets`)."""

from __future__ import annotations

from typing import Callable

import pytest

from trainlint.analysis import flag_resets
from trainlint.engine import lint_bytes
from trainlint.registry import all_rules

_CHAIN = 60


def _chained_functions(last: str) -> str:
    """A reset, then a call of the first of `_CHAIN` functions each of which calls the
    next two: 2**60 paths from the first to the last, whose body is `last`."""
    defs = "".join(f"def f{i}():\n    f{i + 1}()\n    f{i + 2}()\n" for i in range(_CHAIN - 2))
    return (
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        f"{defs}"
        f"def f{_CHAIN - 2}():\n    {last}\n"
        f"def f{_CHAIN - 1}():\n    pass\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "f0()\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    model(x).float().mean().backward()\n"
        "    optimizer.step()\n"
    )


@pytest.mark.parametrize(("last", "reported"), [("pass", False), ("args.fp16 = True", True)])
def test_functions_calling_one_another_along_many_paths_are_each_read_once(
        last: str, reported: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    body_writes: Callable[..., object] = flag_resets._body_writes

    def counted(ctx: object, func: flag_resets.cst.FunctionDef, watched: frozenset[str]) -> object:
        read.append(func.name.value)
        return body_writes(ctx, func, watched)

    monkeypatch.setattr(flag_resets, "_body_writes", counted)
    rules = [rule for rule in all_rules() if rule.code == "TL107"]
    findings = lint_bytes("train.py", _chained_functions(last).encode(), rules).findings
    assert [finding.code for finding in findings] == (["TL107"] if reported else [])
    assert len(read) == len(set(read)) <= _CHAIN
