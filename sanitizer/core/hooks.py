"""Installing the instrumentation. Every handle and patch goes onto the session's ExitStack.

Hooks observe only: forward hooks return None, patched functions call the
original with the same arguments and return its result unchanged, and a failure
in the sanitizer's own code is recorded instead of reaching the script.
"""
from __future__ import annotations

import copy
import functools
import math
import re
import sys
import time
import types
import warnings
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, Callable

import torch
import torch.fx.traceback as fx_traceback
import torch.nn.functional as F
from torch.compiler import is_compiling, is_dynamo_compiling
from torch.nn.modules import module as module_globals
from torch.optim import lr_scheduler
from torch.optim import optimizer as optimizer_globals
from torch.utils.data import dataloader

from sanitizer.core import children, locations
from sanitizer.distributed import ranks

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

# Functional losses: the value they return in eval mode is a validation loss
# (compared with the training loss only when both are the same kind of loss).
# dropout written as a function, with the `training` it defaults to
FUNCTIONAL_DROPOUTS = {"dropout": True, "dropout1d": True, "dropout2d": True, "dropout3d": True,
                       "alpha_dropout": False, "feature_alpha_dropout": False}
LOSS_FUNCTIONS = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
                  "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                  "kl_div", "poisson_nll_loss", "gaussian_nll_loss")


# torch warns at every call of a compiled module while any global module hook is
# installed; the sanitizer's hooks skip compiled regions, so the warning is noise.
COMPILE_HOOK_WARNING = "Using `torch.compile(module)` when there are global hooks on modules"


def install(session: Sanitizer, stack: ExitStack) -> None:
    _install_module_hooks(session, stack)
    _ignore_warning(stack, COMPILE_HOOK_WARNING)
    _patch(stack, warnings, "warn", _warning_sites)
    _install_optimizer_hooks(session, stack)
    _patch(stack, torch.autograd, "backward",
           _observing_call(session, "backward", session.on_backward, session.after_backward))
    _patch(stack, torch.autograd, "grad", _result_observer(
        session, "autograd.grad", lambda args, kwargs, result: session.on_data_leaves(
            args[1] if len(args) > 1 else kwargs.get("inputs"))))
    _patch(stack, torch.Tensor, "detach", _detach_observer(session), lean=True)
    for name in ("__setitem__", "fill_"):
        _patch(stack, torch.nn.Parameter, name, _parameter_write_observer(session, name), lean=True)
    _install_scaler_patches(session, stack)
    _patch(stack, dataloader._BaseDataLoaderIter, "__next__", _timed_next(session))
    _patch(stack, lr_scheduler.LRScheduler, "step", _first_scheduler_step_observer(session))
    for name in LOSS_FUNCTIONS:
        if hasattr(F, name):
            _patch(stack, F, name, _result_observer(session, f"F.{name}",
                                                     functools.partial(session.on_loss_value, name)))
    _install_distribution_patches(session, stack)
    for name in ("clip_grad_norm_", "clip_grad_value_"):
        observe = _clip_observer(session, name)
        for owner in (torch.nn.utils, torch.nn.utils.clip_grad):
            if hasattr(owner, name):
                _patch(stack, owner, name, observe)
    _patch(stack, torch.nn.Module, "load_state_dict", _result_observer(
        session, "Module.load_state_dict", lambda args, kwargs, result: session.on_load_state_dict(
            args[0], args[1] if len(args) > 1 else kwargs.get("state_dict"))))
    _patch(stack, copy, "deepcopy", _model_copy_observer(session))
    if callable(getattr(fx_traceback, "format_stack", None)):
        _patch(stack, fx_traceback, "format_stack", _forward_stack)
    if callable(getattr(copy, "_reconstruct", None)):
        _patch(stack, copy, "_reconstruct", _reconstruction_observer(session))
    for name, training in FUNCTIONAL_DROPOUTS.items():
        if hasattr(F, name):
            _patch(stack, F, name, _dropout_observer(session, f"F.{name}", training))
    ranks.install(session, stack)
    children.install(session, stack, _patch)


def _guarded(session: Sanitizer, where: str, callback: Callable[..., None]) -> Callable[..., None]:
    def call(*args: Any) -> None:
        try:
            callback(*args)
        except Exception as exc:
            session.internal_error(where, exc)
    return call


try:
    from torch._C._functorch import maybe_current_level as _functorch_level
except ImportError:  # a torch without functorch's transforms
    def _functorch_level() -> int | None:
        return None


_jit_tracing = torch._C._is_tracing


def _out_of_reach() -> bool:
    """Code running while `torch.compile` traces it (fake tensors), or inside a
    `torch.func` transform (`vmap(grad(...))` for per-sample gradients): its tensors
    are the transform's stand-ins, which cannot be read once it returns. Also code
    that `torch.jit.trace` records: an op of the sanitizer's on a traced value would
    change the graph (its values' names, and `check_trace`'s comparison of two traces)."""
    return is_compiling() or _jit_tracing() or _functorch_level() is not None


def _recorded() -> bool:
    """Code whose tensor ops become a graph's (`torch.compile`'s, `torch.jit.trace`'s)
    instead of running on data: the module it calls is not called by this."""
    return is_compiling() or _jit_tracing()


def _install_module_hooks(session: Sanitizer, stack: ExitStack) -> None:
    before = _guarded(session, "forward pre-hook", session.tracer.before_forward)
    after = _guarded(session, "forward hook", session.tracer.after_forward)

    # Under torch.compile the hooks of modules inside the compiled region are traced
    # into the graph: they return at once there, so the graph holds nothing of the
    # sanitizer's (no fake tensors reach it, no guard on its state forces a recompile);
    # so they do while torch.jit.trace records a module's forward.
    called = session.tracer.called

    # torch runs global forward hooks (the sanitizer's) before a module's own: an output
    # that a hook of the script's replaces (`nan_to_num`, a rescaling adapter) is judged as
    # the model uses it, by a hook of this call only, added last and gone once it has run
    deferred = _LateJudgements(after)
    defer = _guarded(session, "forward pre-hook", deferred.add)
    global_hooks = module_globals._global_forward_hooks

    def before_forward(module: Any, args: Any) -> None:
        if not _out_of_reach():
            before(module, args)
            if getattr(module, "_forward_hooks", None) or len(global_hooks) > 1:
                defer(module)
        elif not _recorded():
            called.add(module, session.step)  # run by a `torch.func` transform: not traced, but called

    def after_forward(module: Any, args: Any, output: Any) -> None:
        if not _out_of_reach() and not (getattr(module, "_forward_hooks", None) and id(module) in deferred):
            after(module, args, output)  # returns None: the output is never replaced

    stack.enter_context(module_globals.register_module_forward_pre_hook(before_forward))
    stack.enter_context(module_globals.register_module_forward_hook(after_forward, always_call=True))
    stack.callback(deferred.clear)


class _LateJudgements:
    """Modules whose output this call is judged after the script's own forward hooks.

    For the length of one call the module holds one more forward hook, the last of its
    own: the hooks' order is a snapshot taken after the pre-hooks, so it sees the output
    every other hook has returned, then takes itself out (also when the forward raised).
    A module that calls itself inside its forward, and a TorchScript module (which takes
    no new hooks), are judged by the global hook, as before.
    """

    def __init__(self, judge: Callable[..., None]) -> None:
        self._judge = judge
        self._handles: dict[int, Any] = {}
        self._at_once: set[int] = set()

    def __contains__(self, key: int) -> bool:
        return key in self._handles

    def add(self, module: Any) -> None:
        key = id(module)
        if key in self._at_once:
            return
        if isinstance(module, torch.jit.ScriptModule):  # takes no hooks once scripted: judged as before
            self._at_once.add(key)
            return
        if key in self._handles:  # called inside its own forward: one hook cannot tell the calls apart
            self._handles.pop(key).remove()
            self._at_once.add(key)
            return

        def late(hooked: Any, args: Any, output: Any) -> None:
            handle = self._handles.pop(key, None)
            if handle is not None:
                handle.remove()
                self._judge(hooked, args, output)

        self._handles[key] = module.register_forward_hook(late, always_call=True)

    def clear(self) -> None:
        for handle in self._handles.values():
            handle.remove()
        self._handles.clear()


def _ignore_warning(stack: ExitStack, message_start: str) -> None:
    """A warnings filter of this session's own, taken out again (and only it) on close."""
    warnings.filterwarnings("ignore", message=re.escape(message_start), category=UserWarning)
    entry = warnings.filters[0]
    stack.callback(_remove_filter, entry)


def _remove_filter(entry: Any) -> None:
    if entry in warnings.filters:
        warnings.filters.remove(entry)
        getattr(warnings, "_filters_mutated", lambda: None)()  # let cached verdicts expire


_WARN_PARAMETERS = ("message", "category", "stacklevel", "source")


def _warning_sites(original: Callable[..., Any]) -> Callable[..., Any]:
    """`warnings.warn` with its `stacklevel` counted past the sanitizer's frames: a
    warning torch raises inside a patched call (a scheduler stepped first, a loss
    broadcasting its target) names the script's line and is filtered and deduplicated
    by the script's module, as in a plain run."""

    @functools.wraps(original)
    def warn(*args: Any, **kwargs: Any) -> Any:
        given = dict(zip(_WARN_PARAMETERS, args))
        accepted = _WARN_PARAMETERS + (("skip_file_prefixes",) if sys.version_info >= (3, 12) else ())
        if is_dynamo_compiling() or len(args) > len(_WARN_PARAMETERS) or any(
                key in given or key not in accepted for key in kwargs):
            # traced by torch.compile, where the call is left to run eagerly (with the
            # frames counted here), or arguments that `warnings.warn` rejects its own way
            return original(*args, **kwargs)
        given.update(kwargs)
        if "message" not in given:
            return original(*args, **kwargs)
        message, category = given["message"], given.get("category")
        stacklevel, source = given.get("stacklevel", 1), given.get("source")
        skipped = given.get("skip_file_prefixes", ())
        if isinstance(message, Warning):
            category = message.__class__
        elif category is None:
            category = UserWarning
        if (not isinstance(stacklevel, int) or not isinstance(skipped, tuple)
                or not (isinstance(category, type) and issubclass(category, Warning))):
            return original(*args, **kwargs)
        if skipped:
            stacklevel = max(2, stacklevel)
        frame = locations.warning_frame(sys._getframe(1), stacklevel, skipped)
        if frame is None:
            context: dict[str, Any] = sys.__dict__
            filename, line = "sys", 1
        else:
            context = frame.f_globals
            filename, line = frame.f_code.co_filename, frame.f_lineno
        registry = context.setdefault("__warningregistry__", {})
        return warnings.warn_explicit(message, category, filename, line, context.get("__name__", "<string>"),
                                      registry, context, source)
    return warn


def _install_optimizer_hooks(session: Sanitizer, stack: ExitStack) -> None:
    before = _guarded(session, "optimizer pre-step hook", session.before_step)
    after = _guarded(session, "optimizer post-step hook", session.after_step)

    def before_step(optimizer: Any, args: Any, kwargs: Any) -> Any:
        closure = _closure_of(args, kwargs)
        if closure is None:
            before(optimizer)
            return None
        # The forward and backward run inside step(), in the closure: the step is
        # measured when the closure returns, before the update (as in a plain loop).
        measured = _MeasuredClosure(closure, functools.partial(before, optimizer), session)
        if "closure" in kwargs:
            return args, {**kwargs, "closure": measured}
        return (args[0], measured, *args[2:]), kwargs

    def after_step(optimizer: Any, args: Any, kwargs: Any) -> None:
        closure = _closure_of(args, kwargs)
        if isinstance(closure, _MeasuredClosure) and not closure.measured:
            before(optimizer)  # the optimizer never called it
        after(optimizer)

    stack.enter_context(optimizer_globals.register_optimizer_step_pre_hook(before_step))
    stack.enter_context(optimizer_globals.register_optimizer_step_post_hook(after_step))


def _closure_of(args: Any, kwargs: Any) -> Any:
    """`args` of an optimizer step hook start with the optimizer itself."""
    closure = (kwargs or {}).get("closure", args[1] if len(args) > 1 else None)
    return closure if callable(closure) else None


class _MeasuredClosure:
    """Calls the closure, then (once per step, LBFGS may call it again) ends the step."""

    def __init__(self, closure: Callable[[], Any], end_step: Callable[[], None], session: Sanitizer) -> None:
        self.closure = closure
        self.end_step = end_step
        self.session = session
        self.measured = False

    @locations.transparent
    def __call__(self) -> Any:
        # a call after the measured one: what it adds to the next step's probe is
        # settled when it returns (see StepProbe.settle_call)
        later = self.measured
        probe = self.session.probe if later else None
        mark = probe.mark() if probe is not None else None
        result = self.closure()
        if not self.measured:
            self.measured = True
            self.end_step()
        elif probe is not None and mark is not None and self.session.probe is probe:
            try:
                probe.settle_call(mark)
            except Exception as exc:
                self.session.internal_error("closure call", exc)
        return result


def _install_scaler_patches(session: Sanitizer, stack: ExitStack) -> None:
    scaler_class = torch.amp.GradScaler
    on_scale = _guarded(session, "GradScaler.scale", session.on_scale)
    before_step = _guarded(session, "GradScaler.step", session.before_scaler_step)
    after_step = _guarded(session, "GradScaler.step", session.after_scaler_step)

    def wrap_scale(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def scale(self: Any, outputs: Any) -> Any:
            scaled = original(self, outputs)
            on_scale(self, outputs, scaled)
            return scaled
        return scale

    def wrap_step(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def step(self: Any, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            before_step(self, optimizer)
            result = original(self, optimizer, *args, **kwargs)
            after_step(self, optimizer)
            return result
        return step

    _patch(stack, scaler_class, "scale", wrap_scale)
    _patch(stack, scaler_class, "step", wrap_step)


def _observing_call(session: Sanitizer, where: str, observe: Callable[[Any], None],
                    after: Callable[[Any], None] | None = None) -> Callable[..., Any]:
    """Wrap a function whose first argument the session looks at before (and after) the call."""
    before_call = _guarded(session, where, observe)
    after_call = _guarded(session, where, after) if after is not None else None

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not session.active or _out_of_reach():
                return original(*args, **kwargs)
            first = args[0] if args else kwargs.get("tensors")
            before_call(first)
            result = original(*args, **kwargs)
            if after_call is not None:
                after_call(first)
            return result
        return call
    return wrap


def _first_scheduler_step_observer(session: Sanitizer) -> Callable[..., Any]:
    """An LR scheduler's first `step()` by the script (its constructor's own step leaves
    `_step_count` at 1), told to the session after it ran with the schedule's position
    before it: `step(epoch)` given the epoch the schedule stands at moves nothing on.
    Every later step costs one attribute read, as before."""
    noted = _guarded(session, "LRScheduler.step", session.on_scheduler_step)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def call(scheduler: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(scheduler, "_step_count", None) != 1 or not session.active or _out_of_reach():
                return original(scheduler, *args, **kwargs)
            position = getattr(scheduler, "last_epoch", None)
            result = original(scheduler, *args, **kwargs)
            noted(scheduler, position)
            return result
        return call
    return wrap


def _detach_observer(session: Sanitizer) -> Callable[..., Any]:
    """`x.detach()` called by the script on a tensor that requires grad: where, for the
    advice of a backward() whose loss it cut off (see core/cuts.py). The check costs an
    attribute read for the detaches of tensors without gradients (most of torch's own)."""
    noted = _guarded(session, "Tensor.detach", session.on_detach)

    def wrap(layer: _Layer) -> Callable[..., Any]:
        @functools.wraps(layer.below)
        def detach(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                result = layer.below(self, *args, **kwargs)
            except BaseException as exc:  # the script's error, read as under plain python
                exc.__traceback__ = locations.without_own_frames(exc.__traceback__)
                raise
            if self.requires_grad and session.active and not _out_of_reach():
                noted()
            return result
        return detach
    return wrap


MAX_CHECKED_WRITE = 1 << 16  # elements of a CPU tensor written into a parameter, read for NaN/Inf


def _parameter_write_observer(session: Sanitizer, name: str) -> Callable[..., Any]:
    """`param[i] = value` and `param.fill_(value)` on an `nn.Parameter` (its subclass of
    Tensor: other tensors' writes never reach this): a NaN or Inf the script writes into
    a weight by hand is told to the session with the line that wrote it, so that a
    non-finite weight found at the next step names that line, not the optimizer's step.
    Only the value written is looked at: a Python number, or a small CPU tensor (a GPU
    one would cost a synchronisation)."""
    noted = _guarded(session, f"Parameter.{name}", session.on_nonfinite_write)

    def wrap(layer: _Layer) -> Callable[..., Any]:
        @functools.wraps(layer.below)
        def write(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                result = layer.below(self, *args, **kwargs)
            except BaseException as exc:  # the script's error, read as under plain python
                exc.__traceback__ = locations.without_own_frames(exc.__traceback__)
                raise
            if session.active and (args or kwargs) and not _out_of_reach():
                if _nonfinite_value(args[-1] if args else kwargs.get("value")):
                    noted(self)
            return result
        return write
    return wrap


def _nonfinite_value(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if (isinstance(value, torch.Tensor) and value.device.type == "cpu" and not value.is_sparse
            and (value.is_floating_point() or value.is_complex()) and 0 < value.numel() <= MAX_CHECKED_WRITE):
        return not bool(torch.isfinite(value).all())
    return False


def _result_observer(session: Sanitizer, where: str,
                     observe: Callable[[tuple[Any, ...], dict[str, Any], Any], None]) -> Callable[..., Any]:
    """Wrap a function whose arguments and result the session looks at after the call."""
    guarded = _guarded(session, where, observe)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def call(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            if session.active and not _out_of_reach():
                guarded(args, kwargs, result)
            return result
        return call
    return wrap


def _model_copy_observer(session: Sanitizer) -> Callable[..., Any]:
    """`copy.deepcopy(x)` called by the script: the session is told what the outermost
    call copied (a library's copies, torch.compile's of its graphs, are not the
    script's models); the calls the copy makes of itself for each part (with a memo)
    go straight on."""
    copied = _guarded(session, "copy.deepcopy", session.on_model_copied)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def deepcopy(x: Any, memo: Any = None, *rest: Any) -> Any:
            if memo is not None or rest:
                return original(x, memo, *rest)
            result = original(x)
            if (session.active and isinstance(result, torch.nn.Module) and not _out_of_reach()
                    and locations.called_from_user_code()):
                copied(x, result)
            return result
        return deepcopy
    return wrap


def _forward_stack(original: Callable[..., Any]) -> Callable[..., Any]:
    """`torch.fx.traceback.format_stack`, which anomaly mode (`set_detect_anomaly(True)`)
    looks up at each node it makes to record the stack of the forward call, printed when
    the node's backward fails: without the sanitizer's frames (its wrapper of a loss
    function that made the node, its runner below the script), as a plain run prints it."""
    @functools.wraps(original)
    def format_stack(*args: Any, **kwargs: Any) -> Any:
        stack = original(*args, **kwargs)
        return locations.without_own_entries(stack) if isinstance(stack, list) else stack
    return format_stack


_COPY_FILE = copy.deepcopy.__code__.co_filename


def _reconstruction_observer(session: Sanitizer) -> Callable[..., Any]:
    """`copy._reconstruct`, which `copy.deepcopy` looks up in its module at each call to
    rebuild an object from its reduction (`x` the object copied; `memo` None for a
    shallow `copy.copy`): a script's `copy.deepcopy(model)` is told to the session as
    the patched `deepcopy` tells it, also where the script holds the function unpatched
    (`from copy import deepcopy` run before the session began), whatever the module's
    class does in its own `__setstate__`. Only a copy's outermost module, copied by a
    call from the script itself, is told; a module unpickled (`torch.load` of a whole
    model) or shallow-copied is not. The patched `deepcopy` tells the same copy again:
    following it twice is following it once."""
    copied = _guarded(session, "copy._reconstruct", session.on_model_copied)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def _reconstruct(x: Any, memo: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(x, memo, *args, **kwargs)
            if (memo is not None and isinstance(result, torch.nn.Module) and session.active
                    and not _out_of_reach() and _deep_copy_by_the_script(sys._getframe(1))):
                copied(x, result)
            return result
        return _reconstruct
    return wrap


def _deep_copy_by_the_script(frame: types.FrameType | None) -> bool:
    """Whether the `_reconstruct` called below `frame` (the sanitizer's frames) is the last
    step of a `copy.deepcopy` called by the script itself (not of a part of a larger
    copy, nor of a library's copy)."""
    while frame is not None and locations.is_own(frame):
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename != _COPY_FILE:
        return False
    caller = frame.f_back  # who called that `deepcopy`
    while caller is not None and locations.is_own(caller):
        caller = caller.f_back
    return caller is not None and locations.is_user_file(caller.f_code.co_filename)


def _clip_observer(session: Sanitizer, clip: str) -> Callable[..., Any]:
    """`clip_grad_norm_(parameters, max_norm)`: while a GradScaler has scaled a loss since
    its last step, the session is told which parameters were clipped. A generator of
    parameters is read into a list first and handed on as a generator over that list (the
    clip warns about an empty generator), any other iterator as the list it would make."""
    on_clip = _guarded(session, clip, session.on_clip)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not session.active or not session.watching_clips() or _out_of_reach():
                return original(*args, **kwargs)
            given = args[0] if args else kwargs.get("parameters")
            if isinstance(given, torch.Tensor):
                clipped = [given]
            elif isinstance(given, (list, tuple)):
                clipped = list(given)
            elif isinstance(given, types.GeneratorType):
                clipped = list(given)
                given = (parameter for parameter in clipped)
            else:
                try:
                    clipped = list(given)
                except TypeError:  # the clip raises its own error for it
                    return original(*args, **kwargs)
                given = clipped
            args, kwargs = ((given, *args[1:]), kwargs) if args else (args, {**kwargs, "parameters": given})
            result = original(*args, **kwargs)
            threshold = args[1] if len(args) > 1 else kwargs.get("max_norm", kwargs.get("clip_value"))
            on_clip(clip, clipped, threshold)
            return result
        return call
    return wrap


def _dropout_observer(session: Sanitizer, where: str, default_training: bool) -> Callable[..., Any]:
    """`F.dropout(x, p, training=self.training)` in a module's forward: off in eval
    mode. Every dropout layer calls it, so the usual call (training) costs a test."""
    dropout_off = _guarded(session, where, session.tracer.functional_dropout_off)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def call(input: Any, p: float = 0.5, training: bool = default_training, inplace: bool = False) -> Any:
            if not training and session.active and not _out_of_reach() and isinstance(p, (int, float)) and p > 0:
                dropout_off()
            return original(input, p, training, inplace)
        return call
    return wrap


def _install_distribution_patches(session: Sanitizer, stack: ExitStack) -> None:
    """`sample()` and `log_prob()` of torch's distributions: a log_prob() of a sample (an
    action), and one differentiated, make the loss a policy-gradient objective (see
    `Sanitizer.on_log_prob`); so does a log-softmax taken at what `torch.multinomial`
    drew (see core/draws.py)."""
    sample = _result_observer(session, "Distribution.sample", lambda args, kwargs, result: session.on_sample(result))
    log_prob = _result_observer(session, "Distribution.log_prob", lambda args, kwargs, result: session.on_log_prob(
        args[1] if len(args) > 1 else kwargs.get("value"), result))
    for owner in _distribution_classes():
        if "sample" in vars(owner):
            _patch(stack, owner, "sample", sample)
        if "log_prob" in vars(owner):
            _patch(stack, owner, "log_prob", log_prob)
    # actions drawn by hand (`torch.multinomial(probs, 1)`, `probs.multinomial(1)`): see core/draws.py
    multinomial = _result_observer(session, "torch.multinomial", lambda args, kwargs, result: session.on_multinomial(
        args[0] if args else kwargs.get("input"), result))
    _patch(stack, torch, "multinomial", multinomial)
    _patch(stack, torch.Tensor, "multinomial", multinomial)


def _distribution_classes() -> list[type]:
    """torch.distributions.Distribution and every subclass defined so far."""
    found: list[type] = []
    pending = [torch.distributions.Distribution]
    while pending:
        owner = pending.pop()
        if owner not in found:
            found.append(owner)
            pending.extend(owner.__subclasses__())
    return found


def _timed_next(session: Sanitizer) -> Callable[..., Any]:
    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def next_batch(iterator: Any) -> Any:
            if not session.active:
                return original(iterator)
            # the first batch of an iterator includes worker start-up: not a steady-state wait
            timed = getattr(iterator, "_num_yielded", 0) != 0
            start = time.perf_counter()
            try:
                batch = original(iterator)
            except StopIteration:
                session.sources.loader_ended()
                raise
            finally:
                if timed:
                    session.on_data_wait(time.perf_counter() - start)
            session.sources.loader_returned(iterator)
            return batch
        return next_batch
    return wrap


class _Layer:
    """One session's patch of one attribute; it calls `below` (mutable, see `_unpatch`)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.below = getattr(owner, name)
        self.had_own = name in vars(owner)


# Sessions may overlap (nested, or a notebook closing them in any order): each
# attribute keeps its stack of layers so that any one of them can be taken out.
_LAYERS: dict[tuple[int, str], list[_Layer]] = {}


def _patch(stack: ExitStack, owner: Any, name: str, wrap: Callable[[Any], Callable[..., Any]],
           lean: bool = False) -> None:
    """Put `wrap(below)` in place of `owner.name`, `below` calling what was there. A
    `lean` patch of a method called often (`Tensor.detach`) is handed the `_Layer`
    itself and calls `layer.below` in its one frame, keeping its own frame out of
    tracebacks (three Python frames fewer per call: ~2.5 us)."""
    layer = _Layer(owner, name)
    if lean:
        setattr(owner, name, wrap(layer))
    else:
        @functools.wraps(layer.below)
        def below(*args: Any, **kwargs: Any) -> Any:
            return layer.below(*args, **kwargs)

        setattr(owner, name, locations.transparent(wrap(below)))
    _LAYERS.setdefault((id(owner), name), []).append(layer)
    stack.callback(_unpatch, owner, name, layer)


def _unpatch(owner: Any, name: str, layer: _Layer) -> None:
    layers = _LAYERS[(id(owner), name)]
    index = layers.index(layer)
    if index + 1 < len(layers):  # a later session still wraps this layer: let it skip it
        above = layers[index + 1]
        above.below, above.had_own = layer.below, layer.had_own
    elif layer.had_own:
        setattr(owner, name, layer.below)
    else:
        delattr(owner, name)
    del layers[index]
    if not layers:
        del _LAYERS[(id(owner), name)]
