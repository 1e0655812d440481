"""The loops of a class's method that call hooks of its own instance, as plain data.

A base class's training loop (`Trainer.fit`) calls `self.training_step(batch)`,
`self.backward(loss)`, `self.on_step_end(loss)`; a subclass, often in another
module, overrides some of those hooks. What the loop does then depends on the
subclass: `HookLoop` records what the loop hands each hook, so that the module of
a subclass can judge its overrides as the loop runs them (see
`trainlint.analysis.hook_runs`). Nothing here imports LibCST.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

# the name a subclass asks the project for (`AmpTrainer.__hook_loops__`): the loops it
# inherits from classes of other modules, and what each hook they call runs for it
# (`AmpTrainer.__hook_loops__.backward`)
HOOK_LOOPS = "__hook_loops__"


@dataclass(frozen=True)
class HookCall:
    """`self.<method>(...)` in a loop's body."""

    method: str
    occasional: bool = False  # under a condition or in a handler of the loop's body
    # the loop's names are told apart by how many times its body binds them before
    # (`loss@1`): `loss = loss.item()` between two calls makes `loss@2`, another value
    result: str = ""  # the name the loop binds what it returns to (`loss = self.training_step(batch)`)
    handed: tuple[tuple[str, str], ...] = ()  # (slot, name of the loop it is given): ("#0", "loss@1")


@dataclass(frozen=True)
class LoopCall:
    """A call of the loop's own code, placed among its hook calls, that changes what the
    gradients hold for the hooks after it: `scaler.scale(loss).backward()`,
    `scaler.unscale_(opt)`, or a function that may do either."""

    at: int  # how many of the loop's hook calls come before it
    effect: str  # `backward`, `unscale` (see `trainlint.summaries`), or "" for a call of a function
    # the GradScaler a backward scales the loss with, or one a function is handed, as
    # written (`self.scaler`)
    scaler: str = ""
    callee: str = ""  # the function called, as its module keys it; "" where out of reach
    occasional: bool = False  # under a condition or in a handler of the loop's body


@dataclass(frozen=True)
class HookLoop:
    """A `for` / `while` loop of the method `owner` (`Trainer.fit`) that calls hooks."""

    owner: str
    calls: tuple[HookCall, ...]
    effects: tuple[str, ...] = ()  # what its own code does (see `trainlint.summaries`): `backward`, `step`
    backpropagated: tuple[str, ...] = ()  # names it back-propagates itself (`loss.backward()`): `loss@1`
    where: str = ""  # the module, as the project names it to a subclass of another one
    placed: tuple[LoopCall, ...] = ()  # in the order they run
    # of `backpropagated`, those its own code back-propagates as they are (`loss.backward()`),
    # handed to no call before: no scaling context or wrapper the linter cannot see into
    plain: tuple[str, ...] = ()

    def named(self) -> str:
        """How a message names it: the loop of `Trainer.fit()` (trainer/base.py)."""
        return f"the loop of `{self.owner}()`" + (f" ({self.where})" if self.where else "")

    def to_json(self) -> list[object]:
        return [self.owner, [[c.method, c.occasional, c.result, [list(h) for h in c.handed]]
                                        for c in self.calls], list(self.effects), list(self.backpropagated), self.where,
                [[p.at, p.effect, p.scaler, p.callee, p.occasional] for p in self.placed], list(self.plain)]

    @classmethod
    def from_json(cls, raw: list) -> HookLoop:  # type: ignore[type-arg]
        owner, calls, effects, backpropagated, where, placed, plain = raw
        return cls(owner, tuple(HookCall(method, bool(occasional), result, tuple((s, n) for s, n in handed))
                                           for method, occasional, result, handed in calls),
                   tuple(effects), tuple(backpropagated), where,
                   tuple(LoopCall(at, effect, scaler, callee, bool(occasional))
                         for at, effect, scaler, callee, occasional in placed), tuple(plain))


def hook_key(cls: str, method: str = "") -> str:
    """The name under which the project tells the module of `cls` its inherited loops
    (no `method`), or what `method` runs for an instance of `cls`."""
    return f"{cls}.{HOOK_LOOPS}" + (f".{method}" if method else "")


def loops_of(external: Mapping[str, object], cls: str) -> tuple[HookLoop, ...]:
    """The loops `cls` inherits from other modules, as the project told its module."""
    found = external.get(hook_key(cls))
    return getattr(found, "hook_loops", ()) or ()
