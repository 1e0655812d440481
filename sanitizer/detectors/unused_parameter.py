"""Trainable parameters an optimizer holds that never receive a (non-zero) gradient, or
that stopped receiving one: gradients all zero for the last DEAD_STEPS steps or more
(and a quarter of the run) after non-zero ones, while the parameter still trains (a
layer pruned away, a ReLU block that died mid-run).

A step whose losses are all exactly zero tells nothing: the model fits the batch (a
hinge loss with every margin met), and every gradient is zero for that reason. Nor
does a parameter that only terms of the loss held at 0 by a hinge reach, while the
other terms train (a ranking term's scorer once every pair meets the margin, see
hinge_terms.py): the loss of the step after a parameter's gradients turned all zero
is looked at, and every step's while such terms explain them. A loss exactly zero from the
first step to the last, with every gradient zero, is no fit but a loss that cannot train
anything (a cross-entropy over a single class, whose log_softmax is 0): nothing ever learned."""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from torch import nn

from sanitizer.core.probe import StepRecord
from sanitizer.detectors.base import Detector
from sanitizer.detectors.grouping import by_module, folded, shapes_match
from sanitizer.detectors.hinge_terms import Inspection, TermGraph, inspect
from sanitizer.distributed.ranks import local_values

if TYPE_CHECKING:
    import torch
    from torch import Tensor

    from sanitizer.core.sink import Sink

MIN_STEPS = 2
MAX_EVENTS = 20
LISTED = 6  # parameter names a message lists before it counts them
DEAD_STEPS = 20  # all-zero gradients since at least this many steps (and a quarter of the run)
# a gradient whose last non-zero norm was this small a part of its largest came down to zero:
# a parameter at its optimum (a full-batch fit's bias, whose gradient rounds to exactly 0 on
# some CPUs), not a layer pruned, masked or killed, whose gradients stop from their usual size
CONVERGED = 1e-4
EXPLAIN_WITHIN = 4  # steps after it was noted that a parameter's zero gradients are looked into, at most
# steps, at least, whose losses were all exactly zero and whose gradients all zero, from the
# first step to the last, that make a run in which nothing trained (no fit learned: it began so)
ZERO_RUN_STEPS = 10
# why parameters stopped learning: their layers still run in the forward (a zero gradient comes
# back to them through a saturated sigmoid or clamp, or dead units), or not (pruned, masked)
DIED_IN_FORWARD = ("the forward still runs them, but their gradients come back all zero: outputs saturated at "
                   "a sigmoid's or a clamp's limit, units that died, or a mask of zeros on them")
DIED_OUTSIDE = "a layer pruned or masked to zero, units that died, a branch the loss no longer reaches"


class UnusedParameterDetector(Detector):
    name = "unused_parameter"
    kinds = ("unused_parameter",)

    def __init__(self) -> None:
        self.steps_seen = 0
        self.steps_informative = 0  # steps whose loss was not exactly zero
        self.unused: list[str] = []
        # held weakly: the parameters of a model the script drops (a finished fold's) go with it
        self._trainable: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()
        self._had_grad: set[int] = set()
        self._nonzero: set[int] = set()
        # of parameters without a non-zero gradient when last looked at: (module name, step of
        # the latest call of its layer, None if never called);
        # by id, with a weak reference that tells a new parameter given a dead one's id apart
        # (tensors compare elementwise: no weak-keyed dict)
        self._owners: dict[int, tuple[weakref.ref[Tensor], str | None, int | None]] = {}
        # per parameter seen with a non-zero gradient: the first step it was all zero after
        # that, as (counted here, the record's step); None while non-zero
        self._zero_since: dict[int, tuple[int, int] | None] = {}
        self._peak: dict[int, float] = {}  # per parameter: its largest non-zero gradient norm
        self._last: dict[int, float] = {}  # and its latest
        # ids of parameters whose all-zero gradients a hinge term held at 0 may explain: those
        # whose zero run began at their latest step, and those such a term explained then;
        # each with the step it was noted at (another optimizer may step in between: a GAN's)
        self._to_explain: dict[int, int] = {}
        self._terms: TermGraph | None = None  # the terms of the loss last looked at
        self._inspection: Inspection | None = None  # of this step's loss, read when the step ends
        self._held: set[int] = set()  # parameters that only terms held at 0 reached this step
        self._zero_run = True  # every step so far had only losses of exactly zero and zero gradients
        self._one_class = False  # and one of those losses was a cross-entropy over a single class

    def on_backward(self, loss: torch.Tensor, sink: Sink) -> None:
        if not self._to_explain or self._inspection is not None:
            return
        known = self._terms if self._terms is not None and self._to_explain.keys() <= self._terms.reached.keys() else None
        self._inspection = inspect(loss, known)
        if self._inspection is not None:
            self._terms = self._inspection.graph

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.partial:
            return
        if not record.joins_previous:  # a second optimizer stepped on the same backward pass
            self.steps_seen += 1
            inspection, self._inspection = self._inspection, None
            self._held = inspection.held_at_zero() if inspection is not None else set()
            stepped = {id(param) for param in record.params}  # looked into by now, or no longer zero
            self._to_explain = {key: noted for key, noted in self._to_explain.items()
                                if key not in stepped and self.steps_seen - noted <= EXPLAIN_WITHIN}
        for param in record.training_params:
            if id(param) not in self._trainable and local_values([param])[0].numel():  # an FSDP shard may be empty here
                self._trainable[id(param)] = param
        # a perfect fit (every loss exactly zero): zero gradients say nothing of the parameters
        zero_loss = bool(record.losses) and all(loss == 0.0 for loss in record.losses)
        if not zero_loss:
            for param in self._note_gradients(record):  # turned all zero at this step
                self._note_owner(sink, param)
        if self._zero_run:
            self._zero_run = zero_loss and not any(record.grad_norms)
            self._one_class = self._one_class or any(call is not None and call.one_class
                                                     for call in record.loss_calls)
        if self.steps_seen & (self.steps_seen - 1) == 0:  # steps 1, 2, 4, 8, ...: bounded work
            self._note_owners(sink)

    def _note_gradients(self, record: StepRecord) -> list[Tensor]:
        """Note each parameter's gradient of this step; return those whose gradients
        turned all zero at it."""
        turned: list[Tensor] = []
        if not record.joins_previous:
            self.steps_informative += 1
        zero_since = self._zero_since
        for param, norm in zip(record.params, record.grad_norms):
            key = id(param)
            self._had_grad.add(key)
            if norm != 0.0:
                self._nonzero.add(key)
                zero_since[key] = None
                self._last[key] = norm
                if norm > self._peak.get(key, 0.0):
                    self._peak[key] = norm
            elif key in self._held:  # a margin every pair meets, not a layer that stopped learning
                if key in zero_since:
                    zero_since[key] = None
                self._to_explain[key] = self.steps_seen
            elif key in zero_since and zero_since[key] is None:
                if self._last.get(key, 0.0) <= CONVERGED * self._peak.get(key, 0.0):
                    continue  # it came down to zero: converged, not stopped
                zero_since[key] = (self.steps_seen, record.step)
                self._to_explain[key] = self.steps_seen
                turned.append(param)
        return turned

    def _note_owners(self, sink: Sink) -> None:
        """While the model is alive, note the module and the step of the latest call of each
        parameter that has no non-zero gradient yet, or none since its gradients turned all
        zero: a model local to `main()` is gone when the run ends."""
        for key, param in list(self._trainable.items()):
            if key in self._nonzero and self._zero_since.get(key) is None:
                continue
            self._note_owner(sink, param)

    def _note_owner(self, sink: Sink, param: Tensor) -> None:
        """Note `param`'s module and the step of its latest call (also when its gradients
        turn all zero, so that a layer still running then is known to, whatever step the
        next look of `_note_owners` falls on)."""
        owner = sink.param_owner(param)
        if owner is not None:
            self._owners[id(param)] = (weakref.ref(param), sink.param_module_name(param), sink.last_called_step(owner))

    def _all_called(self, params: list[Tensor], since: int, sink: Sink) -> bool:
        """Whether the layers holding `params` are all known and all ran their forward at
        step `since` or later, when their gradients were all zero (as of now, or of when
        `_note_owners` last looked, for a model gone by the end): the parameters are used,
        and a gradient tensor of zeros came back to them. A branch the loss stopped calling
        keeps the zeros `zero_grad(set_to_none=False)` left; so may a layer last seen before."""
        def last_call(param: Tensor) -> int | None:
            owner = sink.param_owner(param)
            return sink.last_called_step(owner) if owner is not None else self._noted(param)[1]
        return bool(params) and all((last := last_call(param)) is not None and last >= since for param in params)

    def _noted(self, param: Tensor) -> tuple[str | None, int | None]:
        """What `_note_owners` found of `param`: (module name, step of the latest call), or (None, None)."""
        entry = self._owners.get(id(param))
        return (entry[1], entry[2]) if entry is not None and entry[0]() is param else (None, None)

    def on_end(self, sink: Sink) -> None:
        if self._zero_run and self.steps_seen >= ZERO_RUN_STEPS:
            self._report_zero_run(sink)
            return
        if self.steps_informative < MIN_STEPS:
            return
        self._report_died(sink)
        unused = [p for key, p in list(self._trainable.items()) if key not in self._nonzero]
        names = [sink.param_label(p) for p in unused]
        self.unused = names
        by_name = dict(zip(names, unused))
        owners = [sink.param_module_name(p) or self._noted(p)[0] for p in unused]
        never = {id(p) for p in unused if id(p) not in self._had_grad}
        every = [sink.param_label(p) for p in list(self._trainable.values())]
        in_model = {id(p) for _, p in sink.named_parameters()}
        held = sink.optimizer_params()
        # the model's parameters no optimizer holds: what a module assigned in place of old ones
        outside = [p for _, p in sink.named_parameters() if id(p) not in held]
        for module, params in list(folded(by_module(names, owners), every).items())[:MAX_EVENTS]:
            first = by_name[params[0]]
            why = ("never received a gradient" if id(first) in never
                   else "only ever received all-zero gradients")
            # an optimizer's parameter the model replaced by a new one (a module assigning
            # a new nn.Parameter in its forward): nothing could use it after that
            replaced = (bool(in_model) and all(id(by_name[name]) not in in_model for name in params)
                        and shapes_match(map(by_name.get, params), outside))
            why += f" in {self.steps_seen} steps"
            if replaced:
                why += ": they are no longer parameters of the model, which assigned new ones in their place"
            layers = list({id(owner): owner for owner in map(sink.param_owner, map(by_name.get, params))
                           if owner is not None}.values())
            noted = [self._noted(by_name[name]) for name in params if self._noted(by_name[name])[0] is not None]
            calls = [sink.was_called(layer) for layer in layers] if layers else [last is not None for _, last in noted]
            one_layer = len(layers) == 1 if layers else len({owner for owner, _ in noted}) == 1
            called = bool(calls) and all(calls)
            if calls and not any(calls):
                why += f"; {module} is never called in forward" if one_layer else \
                    f"; none of the layers of {module} is called in forward"
            # "zero": gradients arrived but were all zero, as fp16 underflow leaves them
            gradients = "none" if id(first) in never else "zero"
            reverse_first_step = (gradients == "zero" and called and len(layers) == 1
                                  and _reverse_read_at_its_first_step(layers[0], [by_name[name] for name in params]))
            if reverse_first_step:
                why += (", though the forward runs them: the loss reads this bidirectional RNN's output at "
                        "the last time step only, where the reverse direction has seen one input from its "
                        "initial state, so its last layer's recurrent weights never count")
            elif gradients == "zero" and called and not replaced:
                # run in every forward, yet zero: the gradient dies on its way back to them
                why += (", though the forward runs them: the gradient vanishes before it reaches them, "
                        "or the loss does not depend on what they compute")
            shown = ", ".join(params) if len(params) <= LISTED else \
                f"all {len(params)} parameters of {module} ({', '.join(params[:LISTED - 1])}, ...)"
            sink.emit("unused_parameter", None, f"{shown} {why}",
                      module=module, param=params[0],
                      extra={"params": params, "gradients": gradients, **({"replaced": True} if replaced else {}),
                             **({"called": True} if called else {}),
                             **({"reverse_first_step": True} if reverse_first_step else {})})

    def _report_zero_run(self, sink: Sink) -> None:
        """Every loss of the run exactly zero and every gradient zero, from the first step:
        the loss never depended on the parameters, so none of them trained. One event, for
        the model that holds them."""
        params = list(self._trainable.values())
        if not params:
            return
        names = [sink.param_label(p) for p in params]
        module = sink.common_module_name(params) or _model_holding(params, sink)
        if self._one_class:
            why = ("cross_entropy was given a single class (one logit per sample): the log_softmax of one "
                   "logit is 0 whatever its value, so the loss is 0 and no gradient comes back from it")
        else:
            why = "the loss does not depend on the model's outputs"
        shown = ", ".join(names) if len(names) <= LISTED else \
            f"all {len(names)} parameters of {module or 'the model'} ({', '.join(names[:LISTED - 1])}, ...)"
        sink.emit("unused_parameter", 1,
                  f"{shown} only ever received all-zero gradients: the loss was exactly 0 at every one "
                  f"of the {self.steps_seen} steps, from the first, so nothing trained; {why}",
                  module=module, param=names[0],
                  extra={"params": names, "gradients": "zero", "zero_loss": True,
                         **({"one_class": True} if self._one_class else {})})

    def _report_died(self, sink: Sink) -> None:
        """Parameters that still train but whose gradients have been all zero since a step
        long enough ago: the layer stopped learning mid-run."""
        span = max(DEAD_STEPS, self.steps_seen // 4)
        died: dict[tuple[int, int], list[Tensor]] = {}
        for key, param in list(self._trainable.items()):
            since = self._zero_since.get(key)
            if since is not None and self.steps_seen - since[0] + 1 >= span and param.requires_grad:
                died.setdefault(since, []).append(param)
        every = [sink.param_label(p) for p in list(self._trainable.values())]
        for (counted, step), params in sorted(died.items())[:MAX_EVENTS]:
            names = [sink.param_label(p) for p in params]
            by_label = dict(zip(names, params))
            owners = [sink.param_module_name(p) or self._noted(p)[0] for p in params]
            for module, listed in list(folded(by_module(names, owners), every).items())[:MAX_EVENTS]:
                shown = ", ".join(listed) if len(listed) <= LISTED else \
                    f"all {len(listed)} parameters of {module} ({', '.join(listed[:LISTED - 1])}, ...)"
                called = self._all_called([by_label[name] for name in listed if name in by_label], step, sink)
                sink.emit("unused_parameter", step,
                          f"{shown} received only all-zero gradients from step {step} on "
                          f"({self.steps_seen - counted + 1} of {self.steps_seen} steps), after non-zero ones: "
                          f"they stopped learning ({DIED_IN_FORWARD if called else DIED_OUTSIDE})",
                          module=module, param=listed[0],
                          extra={"params": listed, "gradients": "zero", "since": step,
                                 **({"called": True} if called else {})})


def _model_holding(params: list[Tensor], sink: Sink) -> str | None:
    """The name of the model whose parameters are all among `params`, if one is."""
    held = {id(p) for p in params}
    for _, root in sink.model_roots():
        own = [id(p) for p in root.parameters()]
        if own and all(key in held for key in own):
            return sink.module_name(root)
    return None


def _reverse_read_at_its_first_step(layer: nn.Module, params: list[Tensor]) -> bool:
    """Whether `params` are exactly the recurrent weights of the last layer's reverse direction
    of a bidirectional RNN (with its projection, if any): all that goes all-zero when only the
    output at the last time step is read (`out[:, -1, :]`), the reverse direction's first step,
    taken from the initial state, which those weights multiply."""
    if not isinstance(layer, nn.RNNBase) or not layer.bidirectional:
        return False
    last = layer.num_layers - 1
    names = [f"weight_hh_l{last}_reverse"] + ([f"weight_hr_l{last}_reverse"] if getattr(layer, "proj_size", 0) else [])
    expected = {id(getattr(layer, name)) for name in names if getattr(layer, name, None) is not None}
    return {id(p) for p in params} == expected
