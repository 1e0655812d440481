"""The fp16 underflow census: how many gradient values fp16 flushed to zero.

fp16 rounds a value below half its smallest subnormal (2^-24) to zero; an fp32
run keeps it. Tiny values as such are no sign of trouble: an fp32 run of a
healthy model can have most of its gradient values below the fp16 normal range
(2^-14), and fp16 keeps them as subnormals. What counts is the zeros.

Zeros also come from structure (a ReLU unit active on few samples of a batch
leaves exact zeros in its weight gradient, in fp32 too), and flushing often
happens upstream, in an activation gradient, so that whole rows of a weight
gradient come out zero: the pattern of zeros alone cannot tell the two apart.
Their surroundings can. A tensor whose nonzero values mostly lie below the
fp16 normal range lives where fp16 flushes, and its zeros are counted as
flushed; a tensor whose values are mostly normal is far from the flush point,
and its zeros are structure. A tensor that is entirely zero counts as flushed
when other tensors of the step live below the normal range, or when every
gradient of the step is zero (all flushed: none is left to live there). An fp32 run of a
healthy model may have the tiny values, not the zeros: its share of flushed
values stays near zero however many values are tiny.

Counts are taken on the scale the gradients were computed in (a GradScaler's
scale applied to the threshold) and stay on the device until the step's single read.
"""
from __future__ import annotations

from typing import Any

import torch

FP16_TINY = 2.0 ** -14  # smallest normal fp16 value


def flush_census(grads: list[torch.Tensor], scale: Any = 1.0) -> list[torch.Tensor]:
    """[values flushed to zero, values below the fp16 normal range (zeros included)]
    as 0-d tensors; `scale` is the loss scale a GradScaler already divided out (1 otherwise)."""
    counts = torch.stack([_counts(grad, FP16_TINY / scale) for grad in grads])
    size, zeros, below = counts.unbind(dim=1)
    subnormal = below - zeros
    in_band = 2 * subnormal > size - zeros
    empty = zeros == size
    # every gradient of the step zero (the loss was not: a backward ran on it): fp16
    # flushed them all, and no other tensor is left in the band to say so
    all_flushed = empty & (in_band.any() | empty.all())
    return [torch.where(in_band | all_flushed, zeros, 0).sum(), below.sum()]


def _counts(grad: torch.Tensor, normal: Any) -> torch.Tensor:
    """size, zeros, values below the fp16 normal range (zeros included)."""
    magnitude = grad.detach().abs()
    # the size is filled in on the device: a tensor made from a Python number would be
    # copied from the host, which waits for the GPU once per gradient
    size = torch.full((), grad.numel(), dtype=torch.int64, device=grad.device)
    return torch.stack([size, (magnitude == 0).sum(), (magnitude < normal).sum()])
