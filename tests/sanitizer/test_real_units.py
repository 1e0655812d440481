"""Units behind the real-script fixes: norms in every dtype, the loss shapes
compared for validation, the divergence rules and which modules are models."""
from __future__ import annotations

import math

import pytest
import torch

from sanitizer.core.probe import Gather, norms, squared_norms


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
def test_squared_norms_in_every_training_dtype(dtype: torch.dtype) -> None:
    tensors = [torch.full((4,), 3.0, dtype=dtype), torch.tensor([float("nan")], dtype=dtype)]
    gather = Gather()
    gather.add("grads", squared_norms(tensors))
    first, second = gather.read()["grads"]
    assert first == pytest.approx(36.0) and math.isnan(second)


def test_float64_norms_keep_their_range() -> None:
    """1e30 is an ordinary float64 gradient; its square does not fit float32."""
    wide, narrow = torch.full((4,), 1e30, dtype=torch.float64), torch.ones(4)
    gather = Gather()
    gather.add("grads", squared_norms([narrow, wide]))
    assert gather.read()["grads"] == [pytest.approx(4.0), pytest.approx(4e60)]
    assert [n.dtype for n in norms([wide, narrow], 1)] == [torch.float64, torch.float32]


def test_only_trained_outermost_modules_are_models() -> None:
    from torch import nn

    from sanitizer.core.naming import ModelIndex
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    frozen_teacher = nn.Linear(2, 1)
    criterion, transform = nn.MSELoss(), nn.Sequential(nn.Identity())
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    index = ModelIndex()
    index.refresh([], [criterion, transform, frozen_teacher, net[0]])
    assert [root for _, root in index.roots] == [net]
    assert index.module_name(net[2]) == "2" and index.param_name(net[0].weight) == "0.weight"
    assert index.module_name(criterion) is None and index.module_name(frozen_teacher) is None
    del optimizer


def test_without_an_optimizer_the_modules_seen_in_forward_name_the_model() -> None:
    from torch import nn

    from sanitizer.core.naming import ModelIndex
    encoder, decoder = nn.Embedding(5, 4), nn.Linear(4, 5)
    model = nn.ModuleDict({"encoder": encoder, "decoder": decoder})
    index = ModelIndex()
    index.refresh([], [encoder, decoder, nn.CrossEntropyLoss()])
    assert [root for _, root in index.roots] == [model]
    assert index.module_name(decoder) == "decoder"
