"""The hand-written parameter update of a loop without torch.optim, as an optimizer.

`Sanitizer.mark_step(params)` ends a step through the same path as `optimizer.step()`.
Standing in for an optimizer lets every check that asks "which parameters are
trained?" (unused parameters, parameters no optimizer holds) see the manual ones.
Its own `step()` is never called (the base class's raises NotImplementedError).

The base class's `__init__` is not run: it imports `torch._dynamo` (1.5 s, once per
process), which a script that never builds an optimizer would not pay. What it would
set is set here: the parameter group, and empty state, defaults and hooks.
"""
from __future__ import annotations

from collections import OrderedDict, defaultdict
from typing import Any, Iterable

import torch

_HOOKS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
          "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
          "_optimizer_load_state_dict_post_hooks")


class ManualUpdate(torch.optim.Optimizer):
    def __init__(self, parameters: Iterable[torch.Tensor]) -> None:  # the base class's is not run (see above)
        self.defaults: dict[str, Any] = {}
        self.state: defaultdict[torch.Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = [{"params": list(parameters)}]
        for name in _HOOKS:
            setattr(self, name, OrderedDict())
