"""Model parameters that receive gradients no optimizer applies: checked at the first
step, and again at steps 2, 4, 8, ..., 64, then every 64 steps and once when the run
ends (a backbone unfrozen later, its optimizer left as it was), counted again from the
first step of each optimizer that steps for the first time (a second stage with a head
built after its optimizer). A parameter that requires grad but gets none (an EMA target encoder
updated under `no_grad`) is not one. An optimizer that stopped stepping (stage 1's,
still alive while stage 2's steps only the head) holds its parameters for nothing:
one that has not stepped for STALE_STEPS steps, and four times its longest gap
between two of its steps, counts as none. An fp16 model whose optimizer steps fp32
copies of its parameters (master weights, see core/masters.py) is trained as long
as the model holds the copies' values at each check (copied back after each step).

An `nn.Parameter` the script holds outside every module (a CLIP temperature
`logit_scale`), or a plain leaf tensor that requires grad (`temperature =
torch.ones(1, requires_grad=True)`), is named by its variable when no optimizer holds
it, it received a new gradient between two checks and its value stayed as it was: an
adversarial perturbation kept from batch to batch, or weights updated by hand from
their gradient, move; an input made to require grad each step is a new tensor at each
check; a plain tensor given to a model (a probe image whose saliency is followed) or
to `torch.autograd.grad` (a PINN's collocation points) is data."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torch import nn

from sanitizer.core import locations
from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.grouping import by_module, shapes_match

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

MAX_EVENTS = 20
STAGES = 16  # new optimizers that restart the checks (not one built every step)
STALE_STEPS = 16
CHECK_EVERY = 64  # steps between two checks once the doubling reaches it
FREE_SAMPLE = 4096  # values of a free parameter kept to see whether it moved


class ParamNotInOptimizerDetector(Detector):
    name = "param_not_in_optimizer"
    kinds = ("param_not_in_optimizer",)

    def __init__(self) -> None:
        self.checks = 0
        self.missing: list[str] = []
        self._optimizers: set[int | None] = set()
        # of each optimizer (by id): its last step, its longest gap between two steps, its parameters
        self._last_step: dict[int | None, int] = {}
        self._gap: dict[int | None, int] = {}
        self._held: dict[int | None, set[int]] = {}
        # the gradient each parameter of a stopped optimizer had when first seen so: one
        # left from its last step (a teacher trained first, then only run) is no new one
        self._seen_grads: dict[int, tuple[int, int]] = {}
        self._checked_at: int | None = None  # the step of the latest check
        # the free parameters the script holds, by id: as seen at the latest check
        self._free: dict[int, _Sighting] = {}

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.partial or not record.training_params or record.joins_previous:
            return
        if record.optimizer_id not in self._optimizers and len(self._optimizers) < STAGES:
            self._optimizers.add(record.optimizer_id)
            self.checks = 0  # a new optimizer, a new stage: checked at its steps 1, 2, 4, ...
        self._follow(record)
        self.checks += 1
        if self.checks & (self.checks - 1) and self.checks % CHECK_EVERY:  # steps 1, 2, 4, ..., 64, 128, 192, ...
            return
        self._held[record.optimizer_id] = {id(p) for p in record.training_params}
        self._check(record.step, sink, record if self.checks == 1 else None)

    def on_end(self, sink: Sink) -> None:
        """The steps since the last check: a backbone unfrozen after it."""
        if self._checked_at is not None and self._checked_at < sink.completed_steps:
            self._check(sink.completed_steps, sink)

    def _check(self, step: int, sink: Sink, first: StepRecord | None = None) -> None:
        """Report the parameters outside every optimizer that have gradients at `step`;
        `first`: the first step of an optimizer, when parameters it holds may have been replaced."""
        previous, self._checked_at = self._checked_at, step
        stale = self._held_only_by_stale(step)
        # the optimizers that stepped hold their parameters still if the script dropped
        # them by now (an optimizer local to a function that returned, at the run's end)
        held = sink.optimizer_params().union(*self._held.values())
        in_optimizers = held - stale
        named = sink.named_parameters()
        outside = [(name, p) for name, p in named
                   if p.requires_grad and id(p) not in in_optimizers and name not in self.missing]
        replaced = first is not None and _replaced(outside, named, first)
        missing = outside if replaced else [(name, p) for name, p in outside
                                            if p.grad is not None and (id(p) not in stale or self._new_gradient(p))]
        # fp32 master weights (core/masters.py): the optimizer steps copies of these, and the
        # model follows them while it holds their values; asked again at each check
        copies = {} if replaced or not missing else sink.master_copies([p for _, p in missing])
        missing = [(name, p) for name, p in missing if copies.get(id(p)) is not True]
        free = self._free_missing(sink.free_parameters(), held, {id(p) for _, p in named})
        for name, param in free:
            self.missing.append(name)
            plain = not isinstance(param, nn.Parameter)
            what = (f"a {_dtype(param)} tensor of shape {tuple(param.shape)} with requires_grad=True"
                    if plain else "an nn.Parameter")
            sink.emit("param_not_in_optimizer", step,
                      f"{name}, {what} the script holds outside any module, receives gradients but no "
                      "optimizer holds it and its value never changed: it is never trained (add it to the "
                      "optimizer's parameters; requires_grad_(False) if it is meant to stay fixed)",
                      param=name, where=locations.user_site(),
                      extra={"params": [name], "free": True, **({"tensor": True} if plain else {})})
        if not missing:
            return
        self.missing += [name for name, _ in missing]
        owners = [sink.param_module_name(p) for _, p in missing]
        site = locations.user_site()
        names = [name for name, _ in missing]
        # found after the first check: the gradients began between the check before and this one
        since = {"unseen_at": previous} if previous is not None and not replaced else {}
        when = f" (seen at step {step}, not yet at step {previous})" if since else ""
        for module, params in list(by_module(names, owners).items())[:MAX_EVENTS]:
            extra = {"params": params, **({"replaced": True} if replaced else {}), **since}
            if replaced:
                message = (f"{', '.join(params)}: new nn.Parameter objects assigned after the optimizer was "
                           "built, held by no optimizer; the optimizer still holds the ones they replaced, which "
                           "the model no longer uses")
            elif all(copies.get(id(dict(missing)[name])) is False for name in params):
                message = (f"{', '.join(params)} {_verbs(params, 'receives', 'receive')} gradients and the "
                           f"optimizer steps {_verbs(params, 'a copy', 'copies')} of {_verbs(params, 'it', 'them')} "
                           f"(master weights), but {_verbs(params, 'it no longer holds its', 'they no longer hold their')} "
                           f"values: {_verbs(params, 'the copy is', 'the copies are')} not copied back into "
                           "the model after the step")
                extra = {"params": params, "master_copies": True}
            elif all(id(dict(missing)[name]) in stale for name in params):
                message = (f"{', '.join(params)} {_verbs(params, 'receives', 'receive')} gradients{when} but only "
                           f"an optimizer that stopped stepping holds {_verbs(params, 'it', 'them')} (an earlier "
                           f"stage's?): {_verbs(params, 'it is', 'they are')} no longer updated")
            else:
                message = (f"{', '.join(params)} {_verbs(params, 'receives', 'receive')} gradients{when} but no "
                           f"optimizer holds {_verbs(params, 'it', 'them')}: no optimizer step ever updates "
                           f"{_verbs(params, 'it', 'them')} (a copy updated by hand, an EMA teacher, needs no "
                           "gradients: requires_grad_(False))")
            sink.emit("param_not_in_optimizer", step, message, module=module, param=params[0], where=site,
                      extra=extra)

    def _free_missing(self, free: list[tuple[str, Any]], held: set[int],
                      in_models: set[int]) -> list[tuple[str, Any]]:
        """Of the free parameters the script holds (outside every module and optimizer),
        those that received a new gradient since the latest check while their values
        stayed as they were, with their names; each is remembered as seen now."""
        self._free = {key: seen for key, seen in self._free.items() if seen.param() is not None}
        missing = []
        for name, param in free:
            if (id(param) in held or id(param) in in_models or name in self.missing
                    or not param.is_leaf or param.grad is None):
                continue  # a non-leaf (a parameter written in place under autograd) gets no .grad, and
                # torch warns when it is read
            try:
                now = _Sighting.of(param)
            except RuntimeError:  # values that cannot be sampled flat (a sparse parameter): not followed
                continue
            before = self._free.get(id(param))
            if before is not None and before.param() is param:
                now.moved = before.moved or not now.same_values(before)
                if not now.moved and now.gradient != before.gradient:
                    missing.append((name, param))
            self._free[id(param)] = now
        return missing

    def _follow(self, record: StepRecord) -> None:
        optimizer = record.optimizer_id
        last = self._last_step.get(optimizer)
        if last is not None:
            self._gap[optimizer] = max(self._gap.get(optimizer, 1), record.step - last)
        held = self._held.get(optimizer)
        if (held is not None or len(self._held) < STAGES) and len(held or ()) != len(record.training_params):
            # its first step, or parameters added to it (`add_param_group`) or frozen since
            self._held[optimizer] = {id(p) for p in record.training_params}
        self._last_step[optimizer] = record.step

    def _new_gradient(self, param: Any) -> bool:
        """Whether the gradient changed since the parameter's optimizer was first seen stopped."""
        now = (id(param.grad), param.grad._version)
        before = self._seen_grads.setdefault(id(param), now)
        return before != now

    def _held_only_by_stale(self, step: int) -> set[int]:
        """Parameters that only optimizers which stopped stepping hold."""
        stale = {optimizer for optimizer, last in self._last_step.items()
                 if step - last >= max(STALE_STEPS, 4 * self._gap.get(optimizer, 1))}
        if not stale:
            return set()
        active = set().union(*(held for optimizer, held in self._held.items() if optimizer not in stale))
        return set().union(*(held for optimizer, held in self._held.items() if optimizer in stale)) - active


def _replaced(missing: list[tuple[str, Any]], named: list[tuple[str, Any]], record: StepRecord) -> bool:
    """The model's parameters outside the optimizer stand in for ones the optimizer
    holds and the model no longer has, of the same shapes, which got no gradients:
    the module assigned new `nn.Parameter`s in its forward (an EMA codebook rebuilt
    each step). Tensors of the optimizer outside the model that get gradients are
    used: copies trained in the model's place (`functional_call(model, params, x)`)."""
    if not missing:
        return False
    in_model = {id(p) for _, p in named}
    unused = (p for p in record.training_params if id(p) not in in_model and p.grad is None)
    return shapes_match((param for _, param in missing), unused)


def _dtype(tensor: Any) -> str:
    """`float32` for `torch.float32`."""
    return str(tensor.dtype).removeprefix("torch.")


def _verbs(params: list[str], one: str, several: str) -> str:
    """The words that agree with how many parameters a message names."""
    return one if len(params) == 1 else several


@dataclass
class _Sighting:
    """A free parameter at a check: its gradient (which tensor, which version), its
    values (a sample of them), and whether they ever changed between two checks."""
    param: weakref.ref[Any]
    gradient: tuple[int, int]
    version: int
    sample: Any
    moved: bool = False

    @classmethod
    def of(cls, param: Any) -> _Sighting:
        values = param.detach().reshape(-1)
        step = max(1, values.numel() // FREE_SAMPLE)
        return cls(weakref.ref(param), (id(param.grad), param.grad._version), param._version,
                   values[::step][:FREE_SAMPLE].clone())

    def same_values(self, before: _Sighting) -> bool:
        """Written neither in place (the version counter) nor through `.data` (the values)."""
        return (self.version == before.version and self.sample.shape == before.sample.shape
                and bool((self.sample == before.sample).all()))
