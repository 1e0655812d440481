"""Optimizer steps on a model left in eval mode: dropout off, batch norm frozen.

The usual cause: the validation pass calls `model.eval()` and the training loop
never calls `model.train()` again, so every later epoch trains without dropout
and with batch-norm statistics frozen. The model judged is the one whose
forward the step's last backward came from (an adversarial attack run in eval
mode before a train-mode step does not count), or a model in eval mode that ran
with gradients on during the step and whose parameters the optimizer steps (a
GAN's generator, whose loss comes through the discriminator), and of its modules those its
forward called (a layer the forward skips changes nothing; inside a compiled
region calls are not seen, and every module counts). A model without any module that
behaves differently in eval mode (dropout, batch norm, attention with dropout, or a
module of the script's whose forward reads `self.training` and that keeps `running_*`
buffers: a normalization of its own) is not concerned, and a model in train mode
whose batch norms were frozen on purpose (a fine-tuning habit) is not reported.
Modules seen in eval mode inside a model that trained in train mode (a frozen
backbone's batch norms) are in eval mode on purpose: when the whole model is
later left in eval mode, they are not counted, and a model none of whose other
modules changes is not reported. A model whose own method other than `forward`
(`model.embed(x)`) calls its layers is never called itself: each layer is an
outermost call, and the model holding them is judged in their place when it is
in eval mode too. The event is located at the model's call whose output the loss's
graph reaches (any tensor of it: `logits, aux = model(x)` with a loss on `aux`; any of
the calls made from one line, a recurrent cell called at each timestep), looked for
once, when it is reported: not a call for a metric after it, nor a validation pass run
with gradients on before it.
"""
from __future__ import annotations

import functools
import weakref
from collections import Counter
from typing import TYPE_CHECKING

from torch import nn

from sanitizer.core.naming import class_name
from sanitizer.core.probe import StepRecord, node_key
from sanitizer.detectors.base import Detector
from sanitizer.detectors.graphs import reachable

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

MAX_LISTED = 20
MAX_GRAPH_NODES = 50_000  # of the loss's graph, searched for the model call it came from


NO_DROPOUT = "no dropout"
FROZEN_STATISTICS = "frozen normalization statistics"


def eval_mode_effect(module: nn.Module) -> str | None:
    """What eval mode changes in a module's forward, or None when nothing does."""
    if isinstance(module, nn.modules.dropout._DropoutNd):
        return NO_DROPOUT if module.p > 0 else None
    if isinstance(module, nn.modules.batchnorm._NormBase):  # batch and instance norms
        return FROZEN_STATISTICS if module.track_running_stats else None
    if isinstance(module, nn.MultiheadAttention):
        return NO_DROPOUT if module.dropout > 0 else None
    if _branches_on_training(type(module)) and any(name.startswith("running_") for name in module._buffers):
        # a normalization of its own that keeps running statistics (pytorch-flows'
        # BatchNormFlow: batch statistics `if self.training`, the running ones else)
        return FROZEN_STATISTICS
    return None


@functools.cache
def _branches_on_training(cls: type) -> bool:
    """Whether the class's own `forward` reads an attribute named `training`."""
    code = getattr(cls.__dict__.get("forward"), "__code__", None)
    return code is not None and "training" in code.co_names


def changes_in_eval_mode(module: nn.Module) -> bool:
    """True for modules whose forward differs between train and eval mode."""
    return eval_mode_effect(module) is not None


class TrainInEvalModeDetector(Detector):
    name = "train_in_eval_mode"
    kinds = ("train_in_eval_mode",)

    def __init__(self) -> None:
        self.first_step: int | None = None
        self.steps_in_eval_mode = 0
        self._not_stepped: set[tuple[int, int | None]] = set()  # (model, optimizer) pairs seen apart
        # modules run in eval mode inside a model that trained in train mode: frozen on purpose
        self._frozen_on_purpose: weakref.WeakSet[nn.Module] = weakref.WeakSet()

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.partial:
            return
        model, site = record.model_in_eval_mode, record.eval_mode_site
        if model is not None:
            model = _judged(model, sink)
        if model is not None and not self._steps_it(model, record):
            model = None  # the loss came through it, but the optimizer that steps holds none of it
        if model is None and self.first_step is None:
            self._learn_frozen_on_purpose(record, sink)
            model, site = self._stepped_in_eval_mode(record, sink), None
        if model is None:
            return
        if self.first_step is not None:
            self.steps_in_eval_mode += 1
            return
        frozen = [module for module in model.modules() if not module.training
                  and module not in self._frozen_on_purpose
                  and (changes_in_eval_mode(module) or sink.uses_functional_dropout(module))]
        called = record.eval_called
        if called and any(module in called for module in model.modules() if module is not model):
            # the hooks saw its layers run (not a compiled region): a layer its forward skips changes nothing
            frozen = [module for module in frozen if module in called]
        if not frozen:
            return
        self.first_step = record.step
        self.steps_in_eval_mode = 1
        names = [sink.module_name(module) or class_name(module) for module in frozen]
        functional = [module for module in frozen if not changes_in_eval_mode(module)]
        types = ", ".join(f"{count} {kind}" for kind, count in Counter(
            type(m).__name__ + (" (F.dropout with training=self.training)" if m in functional else "")
            for m in frozen).items())
        effects = _what_changes([m for m in frozen if m not in functional]) or NO_DROPOUT
        if functional and NO_DROPOUT not in effects:
            effects = f"{NO_DROPOUT}, {effects}"
        sink.emit("train_in_eval_mode", record.step,
                  f"the optimizer steps a model in eval mode: its {types} {'behaves' if len(frozen) == 1 else 'behave'} as at inference "
                  f"({effects}); call model.train() before training",
                  module=names[0], where=_call_the_loss_came_from(model, record, sink) or site or record.model_site,
                  extra={"modules": names[:MAX_LISTED]})

    @staticmethod
    def _steps_it(model: nn.Module, record: StepRecord) -> bool:
        """The step's optimizer holds some parameter of `model` (not known: yes)."""
        if not record.training_params:
            return True
        stepped = {id(param) for param in record.training_params}
        return any(id(param) in stepped for param in model.parameters())

    def _learn_frozen_on_purpose(self, record: StepRecord, sink: Sink) -> None:
        """Remember the modules this step ran in eval mode inside a model in train mode."""
        for module, root in (record.eval_called or {}).items():
            root = _model_holding(root, sink) if root is not None else None
            if root is not None and root.training:
                self._frozen_on_purpose.add(module)

    def _stepped_in_eval_mode(self, record: StepRecord, sink: Sink) -> nn.Module | None:
        """A model in eval mode that ran with gradients on during the step and whose
        parameters the optimizer steps, though the backward came through another
        model (a GAN's generator, judged through the discriminator's loss)."""
        called = record.eval_called
        if not called:
            return None
        stepped: set[int] | None = None
        for root in dict.fromkeys(_judged(root, sink) for root in called.values()):
            key = (id(root), record.optimizer_id)
            if root.training or key in self._not_stepped:
                continue
            stepped = stepped if stepped is not None else {id(param) for param in record.training_params}
            if any(id(param) in stepped for param in root.parameters()):
                return root
            self._not_stepped.add(key)  # a teacher in eval mode, run with gradients on: asked once
        return None


def _call_the_loss_came_from(model: nn.Module, record: StepRecord, sink: Sink) -> str | None:
    """Where the latest of the step's eval-mode calls of `model` whose output its backward
    passes reached was made: not a call after it for a metric, nor a validation pass run
    with gradients on before it; None when the graph reaches none of them. Asked once
    per run, when the event is reported."""
    calls = [call for call in record.eval_mode_calls.values()
             if call.nodes and (module := call.model()) is not None and _judged(module, sink) is model]
    if not calls:
        return None
    # any tensor of a call's output the graph reaches: the loss may read `aux` of `(logits, aux)`
    call_of = {node: index for index, call in enumerate(calls) for node in call.nodes}
    reached: set[int] = set()
    for node in reachable(reversed(record.graph_roots), MAX_GRAPH_NODES):
        index = call_of.get(node_key(node))
        if index is not None:
            reached.add(index)
            if len(reached) == len(calls):
                break
    return calls[max(reached)].site if reached else None


def _model_holding(module: nn.Module, sink: Sink) -> nn.Module:
    """The model `module` is a layer of, when it ran as an outermost call though it is
    one (a method of the model other than `forward`, `model.encode(x)`, calls its layers
    directly: no call of the model is seen); else `module`."""
    roots = [root for _, root in sink.model_roots()]
    if any(root is module for root in roots):
        return module
    return next((root for root in roots if any(inner is module for inner in root.modules())), module)


def _judged(module: nn.Module, sink: Sink) -> nn.Module:
    """What is judged for a module that ran in eval mode as an outermost call: the model
    it is a layer of when that model is in eval mode too (left in eval mode as a whole);
    the module alone when its model is in train mode (a part frozen on purpose)."""
    model = _model_holding(module, sink)
    return model if not model.training else module


def _what_changes(modules: list[nn.Module]) -> str:
    """What eval mode changes in these modules: dropout off, running statistics used
    and no longer updated (batch norm, instance norm that tracks them), or both."""
    effects = {eval_mode_effect(module) for module in modules}
    return ", ".join(effect for effect in (NO_DROPOUT, FROZEN_STATISTICS) if effect in effects)
