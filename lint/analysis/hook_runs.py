"""The file's overrides as the loops of their base classes run them.

A base class's loop (`Trainer.fit`, in this file or another module) calls
`self.backward(loss)`, `self.optimizer_step()`, `self.on_step_end(loss)`; a class
of this file overrides some of them. A user reads the loop with the override in
the hook's place, and so do the rules: each `HookRun` is one override of this
file in one loop that runs it for an instance of a class of the file, with what
every other hook of that loop runs for that instance (see `trainlint.hooks`).
A hook nothing tells the run of (a library's base class) is not known, and a
hook looked up by a name built at run time is no hook: the rules stay silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import libcst as cst

from trainlint.analysis.guards import is_device_check
from trainlint.analysis.scopes import receiver_method
from trainlint.context import FileContext
from trainlint.hooks import HookCall, HookLoop, LoopCall, hook_key, loops_of
from trainlint.summaries import BACKWARD, LOOP, SCALER_STEP, STEP, UNSCALE, Summary


_UNDEFINED = Summary()  # what a method no class of the lineage defines runs for it: nothing to judge


@dataclass(frozen=True)
class HookRun:
    loop: HookLoop
    call: HookCall  # the loop's call of the override
    function: cst.FunctionDef  # the override
    summary: Summary  # its closed summary
    hooks: tuple[Summary | None, ...]  # what each call of the loop runs, None where not known
    # the subclass whose instance runs it so, where not the override's own class
    # (`class AmpClipping(Clipping, Scaled)` for Clipping's override): "" otherwise
    instance: str = ""

    def trains(self) -> bool:
        """The loop back-propagates or steps an optimizer, itself or through a hook that
        runs no loop of its own (a hook that does is a phase: `self.train_epoch()` makes
        an epoch loop, not a training loop)."""
        return (BACKWARD in self.loop.effects or STEP in self.loop.effects
                or any(s is not None and not s.does(LOOP) and (s.does(BACKWARD) or s.does(STEP))
                       for s in self.hooks))

    def backpropagated(self) -> set[str]:
        """The loop's names back-propagated in it: by its own code, handed to a hook
        that back-propagates them, or returned by a hook with its graph."""
        found = set(self.loop.backpropagated)
        for call, hook in zip(self.loop.calls, self.hooks):
            if hook is None:
                continue
            found.update(name for slot, name in call.handed if hook.slot(slot) in hook.backpropagates)
            if call.result and hook.returns_graph:
                found.add(call.result)
        return found

    def given(self, names: set[str]) -> set[str]:
        """The override's parameters the loop hands one of `names`."""
        return {param for slot, name in self.call.handed if name in names
                and (param := self.summary.slot(slot)) is not None}

    def before(self) -> Iterator[Summary | LoopCall | None]:
        """What runs before the override in the loop's body, in order: what each hook the
        loop calls runs, and the loop's own calls that may change what the gradients hold
        (see `LoopCall`)."""
        index = self.loop.calls.index(self.call)
        placed = iter(self.loop.placed)
        own = next(placed, None)
        for at in range(index + 1):
            while own is not None and own.at == at:
                yield own
                own = next(placed, None)
            if at < index:
                yield self.hooks[at]

    def names(self) -> str:
        """How a message names the call: the loop of `Trainer.fit()` (trainer/base.py), which
        calls `on_step_end()` (for an instance of `AmpTrainer`, a subclass that runs it
        with other hooks than its own class does)."""
        for_instance = f" for an instance of `{self.instance}`" if self.instance else ""
        return f"{self.loop.named()}, which calls `{self.call.method}()`{for_instance}"


class HookRuns:
    """Every `HookRun` of the file (see the module's docstring)."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.targets = ctx.summaries.targets
        self._looping = [(key, summary) for key, summary in ctx.summaries.closed.items() if summary.hook_loops]
        self._defined: dict[str, dict[str, str]] = {}  # each class path's methods, by name, with their keys
        for key in ctx.summaries.closed:
            head, _, method = key.rpartition(".")
            self._defined.setdefault(head, {})[method] = key
        # per class: the keys of the methods its instances run, whether the rest of its
        # lineage is another module's, and where each class path comes in its lineage:
        # worked out once per class, as a chain of subclasses asks again for each
        self._tables: dict[str, tuple[dict[str, str], bool, dict[str, int]]] = {}
        # an override runs with the hooks of each class that inherits it: `class C(Clipping,
        # Scaled)` runs Clipping's `optimizer_step` after Scaled's `backward`, which no
        # instance of Clipping does; one run per override, loop, call and hooks it runs with
        found: dict[tuple[int, HookLoop, HookCall, tuple[int, ...]], HookRun] = {}
        for cls in self.targets.classes:
            for loop, owner, looping in self._loops(cls):
                resolved = [self._resolve(cls, call.method) for call in loop.calls]
                hooks = tuple(summary for _, summary in resolved)
                for call, (key, summary) in zip(loop.calls, resolved):
                    function = self.targets.function(key) if key is not None else None
                    if (function is None or summary is None or not self._overrides(cls, key, owner)  # type: ignore[arg-type]
                            or self._read_in_place(looping, call.method, key)):  # type: ignore[arg-type]
                        continue
                    instance = "" if key.rpartition(".")[0] == self.targets.class_path(cls) else cls  # type: ignore[union-attr]
                    found.setdefault((id(function), loop, call, tuple(map(id, hooks))),
                                     HookRun(loop, call, function, summary, hooks, instance))
        self.runs = list(found.values())

    def _loops(self, cls: str) -> Iterator[tuple[HookLoop, str, str]]:
        """The loops `cls` inherits, with the class that defines each and the key of the
        method they are in ("" for one of another module: the project tells only those
        nothing overrides)."""
        for loop in loops_of(self.ctx.external, cls):
            yield loop, "", ""
        for owner in self.targets.lineage(cls)[1:]:
            if owner not in self.targets.classes:
                return  # the rest of the lineage is the project's to tell
            for key, summary in self._looping:
                head, _, method = key.rpartition(".")
                if head == self.targets.class_path(owner) and self._resolve(cls, method)[0] == key:
                    yield from ((loop, owner, key) for loop in summary.hook_loops)

    def _read_in_place(self, looping: str, method: str, key: str) -> bool:
        """The file's own reading of the method `looping` already runs the override `key`
        where it calls `self.<method>()` (the file's only `record`, `self.record(loss)`):
        the rules judge that call as they judge any call of the file, and the override is
        not a second finding of the same problem."""
        function = self.targets.function(looping) if looping else None
        return function is not None and any(
            type(call.func) is cst.Attribute and call.func.attr.value == method
            and receiver_method(self.ctx, call.func.value) is function and self.targets.target(call) == key
            for call in self.ctx.calls_in_order(function.body))

    def _table(self, cls: str) -> tuple[dict[str, str], bool, dict[str, int]]:
        found = self._tables.get(cls)
        if found is None:
            methods: dict[str, str] = {}
            external = False
            lineage = self.targets.lineage(cls)
            for owner in lineage:
                if owner not in self.targets.classes:
                    external = True
                    break
                for method, key in self._defined.get(self.targets.class_path(owner), {}).items():
                    methods.setdefault(method, key)
            where = {self.targets.class_path(owner): index for index, owner in enumerate(lineage)}
            found = self._tables[cls] = (methods, external, where)
        return found

    def _resolve(self, cls: str, method: str) -> tuple[str | None, Summary | None]:
        """The key of the method of this file an instance of `cls` runs for `method`,
        with its closed summary, or (None, what the project says it runs)."""
        methods, external, _ = self._table(cls)
        key = methods.get(method)
        if key is not None:
            return key, self.ctx.summaries.closed[key]
        # no class of a lineage all of this file defines it: nothing a subclass runs
        return None, self.ctx.external.get(hook_key(cls, method)) if external else _UNDEFINED

    def _overrides(self, cls: str, key: str, owner: str) -> bool:
        """The method `key` is defined by a class of `cls`'s lineage that comes before
        `owner`, the class whose loop calls it ("": a class of another module)."""
        if not owner:
            return True
        where = self._table(cls)[2]
        return where[key.rpartition(".")[0]] < where[self.targets.class_path(owner)]


def hook_runs(ctx: FileContext) -> list[HookRun]:
    """The file's `HookRun`s, worked out once per file."""
    return ctx.shared(HookRuns).runs


def runs_on_every_call(ctx: FileContext, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
    """`node` runs on every call of `function`: under no condition of its (a device
    check aside) and in no exception handler."""
    child: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if ancestor is function:
            return True
        if type(ancestor) in (cst.ExceptHandler, cst.ExceptStarHandler, cst.FunctionDef, cst.Lambda):
            return False
        if type(ancestor) in (cst.If, cst.IfExp, cst.While) and child is not ancestor.test:  # type: ignore[attr-defined]
            if not is_device_check(ctx, ancestor.test):  # type: ignore[attr-defined]
                return False
        child = ancestor
    return False


def unscaled_backward(ctx: FileContext, run: HookRun) -> str | None:
    """Where the loop back-propagates what the override returns, unchanged since, with no
    GradScaler anywhere in the loop (no hook scales a loss or steps through a scaler; the
    loop's own code neither unscales, back-propagates through a scaler nor hands one to
    a function): "in `backward()`", the hook handed it, or "itself" (`loss.backward()` of
    the loop's own code, of the value as it is: not in apex's `with amp.scale_loss(loss, opt)`
    nor handed to any call before); None otherwise, or where a hook of the loop is not known."""
    if not run.call.result or UNSCALE in run.loop.effects or None in run.hooks:
        return None
    if any(own.scaler or own.effect == UNSCALE or (own.callee and _may_scale(ctx, run.loop, own.callee))
           for own in run.loop.placed):
        return None
    if any(hook.scales_backward or hook.does(SCALER_STEP) for hook in run.hooks):  # type: ignore[union-attr]
        return None
    if run.call.result in run.loop.plain:
        return "itself"
    if run.call.result in run.loop.backpropagated:
        return None  # through a scaling context or a wrapper it is handed first
    return next((f"in `{call.method}()`" for call, hook in zip(run.loop.calls, run.hooks)
                 if any(name == run.call.result and hook.slot(slot) in hook.backpropagates  # type: ignore[union-attr]
                        for slot, name in call.handed)), None)


def _may_scale(ctx: FileContext, loop: HookLoop, callee: str) -> bool:
    """The function `callee` of the loop's own code scales, unscales or steps through a
    GradScaler of its own."""
    summary = _callee(ctx, loop, callee)
    return summary is not None and (bool(summary.scales_backward) or summary.does(UNSCALE)
                                    or summary.does(SCALER_STEP))


def scaling_before(ctx: FileContext, run: HookRun) -> tuple[bool | None, str]:
    """Whether the gradients are unscaled when the override runs, and the GradScaler the
    loss was last scaled with before it (`self.scaler`). Unscaled: False after a backward
    through a GradScaler (`scaler.scale(loss).backward()`, of a hook or of the loop's own
    code) with no `unscale_` since; True when none ran; None when what runs before it is
    not known: a hook out of reach, a function of the loop that may unscale, or a backward
    or `unscale_` that the loop runs on some iterations only."""
    unscaled: bool | None = True
    scaler = "scaler"
    for ran in run.before():
        if ran is None:
            return None, scaler
        if not isinstance(ran, LoopCall):
            if ran.scales_backward:
                unscaled, scaler = False, min(ran.scales_backward)
            if ran.does(UNSCALE):
                unscaled = True
            continue
        if ran.effect == UNSCALE:
            done = True
        elif ran.effect == BACKWARD and ran.scaler:
            done, scaler = False, ran.scaler
        elif not ran.effect:
            callee = _callee(ctx, run.loop, ran.callee)
            if callee is None:
                # a function out of reach may unscale: scaled gradients are no longer known to be
                unscaled = None if unscaled is False else unscaled
                continue
            if not (callee.does(UNSCALE) or callee.scales_backward):
                continue
            done = callee.does(UNSCALE)
        else:
            continue  # a plain backward leaves the scale as it was
        # what the loop does on some iterations only leaves it unknown, unless it changes nothing
        unscaled = done if not ran.occasional or unscaled == done else None
    return unscaled, scaler


def _callee(ctx: FileContext, loop: HookLoop, key: str) -> Summary | None:
    """What the function `key`, which the loop's own code calls, runs: known for a loop of
    this module only (another's keys its functions by its own names)."""
    if loop.where or not key:
        return None
    return ctx.summaries.closed.get(key) or ctx.external.get(key)
