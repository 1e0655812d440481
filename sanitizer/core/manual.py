"""The hand-written parameter update of a loop without torch.optim, as an optimizer.

`Sanitizer.mark_step(params)` ends a step through the same path as `optimizer.step()`.
Standing in for an optimizer lets every check that asks "which parameters are
trained?" (unused parameters, parameters no optimizer holds) see the manual ones.
Its own `step()` is never called (the base class's raises NotImplementedError).
"""
from __future__ import annotations

from typing import Iterable

import torch


class ManualUpdate(torch.optim.Optimizer):
    def __init__(self, parameters: Iterable[torch.Tensor]) -> None:
        super().__init__(list(parameters), defaults={})
