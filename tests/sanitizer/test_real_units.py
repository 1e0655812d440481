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
