"""Layers with trainable weights first called inside the forward of a module called at
an earlier step, one that neither holds them nor was handed them (`model(x, head)`, a head
the training loop builds): built in that forward at every call (`nn.Linear(d, d)(x)`).
Whether an optimizer holds their weights is known when the step ends (see
detectors/built_in_forward.py)."""
from __future__ import annotations

import sys
import weakref
from types import FrameType
from typing import Any

from torch import nn

from sanitizer.core import locations
from sanitizer.core.probe import BuiltInForward

MAX_FRAMES = 64  # frames looked through for the forward of the module that called the layer
_VARARGS, _VARKEYWORDS = 0x04, 0x08  # code flags: `*args`, `**kwargs`


class BuiltLayers:
    def __init__(self) -> None:
        # the ids of each calling module's submodules, walked once a step whatever the
        # number of layers its forward builds (three per call, in each of twelve blocks);
        # forgotten when the step ends, so that a child added since is seen
        self._held: dict[int, tuple[weakref.ref[nn.Module], set[int]]] = {}

    def step_closed(self) -> None:
        self._held.clear()

    def note(self, module: nn.Module, parent: nn.Module) -> BuiltInForward | None:
        """`module`, called for the first time inside the forward of `parent`, which was
        called at an earlier step: what to check when the step ends, unless `parent` holds it
        (an expert a router picks first now, a block a growing depth enables now) or was
        handed it: a head the training loop builds for the step, trained by an optimizer of
        its own or, when none holds it, named by the check of parameters outside the
        optimizers, as the loop's variable, not as built in the forward."""
        trained = [weakref.ref(p) for p in module.parameters(recurse=False) if p.requires_grad]
        if not trained or self._holds(parent, module) or _handed_to(parent, module):
            return None
        return BuiltInForward(weakref.ref(parent), type(module).__name__, locations.user_site(), trained)

    def _holds(self, parent: nn.Module, module: nn.Module) -> bool:
        entry = self._held.get(id(parent))
        if entry is None or entry[0]() is not parent:
            entry = self._held[id(parent)] = (weakref.ref(parent), {id(child) for child in parent.modules()})
        # a child set during the step, after the walk (a head built at its first call): its
        # own attribute, cheap to ask
        return id(module) in entry[1] or any(child is module for child in parent.children())


def _handed_to(parent: nn.Module, module: nn.Module) -> bool:
    """Whether `module` is an argument of `parent`'s running forward, itself or inside a
    list, tuple or dict: a layer the training loop built, not the forward."""
    forward = getattr(getattr(type(parent), "forward", None), "__code__", None)
    frame: FrameType | None = sys._getframe(1)
    for _ in range(MAX_FRAMES):
        if frame is None:
            return False
        code = frame.f_code
        if code is forward and code.co_argcount and frame.f_locals.get(code.co_varnames[0]) is parent:
            return any(_holds_value(frame.f_locals.get(name), module) for name in _argument_names(code))
        frame = frame.f_back
    return False


def _argument_names(code: Any) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & _VARARGS) + bool(code.co_flags & _VARKEYWORDS)
    return code.co_varnames[1:count]


def _holds_value(value: Any, module: nn.Module) -> bool:
    if value is module:
        return True
    if isinstance(value, dict):
        value = value.values()
    elif isinstance(value, (nn.ModuleDict, nn.ModuleList, nn.Sequential)):
        value = value.children()
    elif not isinstance(value, (list, tuple)):
        return False
    return any(item is module or (isinstance(item, (list, tuple, dict)) and _holds_value(item, module))
               for item in value)
