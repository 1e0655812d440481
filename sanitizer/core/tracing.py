"""The forward tracer behind the global module hooks.

It tracks the nesting of module calls (the outermost call tells train/eval mode
and marks the model's input), gives each module a slot, and queues the abs-max
magnitude of each module's output into the step's probe: the magnitude trail.

A module's own computation (`h = self.proj(x) * gain`) shows in its output only
when it returns it; one that ends by handing `h` to a child
(`return self.dropout(h)`) would hide it. So a tensor passed to a child that no
module produced is traced too, under the parent's "own" slot: the culprit
search then names the innermost module whose own code made the jump.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import sys
import threading
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from sanitizer.core import inputs, locations
from sanitizer.core.backward_steps import in_backward
from sanitizer.core.built_layers import BuiltLayers
from sanitizer.core.probe import (
    INPUT_SLOT, MAX_EVAL_MODE_CALLS, MAX_OUTPUT_TENSORS, EvalModeCall, InputSource, inexact, node_key,
)

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer
    from sanitizer.detectors import Detector

# Elementwise modules that cannot turn a finite input into a non-finite output:
# tracing them would only cost time.
MAX_KNOWN_MODULES = 4096  # outermost modules whose parameter-freedom is remembered
MAX_EXTRA_OUTPUTS = 4  # other outputs of a forward (beside its first) whose values are checked
UNTRACED = (nn.ReLU, nn.ReLU6, nn.LeakyReLU, nn.GELU, nn.SiLU, nn.Tanh, nn.Sigmoid,
            nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
            nn.Identity, nn.Flatten, nn.Unflatten)

# The same, applied as functions in a module's own code (`F.relu(self.fc1(x))`):
# autograd nodes of elementwise maps that keep finite values finite and do not
# grow magnitudes. Such a value, computed from a traced one, adds nothing to the trail.
UNTRACED_NODES = frozenset({"ReluBackward0", "GeluBackward0", "SiluBackward0", "TanhBackward0",
                            "SigmoidBackward0", "LeakyReluBackward0", "HardtanhBackward0",
                            "EluBackward0", "HardswishBackward0", "MishBackward0"})


MAX_NOGRAD_MODELS = 4  # models run without gradients remembered per step


class ForwardTracer:
    def __init__(self, session: Sanitizer, trace: bool, listeners: list[Detector]) -> None:
        self.saw_forward = False
        self.training_mode: bool | None = None  # of the latest outermost call of a model (not a loss) with gradients
        self._model: weakref.ref[nn.Module] | None = None  # that model
        self._eval_mode_site: str | None = None  # where that call was made, when it ran in eval mode
        self._session = session
        self._trace = trace
        self._listeners = listeners
        # the nesting of module calls, one per thread: a forward running in another
        # thread (an evaluator's, a monitor's) is no caller of the training thread's
        self._threads = _ThreadCalls()
        self._parameter_free_ids: dict[int, tuple[weakref.ref[nn.Module], bool]] = {}
        self._slots: dict[tuple[int, bool], int] = {}
        self._slot_refs: list[weakref.ref[nn.Module]] = []
        self._own_slots: set[int] = set()
        # modules whose own code applies dropout as a function (`F.dropout(x, p,
        # training=self.training)`), seen off in eval mode: eval mode changes them too
        self.functional_dropout: weakref.WeakSet[nn.Module] = weakref.WeakSet()
        # the modules whose forward ran at all: with or without gradients (a stem run
        # by a reentrant checkpoint on the raw batch, a validation pass)
        self.called = CalledModules()
        self._built = BuiltLayers()

    def drop_listener(self, detector: Detector) -> None:
        """`detector` is told of forward outputs no more."""
        if detector in self._listeners:
            self._listeners.remove(detector)

    def _parameter_free(self, module: nn.Module) -> bool:
        """`module` holds no parameter and is no loss; asked once per module (a model
        built whole before training: one dict lookup per forward after the first)."""
        key = id(module)
        known = self._parameter_free_ids.get(key)
        if known is None or known[0]() is not module:
            free = next(module.parameters(), None) is None and not isinstance(module, nn.modules.loss._Loss)
            known = (weakref.ref(module), free)
            if len(self._parameter_free_ids) >= MAX_KNOWN_MODULES:
                self._parameter_free_ids.clear()  # modules built per step: start again
            self._parameter_free_ids[key] = known
        return known[1]

    def functional_dropout_off(self) -> None:
        """A dropout function ran with `training=False` in the running module's forward."""
        calls = self._threads.calls
        if calls and torch.is_grad_enabled() and not in_backward() and not calls[-1].training:
            self.functional_dropout.add(calls[-1])

    def before_forward(self, module: nn.Module, args: tuple[Any, ...]) -> None:
        new = self.called.add(module, self._session.step)
        synced = self._session._synced_modules
        if synced:  # a model the trained weights were copied into (or its torch.compile wrapper)
            inner = module if id(module) in synced else getattr(module, "_orig_mod", None)
            if inner is not None and id(inner) in synced:
                self._session.synced_copy_called(inner)
        if in_backward():  # activation checkpointing recomputes forwards already seen
            return
        grad = torch.is_grad_enabled()
        t = self._threads
        t.calls.append(module)
        # inside a block a reentrant checkpoint runs without gradients: set where the
        # block is entered (a look at the callers), inherited by its children
        parent_checkpointed = t.checkpointed[-1] if t.checkpointed else False
        t.checkpointed.append(False if grad else parent_checkpointed or (
            bool(t.outer_grad) and len(t.calls) > 1 and _called_by_checkpoint()))
        t.inputs.append(args[0] if args else None)
        if not module.training and grad:
            self._session.probe.eval_called[module] = t.calls[0]
        if len(t.calls) != 1:
            if new and grad:
                self._note_built_in_forward(module, t.calls[-2])
            # the block's own code, run by a reentrant checkpoint without gradients, is traced
            # as with them: what it computes and hands a child (not the block's own input)
            if self._trace and not t.transform and args and (grad or parent_checkpointed) \
                    and args[0] is not t.inputs[-2]:
                self._trace_own_computation(args[0])
            return
        self.saw_forward = True
        t.outer_grad = torch.is_grad_enabled()
        if t.outer_grad:  # a leaf that requires grad given to a model is data (a probe image)
            self._session.on_data_leaves(args)
        # a module without parameters called on its own on data without autograd history
        # is no model: a data transform (torchvision's and kornia's are modules) run by the
        # Dataset before the model sees the batch; it takes no part in the step's trail,
        # mode or location (one applied to a model's output, a head, is traced)
        t.transform = bool(args) and self._parameter_free(module) and not _any_requires_grad(args)
        if t.transform:
            return
        # a parameter-free child run first in a forward the script called directly
        # (`model.forward(x)`, `self.forward(x)` in a layer's own training method): no hook
        # of the model ran, so the model's call starts here, with the arguments its
        # forward was given; what the model computed and handed this child is its own
        direct = _direct_forward(module, self._session.step) \
            if args and t.outer_grad and self._parameter_free(module) else None
        if direct is not None:
            owner, owner_args, owner_kwargs, site, key = direct
            self.called.add(owner, self._session.step)
            handed = args[0]
            if t.direct_key != key:  # not the same forward's later child: the model's call starts
                t.direct_key = key
                self._outermost(owner, owner_args, owner_kwargs, site)
            self._trace_own_computation(handed, owner)
            return
        self._outermost(module, args, None, None)

    def _note_built_in_forward(self, module: nn.Module, parent: nn.Module) -> None:
        """`module`, called for the first time, inside the forward of `parent`: a layer
        built anew at every call when `parent` was called at an earlier step (see
        core/built_layers.py)."""
        first = self.called.first_step(parent)
        if first is None or first >= self._session.step:
            return
        built = self._built.note(module, parent)
        if built is not None:
            self._session.probe.built_in_forward.append(built)

    def _outermost(self, module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any] | None,
                   site: str | None) -> None:
        """A model's outermost call with gradients, given `args` (and `kwargs`, asked of the
        call's frame when None); `site`: where it was called, when known."""
        t = self._threads
        loss_module = isinstance(module, nn.modules.loss._Loss)
        batch = None
        if not loss_module:  # a loss module's mode says nothing
            batch = inputs.batch_of(args)
            if batch is None:  # given by keyword (`input_ids=ids`): asked only then
                kwargs = inputs.call_kwargs(module) if kwargs is None else kwargs
                batch = inputs.batch_of(kwargs.values())
            if t.outer_grad and module.training:
                self._session.sources.training_forward(batch)
            else:
                self._session.sources.evaluation_forward(batch)
        if not t.outer_grad:  # nothing trained: a teacher or an EMA copy, a validation pass
            models = self._session.probe.nograd_models
            if not loss_module and len(models) < MAX_NOGRAD_MODELS and not any(ref() is module for ref in models):
                models.append(weakref.ref(module))  # where a non-finite loss may come from
            return
        probe = self._session.probe
        first = probe.model_site is None
        if first or not (loss_module or module.training):
            site = site or locations.user_site()
        if first:
            probe.model_site = site
        if not loss_module:
            self.training_mode = module.training
            self._model = weakref.ref(module)
            # the step's first call may be a validation pass run with gradients on (no
            # torch.no_grad), a later one a metric: the call a training loss came from
            # is told by the loss's graph when reported (EvalModeCall); else the latest
            self._eval_mode_site = None if module.training else site
            if not module.training:
                self._eval_mode_call(site, module)
            if batch is not None:
                probe.batch_sizes.append(batch.shape[0])
        if not loss_module:
            self._session.measure_buffers(module)
            self._session.fp16 = self._session.fp16 or _autocast_fp16()
        if self._trace and not loss_module:
            self._trace_inputs(module, args, kwargs if kwargs is not None else inputs.call_kwargs(module), first,
                               site)

    def _eval_mode_call(self, site: str | None, module: nn.Module) -> None:
        """An outermost call of `module` in eval mode with gradients on, made at `site`: one
        entry per site and model, the latest last, so that a metric's loop over chunks or a
        recurrent cell called at each timestep neither pushes the training call out nor
        keeps only its own last call (see EvalModeCall)."""
        calls = self._session.probe.eval_mode_calls
        key = (site, id(module))
        call = calls.pop(key, None)
        if call is None or call.model() is not module:
            call = EvalModeCall(site, weakref.ref(module))
            if len(calls) >= MAX_EVAL_MODE_CALLS:
                del calls[next(iter(calls))]
        call.returned = False
        calls[key] = call

    def _trace_inputs(self, module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], first: bool,
                      site: str | None = None) -> None:
        """The data an outermost call was given, wherever among its arguments (see
        core/inputs.py). A batch has no autograd history; an input that has one (a GAN's
        discriminator fed the generator's output) was computed by a model, and is traced
        as such. The first positional argument is read as before (its magnitude), the
        others signed: an additive mask among them is told apart."""
        probe = self._session.probe
        traced = probe.traced_inputs
        for path, tensor in inputs.data_arguments(args, kwargs):
            if path != inputs.BATCH:
                known = traced.get(id(tensor))
                if known is not None and known[0]() is tensor and known[1] == tensor._version:
                    continue  # handed to every call of the step, unchanged: measured once
                traced[id(tensor)] = (weakref.ref(tensor), tensor._version)
            if not probe.add_trail(INPUT_SLOT, inputs.stored_values(tensor), signed=path != inputs.BATCH):
                return
            if site is None:
                # where this model got this batch: the step's first call costs nothing more
                site = probe.model_site if first else locations.user_site()
            probe.input_sources.append(InputSource(site, weakref.ref(module), path))

    def _trace_own_computation(self, tensor: Any, parent: nn.Module | None = None) -> None:
        """`tensor`, given to a child, was computed by the parent itself unless a module
        returned it, or the parent was given it (see `before_forward`): also a value made
        without autograd history from the parent's input (a timestep embedding's
        `log(t)`). Without gradients (a reentrant checkpoint's first pass) no autograd
        node tells an activation of a traced output apart: every such tensor is traced.
        `parent`: the model whose forward the script called directly (no call of it is
        on the stack of module calls); else the caller of the running child."""
        grad = torch.is_grad_enabled()
        if not _traceable(tensor):
            return
        t = self._threads
        last = t.last_output
        if last is not None and last() is tensor:
            return
        if inexact(tensor) and tensor.numel():
            follows_traced = grad and _activation_of(tensor, t.last_node)
            self._remember(t, tensor)  # traced once, however many children read it
            if not follows_traced:
                self._session.probe.add_trail(self._slot(parent if parent is not None else t.calls[-2], own=True),
                                              tensor)

    def after_forward(self, module: nn.Module, args: tuple[Any, ...], output: Any) -> None:
        if in_backward():
            return
        t = self._threads
        if t.calls:
            t.calls.pop()
            t.checkpointed.pop()
            t.inputs.pop()
        grad = torch.is_grad_enabled()
        # a forward without gradients inside a training forward (reentrant activation
        # checkpointing runs its blocks so, and recomputes them in backward) is traced
        if (not grad and not (t.calls and t.outer_grad)) or t.transform:
            return
        if grad and not t.calls and not module.training:
            self._eval_mode_output(module, output)
        tensor = _first_tensor(output)
        if tensor is None or not _traceable(tensor):
            return
        if grad:
            for detector in self._listeners:
                detector.on_forward(module, output, self._session.sink)
        last = t.last_output
        if last is not None and last() is tensor:  # a container passing a child's output through
            return
        self._remember(t, tensor)
        if (not self._trace or isinstance(module, UNTRACED)
                or not inexact(tensor) or tensor.numel() == 0):
            return
        # a graph torch.compile made of the model (its modules run inside it, unseen) is no
        # module of the script's: what it computes is the compiled model's
        compiled = _compiled_caller(module, t.calls)
        module = compiled if compiled is not None else module
        self._session.probe.add_trail(self._slot(module), tensor)
        if grad and isinstance(output, (tuple, list)):
            added = 0
            for item in output:
                if not (isinstance(item, torch.Tensor) and item is not tensor and item.grad_fn is not None
                        and inexact(item) and item.numel()):
                    continue
                # inside the model, a layer that also returns an auxiliary loss of its own (a
                # router's z-loss, a load-balancing term); the model itself, its other outputs
                # (a VAE's mean and log-variance: the loss reads them too), not a loss it returns
                if (item.dim() == 0) == bool(t.calls):
                    self._session.probe.add_trail(self._slot(module), item)
                    added += 1
                    if added == MAX_EXTRA_OUTPUTS:  # a model returning every hidden state: its first few
                        break

    def _eval_mode_output(self, module: nn.Module, output: Any) -> None:
        """The output of an outermost call in eval mode: the autograd nodes of its tensors,
        by sequence number and name, tell later whether a loss came from it (see EvalModeCall)."""
        calls = self._session.probe.eval_mode_calls
        call = next(reversed(calls.values()), None)
        if call is None or call.returned or call.model() is not module:
            return
        call.returned = True
        for tensor in _output_tensors(output):
            if tensor.grad_fn is not None:
                call.nodes.append(node_key(tensor.grad_fn))

    def model_in_eval_mode(self) -> nn.Module | None:
        """The model of the latest outermost call, if that call ran in eval mode."""
        return self._model() if self._model is not None and self.training_mode is False else None

    def eval_mode_site(self) -> str | None:
        """Where the latest outermost call was made, if it ran in eval mode."""
        return self._eval_mode_site if self.training_mode is False else None

    @staticmethod
    def _remember(t: _ThreadCalls, tensor: torch.Tensor) -> None:
        t.last_output = weakref.ref(tensor)
        # kept only while a model's forward runs: no graph outlives its forward because of it
        t.last_node = tensor.grad_fn if t.calls else None

    def step_closed(self) -> None:
        t = self._threads  # the training thread's
        t.last_output = None
        t.last_node = None
        t.direct_key = None
        self._built.step_closed()

    def module_of_slot(self, slot: int) -> nn.Module | None:
        return self._slot_refs[slot]() if 0 <= slot < len(self._slot_refs) else None

    def traced_modules(self) -> list[nn.Module]:
        return [module for module in (ref() for ref in self._slot_refs) if module is not None]

    def _slot(self, module: nn.Module, own: bool = False) -> int:
        """The trail slot of a module's output, or (`own`) of what its own code computed."""
        key = (id(module), own)
        slot = self._slots.get(key)
        if slot is None or self._slot_refs[slot]() is not module:
            slot = len(self._slot_refs)
            self._slot_refs.append(weakref.ref(module))
            self._slots[key] = slot
            if own:
                self._own_slots.add(slot)
        return slot

    def slot_is_own(self, slot: int) -> bool:
        """The slot holds what a module's own code computed and handed a child, not its output."""
        return slot in self._own_slots


class _ThreadCalls(threading.local):
    """The tracer's state of one thread: the modules whose forward runs in it."""

    def __init__(self) -> None:
        self.calls: list[nn.Module] = []  # the modules whose forward is running, outermost first
        self.checkpointed: list[bool] = []  # of each: whether a reentrant checkpoint runs it without gradients
        self.inputs: list[Any] = []  # of each: the first argument it was given
        self.outer_grad = False  # whether the outermost of them started with gradients enabled
        self.transform = False  # whether the outermost of them is a parameter-free module (a data transform)
        self.last_output: weakref.ref[torch.Tensor] | None = None
        # its autograd node: an activation applied to it points at this node, after the
        # tensor itself may be gone (`F.relu(self.fc(x))` drops the linear's output)
        self.last_node: Any = None
        # the forward called directly whose model call was started last (see `_direct_forward`)
        self.direct_key: tuple[int, int, int] | None = None


class CalledModules:
    """Modules by identity, each with the steps of its first and last call, forgotten when
    it is freed: a loss module or a layer built anew every step neither grows the set nor
    lends its id to a later module."""

    def __init__(self) -> None:
        self._refs: dict[int, tuple[weakref.ref[nn.Module], int]] = {}
        self._last: dict[int, int] = {}  # one store per call: a tuple built per call costs more

    def add(self, module: nn.Module, step: int) -> bool:
        """Remember `module` as called at `step`; whether it was not called before."""
        key = id(module)
        self._last[key] = step
        if key in self._refs:
            return False
        self._refs[key] = (weakref.ref(module, functools.partial(_forget, self._refs, key, self._last)), step)
        return True

    def first_step(self, module: object) -> int | None:
        entry = self._refs.get(id(module))
        return entry[1] if entry is not None and entry[0]() is module else None

    def last_step(self, module: object) -> int | None:
        """The step of `module`'s latest call, None when it was never called."""
        return self._last[id(module)] if self.first_step(module) is not None else None

    def __contains__(self, module: object) -> bool:
        return self.first_step(module) is not None

    def __len__(self) -> int:
        return len(self._refs)


def _forget(refs: dict[int, tuple[weakref.ref[nn.Module], int]], key: int, last: dict[int, int],
            ref: weakref.ref[nn.Module]) -> None:
    entry = refs.get(key)
    if entry is not None and entry[0] is ref:
        del refs[key]
        last.pop(key, None)


def _called_by_checkpoint() -> bool:
    """Whether the module being entered is called by `torch.utils.checkpoint` (its
    reentrant variant runs the block without gradients): asked once per block
    entered so, not per module."""
    frame = sys._getframe(2)
    for _ in range(_CHECKPOINT_FRAMES):
        if frame is None:
            return False
        if frame.f_code.co_filename.endswith(_CHECKPOINT_FILE):
            return True
        frame = frame.f_back
    return False


_CHECKPOINT_FILE = os.path.join("torch", "utils", "checkpoint.py")
_CHECKPOINT_FRAMES = 12  # hook machinery and Module.__call__ lie between the block and the checkpoint


def _direct_forward(module: nn.Module, step: int) -> tuple[nn.Module, tuple[Any, ...], dict[str, Any], str | None,
                                                             tuple[int, int, int]] | None:
    """When `module`, called with no module call on the stack, is a child of a model
    whose `forward` the script's code is running (called as a method, not through
    `model(x)`): that model, the arguments its forward was given, where the forward was
    called from, and a key of this forward's run (its frame, its first argument, the
    step). Only the innermost frame of the user's code is looked at."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and not locations.is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or frame.f_code.co_name != "forward" or not frame.f_code.co_argcount:
        return None
    code = frame.f_code
    local = frame.f_locals
    owner = local.get(code.co_varnames[0])
    if (not isinstance(owner, nn.Module) or owner is module
            or getattr(getattr(type(owner), "forward", None), "__code__", None) is not code
            or next(owner.parameters(), None) is None
            or not any(child is module for child in owner.modules())):
        return None
    names = code.co_varnames[1:code.co_argcount]
    args = tuple(local[name] for name in names if name in local)
    keywords = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    kwargs = {name: local[name] for name in keywords if name in local}
    first = args[0] if args else None
    return owner, args, kwargs, locations.user_site(frame.f_back), (id(frame), id(first), step)


def _compiled_caller(module: nn.Module, calls: list[nn.Module]) -> nn.Module | None:
    """The `torch.compile` wrapper (`OptimizedModule`) whose call runs `module`, when
    `module` is a graph the compiler made (a `torch.fx.GraphModule`: the compiled model,
    or a piece of it that DDP's bucketing split off); `calls`: the module calls around it."""
    if not isinstance(module, torch.fx.GraphModule):
        return None
    return next((caller for caller in calls if type(caller).__name__ == "OptimizedModule"
                 and type(caller).__module__.startswith("torch._dynamo")), None)


def _first_tensor(output: Any) -> torch.Tensor | None:
    """The tensor that stands for a module's output: the output itself, or the first
    tensor of a tuple, list or dict (a Hugging Face `ModelOutput` is one) that is not a
    0-d value (`(loss, logits)`, `{"loss": ..., "logits": ...}`: the logits, since the
    loss is seen where it is computed), else the first tensor."""
    if isinstance(output, torch.Tensor):
        return output
    items = output.values() if isinstance(output, dict) else output if isinstance(output, (tuple, list)) else ()
    first = None
    for item in items:
        if isinstance(item, torch.Tensor):
            if item.dim():
                return item
            first = first if first is not None else item
    return first


def _output_tensors(output: Any, depth: int = 3) -> list[torch.Tensor]:
    """The tensors a module's output holds, the first MAX_OUTPUT_TENSORS of them: the output
    itself, or the items of a tuple, list, dict (a Hugging Face `ModelOutput`) or dataclass,
    and of those nested in it (an LSTM's `(output, (h, c))`) down to `depth` levels."""
    if isinstance(output, torch.Tensor):
        return [output]
    if depth == 0:
        return []
    if isinstance(output, dict):
        items: Any = output.values()
    elif isinstance(output, (tuple, list)):
        items = output
    elif dataclasses.is_dataclass(output) and not isinstance(output, type):
        items = (getattr(output, item.name, None) for item in dataclasses.fields(output))
    else:
        return []
    tensors: list[torch.Tensor] = []
    for item in items:
        tensors += _output_tensors(item, depth - 1)[:MAX_OUTPUT_TENSORS - len(tensors)]
        if len(tensors) == MAX_OUTPUT_TENSORS:
            break
    return tensors


def _any_requires_grad(args: tuple[Any, ...]) -> bool:
    """A tensor among `args`, or among the items of a list, tuple or dict among them,
    requires grad: what a model computed (a head given features), not raw data."""
    for value in args:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(item, torch.Tensor) and item.requires_grad for item in items):
            return True
    return False


def _traceable(value: Any) -> bool:
    """A tensor whose size and values can be read: a dense one, not a nested tensor
    (neither a shape nor a plain reduction over its elements) nor a sparse one
    (no reduction of the trail runs on its layout: a graph's node features)."""
    return isinstance(value, torch.Tensor) and not value.is_nested and value.layout is torch.strided


def _activation_of(tensor: torch.Tensor, traced_node: Any) -> bool:
    """Whether `tensor` is an activation function applied to the output of autograd
    node `traced_node` (a value already on the trail)."""
    node = tensor.grad_fn
    if traced_node is None or type(node).__name__ not in UNTRACED_NODES:
        return False
    inputs = node.next_functions
    return bool(inputs) and inputs[0][0] is traced_node


def _autocast_fp16() -> bool:
    for device in ("cuda", "cpu"):
        if torch.is_autocast_enabled(device) and torch.get_autocast_dtype(device) == torch.float16:
            return True
    return False
