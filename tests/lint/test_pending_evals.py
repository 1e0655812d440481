"""TL405's walk carries a bounded number of pending `.eval()`s of one model: a file of
many functions that each put `model` in eval mode and another model (`ema.train()`)
back in train mode would otherwise carry one more at each call, and every later event
would read them all."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.flow import Facts
from trainlint.rules import missing_train_mode
from trainlint.rules.missing_train_mode import MissingTrainMode
from trainlint.testing import findings_of

_HEADER = (
    "import torch\n"
    "from torch import nn\n"
    "model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
    "ema = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
    "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
)


def _epochs(index: int) -> str:
    """One epoch function for training and testing, putting `ema` back in train mode
    on the training path and `model` in eval mode on the other, run in epochs."""
    return (
        f"def run_{index}(split, batches):\n"
        "    if split == 'train':\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == 'train':\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(3):\n"
        f"    run_{index}('train', train_batches)\n"
        f"    run_{index}('test', test_batches)\n"
    )


def test_the_pending_evals_of_one_model_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """However many functions put the same model in eval mode, the walk carries at most
    `_PENDING_PER_MODEL` of its evals carried over from an earlier iteration and as many
    of the same one after each event, and each function's eval is still reported."""
    count = 20
    source = _HEADER + "".join(_epochs(index) for index in range(count))
    carried: list[int] = []
    transfer = MissingTrainMode._transfer

    def counted(self: MissingTrainMode, facts: Facts, node: cst.CSTNode) -> Facts:
        kept = transfer(self, facts, node)
        carried.append(len(kept))
        return kept

    monkeypatch.setattr(MissingTrainMode, "_transfer", counted)
    lines = [finding.line for finding in findings_of(MissingTrainMode, source)]
    assert lines == [_HEADER.count("\n") + 5 + _epochs(0).count("\n") * index for index in range(count)]
    # and the one an event may add
    assert max(carried) <= 2 * missing_train_mode._PENDING_PER_MODEL + 1
