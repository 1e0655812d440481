"""What calling a function does, as plain data.

A `Summary` says what one call of a function may do to a training run: step
an optimizer, back-propagate, clip, empty the CUDA cache, put a model in eval
mode, call `set_epoch` on a sampler it receives, store a tensor it receives
where it outlives the call, return a loss that still carries its graph.

Summaries are computed from each file's semantic model (see
`trainlint.analysis.summarize`) in an *open* form: the function's own facts in
source order, interleaved with the calls it makes (`Call`). `close` replaces
every call by the summary of what it calls, through the file's own functions
and, given a resolver, the functions of other files of the project. Nothing
here imports LibCST: the cache stores summaries as JSON and a warm run
resolves them without parsing anything.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from trainlint.hooks import HookLoop

STEP = "step"  # an optimizer step, plain or through a GradScaler
SCALER_STEP = "scaler_step"  # beside STEP: the step goes through a GradScaler (`scaler.step(opt)`)
# a GradScaler may be updated: `scaler.update()`, or a scaler handed to code out of reach
# (`hook.after_step(scaler)`), which may update it
SCALER_UPDATE = "scaler_update"
BACKWARD = "backward"
CLIP = "clip"
UNSCALE = "unscale"
EMPTY_CACHE = "empty_cache"
SCHEDULER_STEP = "scheduler_step"
ZERO_GRAD = "zero_grad"
MAY_ZERO_GRAD = "may_zero_grad"  # a call whose name says it may clear gradients, into code out of reach
EVAL = "eval"  # some model is put in eval mode
TRAIN = "train"
LOOP = "loop"  # runs a loop: a call of it is a whole phase, not one step
# what an item of a returned tuple or dict may hold (`Summary.returned_items`), beside the
# kind of object it is (`optimizer`, `scheduler`: see `Receivers.returned_kinds`)
GRAPH = "graph"  # a tensor the function back-propagated
DISTRIBUTED_LOADER = "distributed_loader"  # a DataLoader on a `DistributedSampler` it builds
UNPINNED_LOADER = "unpinned_loader"  # a DataLoader it builds without `pin_memory=True`
_ITEM_TAGS = (GRAPH, DISTRIBUTED_LOADER, UNPINNED_LOADER)
# the key of what running a module does, beside its functions' (`Summary.patches`): a file
# that imports the module "calls" `<module name>.<module>` (see `runtime_patches`)
MODULE_RUN = "<module>"
# the `Summary.patches` of a module whose imports are not all known (one by a name it
# computes, or beyond the chain the project follows): it may replace any of torch's attributes
UNKNOWN_PATCHES = frozenset({"torch"})
# the key of how a module binds `torch` for the files that star-import it (`Summary.torch_export`):
# such a file asks the project about `<module name>.<torch>` (see `trainlint.analysis.torch_binding`)
TORCH_EXPORT = "<torch>"
# the key of a fact of a module's class (`Net.<nn.Module>`): it derives from a class of
# `torch.nn` itself; a file that builds a class of another module asks the project about
# `<class as it names it>.<nn.Module>`, and is told (an empty summary) where the class's
# lineage, through the project's files, reaches such a class (see `Project.builds_a_module`)
NN_MODULE = "<nn.Module>"
# the key of a fact of a module's class (`PolyLR.<torch kind>`): it derives from an optimizer or a
# scheduler class of torch itself, the summary's `returns_kind` saying which; a file that builds a
# class of another module asks about `<class as it names it>.<torch kind>`, and is told the kind
# its lineage, through the project's files, reaches (see `Project.torch_class_kind`)
TORCH_KIND = "<torch kind>"
# how a module binds `torch`, as `Summary.torch_export` says it
TORCH = "torch"  # by `import torch` / `import torch.x` alone
HIDDEN = "hidden"  # its literal `__all__` leaves `torch` out: a star import of it binds no `torch`
OTHER = "other"  # by anything else, or the project cannot tell
UNBOUND = ""  # not at all (its own star imports may still bind it)
# words of the code that may write a module's globals by a name held in a string (see
# `trainlint.analysis.torch_binding.writes_globals_dynamically`)
GLOBALS_WRITER_WORDS = ("globals", "vars", "exec", "sys.modules")

# an optimizer's methods registering a hook that runs with each of its steps, which a step
# that `scaler.step()` skips for inf/NaN gradients does not run
STEP_HOOK_REGISTRATIONS = ("register_step_post_hook", "register_step_pre_hook")

# text a function must contain for its summary to say anything: files with
# none of these are not parsed just to be summarized
_SUMMARY_TOKENS = (
    "step(", "backward", "empty_cache", "set_epoch", "half", "float16", ".eval(", ".train(",
    "clip_grad", "unscale_", "DataLoader", "DistributedSampler", "+=", ".append(", "zero_grad", ".grad",
    ".extend(", ".insert(", ".appendleft(",  # a helper storing what it is given (`Summary.accumulates`)
    "no_grad", "inference_mode",  # a model's forward that runs without grad
    # a loop that runs a model it is handed (`Summary.forwards`): an evaluation loop
    # needs no other word (`correct = correct + (model(x).argmax(1) == y).sum()`)
    "for ", "while ",
    # a method of an `nn.Module` subclass that runs its layers (`Summary.runs_layers`)
    "Module",
    "schedule",  # a builder of a scheduler (see `Summary.returned_items`)
    "GradScaler",  # a base class's constructor that builds one (see `Summary.grad_scalers`)
    "autocast",  # a helper returning a loss computed under it (see `Summary.returns_float16`)
    *STEP_HOOK_REGISTRATIONS,  # a helper registering a hook that updates a scaler (see `Summary.updates_later`)
    "NamedTuple",  # a module of named tuples that step functions return (see `Summary.fields`)
    "fp16",  # a helper that sets a float16 option (see `Summary.flag_writes`)
    # deprecated AMP names a module may import for others to import from it
    "cuda.amp", "cpu.amp", "cuda import amp", "cpu import amp",
)
# the words of rule triggers that a call of a function with these facts stands for
_TRIGGERS = {
    EMPTY_CACHE: "empty_cache", SCHEDULER_STEP: "schedule", BACKWARD: "backward", CLIP: "clip_grad",
    SCALER_STEP: "GradScaler",  # a call of a function that steps a GradScaler stands for one
    UNSCALE: "unscale_", EVAL: ".eval(", "eval_mode": ".eval(", "returns_graph": "backward", "accumulates": "backward", "backpropagates": "backward",
    "half": "half", "returns_half": "half", "set_epoch": "sampler", "returns_distributed_loader": "DistributedSampler",
    "steps": "backward", "known_steps": "backward", "scales_backward": ".scale(", "plain_steps": "schedule",
    "uncleared_loop_steps": "backward", "optimizes": "", "unscales": "unscale_", "handed_away": "",
    "returns_float16": "autocast", "returns_grad_scaler": "GradScaler", "copies_non_blocking": "non_blocking",
}


# (param, truth, the param's default as `constant_text` writes it, else ""): a flag a code
# path needs to hold that truth (see `Summary.computed_backwards`)
Need = tuple[str, bool, str]
Needs = tuple[Need, ...]
# what a call gives each slot of its callee: (slot, the caller's flag handed unchanged, the
# flag's default) or (slot, "", the constant given, "" for another value), as `constant_text`
# writes them; ("*", "", "") where it unpacks `*args` / `**kwargs`, which may hold any slot
Given = tuple[tuple[str, str, str], ...]
_FALSE = frozenset({"False", "None", "0", "0.0", "''", '""'})
_Value = TypeVar("_Value")


@dataclass(frozen=True)
class Call:
    """A call a function makes: `callee` is a key of the same file (`f`,
    `Cls.method`) or a qualified name seen from it (`.engine.train`,
    `utils.ModelEMA.update`). `args` maps the callee's parameter slots
    (`#0` for the first positional argument, or a keyword) to the caller's
    parameters passed there unchanged."""

    callee: str
    args: tuple[tuple[str, str], ...] = ()
    returned: bool = False  # the caller returns what the callee returns
    # under a condition of the caller's own (a period, a flag): an `empty_cache` it
    # reaches is not one of every call (see `_Summarizer._occasional`)
    occasional: bool = False
    # slots given a name the caller returns (`self.optimize(loss)`, then `return loss`):
    # a callee that back-propagates one makes the caller return a loss with its graph
    hands_returned: tuple[str, ...] = ()
    # hands the callee a GradScaler (or what is named for one): the callee's summary says
    # whether it updates it; a callee out of reach (no summary) may
    hands_scaler: bool = False
    # the slots of a call that hands a parameter (`args`) given something else: a constant as
    # `constant_text` writes it (`("#1", "0")` of `step_schedule(sched, 0)`), "" for another value; slot
    # "*" when it unpacks `*args` / `**kwargs`, which may hold any slot (see `Summary.step_tests`)
    constants: tuple[tuple[str, str], ...] = ()
    # in the body of `if self.training:` of a method: runs only while its instance is in
    # train mode (see `Summary.graph_when_training`)
    when_training: bool = False
    # what a callee's backward on a tensor it computes needs of the call: the caller's flags'
    # needs for the call to run, as `Summary.computed_backwards` writes them, and what it gives
    # (see `Given`); None under a grad mode of the caller's own or a test of anything else
    gate: tuple[Needs, Given] | None = None
    # calls a function the file imports, not a method of an object (see
    # `CallTargets.imported_function`): where no summary tells what it does, it may do
    # anything to the parameters it is handed (`Summary.handed_away`)
    imported: bool = False


Event = str | Call
# what makes a function need the autograd graph it is handed: back-propagating, stepping, clearing
GRAPH_EFFECTS = (BACKWARD, STEP, ZERO_GRAD, MAY_ZERO_GRAD)


@dataclass(frozen=True)
class Summary:
    # parameter names, `self` excluded, in order, then `**kwargs` if any:
    # maps the slots of a call to names
    params: tuple[str, ...] = ()
    # effects and calls in source order; only effects once closed
    events: tuple[Event, ...] = ()
    returns_graph: bool = False  # returns a tensor that was back-propagated inside
    returns_half: bool = False  # returns a model converted to float16
    # returns a value it computes under float16 autocast (`with torch.autocast("cuda"):
    # return criterion(model(x), y)`), naming no scaler: a loss the caller may back-propagate
    returns_float16: bool = False
    # where it returns such a value on some calls only: what its params must hold for it to,
    # one `Needs` (see `computed_backwards`) for each way (`if mixed_precision: with
    # torch.autocast("cuda"): pred = unet(x)`, then `return mse_loss(pred.float(), y)`):
    # a call whose constants, or the defaults it leaves, hold one gets one (see `float16_for`)
    float16_when: tuple[Needs, ...] = ()
    # returns a GradScaler it builds switched on (`def build_scaler(): return GradScaler()`),
    # in a module that autocasts to no float16 (nor to a dtype it cannot tell)
    returns_grad_scaler: bool = False
    returns_distributed_loader: bool = False
    # every return gives a DataLoader it builds with `pin_memory` left out or False (not
    # through `**kwargs`), or what the one function whose result it returns does (see
    # `returns_result_of`); not a flag that a call it returns hands on (`_FLAGS`): one of
    # its other returns may give a pinned loader
    returns_unpinned_loader: bool = False
    # returns a `DistributedSampler` it builds, itself ("sampler"), in a dict of a
    # DataLoader's keyword arguments ("kwargs": `kwargs["sampler"] = ...; return kwargs`)
    # or in the DataLoader it returns ("loader"),
    # then when it shuffles: ("always",), or as a test of the caller's argument for a
    # parameter, (param, "==" or "!=", text) or (param, "is", "True"), followed by the
    # parameter's default where it is a constant (see `constant_text`): what a call that
    # leaves the argument out tests
    returns_distributed_sampler: tuple[str, ...] = ()
    # returns what a call of another function returns, as it is (`return loader_kwargs(ds,
    # "train")`): (callee, then slot and argument pairs, each argument a constant (see
    # `trainlint.analysis.literals.constant_text`), "@param" for a parameter of this
    # function passed unchanged ("@param=constant" when it has a constant default), or "?"):
    # closing gives it the callee's `returns_distributed_sampler` for those arguments
    returns_result_of: tuple[str, ...] = ()
    set_epoch: frozenset[str] = frozenset()  # params it calls set_epoch on (or on their .sampler)
    accumulates: frozenset[str] = frozenset()  # params it stores where they outlive the call
    half: frozenset[str] = frozenset()  # params it converts to float16 in place
    eval_mode: frozenset[str] = frozenset()  # params it puts in eval mode (`self.model`, `self`: of its object)
    backpropagates: frozenset[str] = frozenset()  # params whose values flow into a backward pass
    # params it hands, itself or through what it calls, to an imported function that no
    # summary tells (`def prepare(model): somelib.enable_dropout(model)`): it may switch
    # their mode, or do anything else to them
    handed_away: frozenset[str] = frozenset()
    # (scaler, optimizer): a param whose `update()` a lambda, or a function defined in it,
    # calls, which it registers on every call as a step hook of the other param (post or pre:
    # `optimizer.register_step_post_hook(lambda *_: scaler.update())`, under no branch,
    # loop or handler, no earlier return), itself or through a function it so calls with
    # both: after the call returns, each step of that optimizer that is not skipped updates
    # the scaler. TL104 still reports such a loop, with a message of its own and no fix: a
    # step skipped for inf/NaN gradients runs no hook, so the next `scaler.step()` raises
    updates_later: frozenset[tuple[str, str]] = frozenset()
    # params it only reads, where it is called: each use an argument of a call that only
    # reads it (`print("using", scaler)`, `log.info("%s", scaler)`) or a call of a GradScaler's
    # reading method (`scaler.get_scale()`), in no lambda or function defined in it. Handed
    # one, it keeps nothing that could update a scaler later (see TL104's fix)
    read_params: frozenset[str] = frozenset()
    # params it steps as optimizers (`optimizer.step()`, `scaler.step(optimizer)`), and
    # attributes of the instance a method runs on (`self.optimizer`)
    steps: frozenset[str] = frozenset()
    known_steps: frozenset[str] = frozenset()  # those of `steps` its own module knows are optimizers
    scales_backward: frozenset[str] = frozenset()  # params it runs `param.scale(loss).backward()` on
    # params it calls `.unscale_(...)` on, on every call (not under a condition of its own),
    # and GradScalers of the instance a method runs on (`self._scaler`) that it unscales on
    # every call (no branch, loop, handler or earlier return can skip it)
    unscales: frozenset[str] = frozenset()
    # params it calls a bare `.step()` on that it cannot tell are optimizers: a scheduler,
    # when the caller hands it one (`def step_schedule(scheduler): scheduler.step()`)
    plain_steps: frozenset[str] = frozenset()
    # (param, bounded param): a bare `.step()` on the first under a bound on the second
    # alone (`def step_schedule(sched, start): if start > 0: sched.step()`): one of every
    # call when the caller gives the second a value its loop never changes (a setting),
    # else the first iterations may skip it (the caller's counter)
    guarded_steps: tuple[tuple[str, str], ...] = ()
    # the pairs of `guarded_steps` whose bound may pass with the bounded param's default
    # (`def step_schedule(sched, epoch=1): if epoch > 0: sched.step()`): a call that leaves
    # it out steps the first on every call (not with `epoch=0`: on none)
    default_steps: tuple[tuple[str, str], ...] = ()
    # (param, bounded param, operator, bound) of each pair of `guarded_steps`: the tests the
    # bound puts the value to (`("sched", "epoch", ">", "0")`, see `fails_for`), that a
    # caller judges a number it gives by (`step_schedule(sched, 0)`: the step never runs)
    step_tests: tuple[tuple[str, str, str, str], ...] = ()
    # the defaults of params it hands on unchanged to a call (never rebinding them): a constant
    # as `constant_text` writes it, "" for another value (a setting): whether a call that leaves one out
    # passes the bound of a helper it hands it to (`def warm(sched, e=3): step_schedule(sched, e)`)
    defaults: tuple[tuple[str, str], ...] = ()
    # params it steps as optimizers in a loop of its own that back-propagates and never
    # clears gradients (a `finetune(model, loader, optimizer)` holding the whole loop),
    # when its module cannot tell they are optimizers: the caller can
    uncleared_loop_steps: frozenset[str] = frozenset()
    # params whose `.parameters()` it hands to an optimizer it builds (`Adam(model.parameters())`),
    # and attributes of the instance a method runs on (`self.model.parameters()`), or `self`,
    # the instance itself (`Adam(self.parameters())` of a module's constructor): it trains them
    optimizes: frozenset[str] = frozenset()
    # a constructor's parameters it keeps on the instance, as (attribute, parameter):
    # `self.model = model` in `Evaluator.__init__` is ("self.model", "model")
    stores: tuple[tuple[str, str], ...] = ()
    # not a function of the project: the name a module of the project imports and
    # re-exports (`from torch.cuda.amp import autocast` in utils.py, called as
    # `utils.autocast`), so that the caller resolves it to what it is
    alias_of: str | None = None
    # when what it returns is computed with grad off (a `forward` whose inference branch
    # runs under `torch.no_grad()`): see `trainlint.analysis.no_grad_results`
    no_grad_when: tuple[tuple[str, str, bool], ...] = ()
    # it steps an optimizer its own module cannot tell is one (`opt.step()` of an `opt`
    # handed in), itself or in a function of its module it calls: its module judges the
    # order of its other steps (a clip after them is reported there), its callers this one's
    unjudged_steps: bool = False
    # (`param.attribute`, the value) for each attribute of a param it sets (`cfg.fp16 =
    # True`, `setattr(cfg, "fp16", x)`, `vars(cfg)["fp16"] = x`, `cfg.cuda = False`; see
    # `trainlint.analysis.flag_resets`), itself or in what it hands the param to: the value
    # as `constant_text` writes it, "" where it is not a constant
    flag_writes: frozenset[tuple[str, str]] = frozenset()
    # a constructor's attributes of the new instance it sets to a GradScaler that always
    # scales (`self.scaler = GradScaler()`), in a module that autocasts to no float16 (nor
    # to a dtype it cannot tell): a subclass of another module that autocasts to
    # bfloat16 and scales with it has no float16 path for it to serve
    grad_scalers: frozenset[str] = frozenset()
    # params (or `self.` attributes) whose forward it runs in an evaluation loop of its
    # own with grad on (see `trainlint.analysis.evaluation`): left in the mode the caller
    # gave them, or put in eval mode by it where its own module runs every call of it
    # with a grad mode set; neither propagates to callers of callers
    forwards: frozenset[str] = frozenset()
    evaluated_forwards: frozenset[str] = frozenset()
    # (param, callee, slot): a param that `forwards` gains when the link of the modules
    # tells that the function of another module a call in that loop names (the call
    # itself, or one in a function of its file it hands the param to) runs the forward
    # of what the slot is handed: the callee's `called_forwards` (see
    # `trainlint.analysis.evaluation._forwarded`)
    forwards_through: tuple[tuple[str, str, str], ...] = ()
    # the same for `evaluated_forwards`: a param the function puts in eval mode itself
    evaluated_through: tuple[tuple[str, str, str], ...] = ()
    # params of a function (no method) whose forward it runs itself, outside loops of its
    # own, with no decorator, no grad mode around it, nothing that needs the graph, no
    # switch of their mode and nothing else bound to them: what a `forwards_through` asks
    called_forwards: frozenset[str] = frozenset()
    # (param, callee, slot): a param that `called_forwards` gains when the link of the
    # modules tells that the function of another module it hands the param to (itself, or
    # through a function of its file), outside loops, runs the forward of what the slot is
    # handed: a helper's helper in a third module
    called_through: tuple[tuple[str, str, str], ...] = ()
    # (param, callee, slot): a param that `forwards` gains when the link of the modules tells
    # that the function of another module it hands the param to, outside loops of its own
    # (itself, or through a function of its file), evaluates what the slot is handed in a loop
    # of its own: the callee's `forwards` (a wrapper, `def validate(self): return
    # evaluate(self.model, self.val_loader)`; see `trainlint.analysis.evaluation.wrapped_forwards`)
    wrapped_forwards: tuple[tuple[str, str, str], ...] = ()
    # a method of an `nn.Module` class that runs the module's layers as its `forward` does,
    # with no decorator and no grad mode of its own (see `trainlint.analysis.evaluation.runs_layers`)
    runs_layers: bool = False
    # (param, method): a param whose method (`model.predict(x)`) it calls in an evaluation
    # loop of its own, where a forward of it would count in `forwards`: a caller whose
    # model's class runs its layers in that method (its `layer_methods`) evaluates so
    method_forwards: tuple[tuple[str, str], ...] = ()
    # of a class's `__init__`: its class's methods that run its layers (`runs_layers`),
    # as `Class.method`, so that a caller in another module knows them by the class it builds
    layer_methods: frozenset[str] = frozenset()
    # the kind of object every return gives whole where it is a scheduler (`return
    # StepLR(opt, 10)`, see `Receivers.returned_kinds`); a `ReduceLROnPlateau` is none
    returns_kind: str = ""
    # what the items of what it returns hold: (item, kinds) for each item of a returned tuple
    # ("#0": its first, positions in order), dict written out (by constant key: "loss") or
    # named tuple (by position and by field: "#0" and ".loss", see `field_items`) that
    # holds any of (see `trainlint.analysis.summarize._Summarizer._returned_items`):
    # - GRAPH: a tensor it back-propagated, in some return (`return loss, acc`,
    #   `return {"loss": loss, "n": n}`), or in what a call it returns returns
    # - DISTRIBUTED_LOADER: a loader on a `DistributedSampler`, in every return, all
    #   tuples or all dicts of one layout (`return train_loader, val_loader`), or in what
    #   a call it returns returns
    # - UNPINNED_LOADER: a DataLoader built without `pin_memory=True`, at that position of
    #   every return, all tuples (`return train_loader, val_loader`)
    # - the kind of object it is (`return optimizer, scheduler`), where every return
    #   agrees and a scheduler is among them (see `Receivers.returned_kinds`)
    returned_items: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # params (and `self.` attributes of a method's instance) it leaves in eval mode: `.eval()`
    # on each call, outside any condition, loop or earlier return, with no switch back to
    # train mode and no grad mode of its own (`def set_eval(model): model.eval()`)
    leaves_eval: frozenset[str] = frozenset()
    # params under which alone it updates a GradScaler: each `update()` of its own runs in
    # the body of `if P:` of a param P it never rebinds, and nothing else it calls is handed a
    # scaler or runs on its instance (`def __call__(self, loss, opt, need_update=True): ...
    # if need_update: self._scaler.step(opt); self._scaler.update()`)
    updates_if: frozenset[str] = frozenset()
    # a method whose every backward, step and clear of gradients, its own and those of what it
    # calls, runs in the body of `if self.training:` (DALLE2's `DecoderTrainer.forward`, which
    # back-propagates its loss only in train mode): with its instance in eval mode, a call of
    # it needs no graph
    graph_when_training: bool = False
    # for each `backward()` on a tensor it computes itself, with no grad mode of its own
    # around either, what its params must hold for that backward to run: (param, truth,
    # the param's default as `constant_text` writes it, else "") of each `if param:` /
    # `if not param:` around it (an empty tuple: on every call); a caller running it under
    # `no_grad` makes it raise (see `trainlint.analysis.backward_losses.own_backwards`);
    # once closed, also those of the functions it calls, a few calls deep, each call's own
    # needs added (see `Call.gate`, `needs_through`)
    computed_backwards: tuple[Needs, ...] = ()
    # params P under whose `if P:` or `if P is not None:` alone a method unscales its
    # instance's GradScaler (`if clip_grad is not None: self._scaler.unscale_(opt)`, no other
    # branch, loop or earlier return around it, P not one of `updates_if`): it unscales on
    # every call that gives P a value
    unscales_given: frozenset[str] = frozenset()
    # a named tuple class of the module (`class PPOStats(NamedTuple):` with its annotated
    # fields, kept under the class's name): its fields, in order; what a function that
    # returns one built there holds by position and by field (see `Summary.returned_items`)
    fields: tuple[str, ...] = ()
    # the calls of another module's class that its returns give whole, with the arguments
    # that hold a tensor it back-propagated (`return PPOStats(loss, kl)`: ("rlhf.PPOStats",
    # ("#0",)); "loss" for a keyword): where that class is a named tuple (`fields`), the
    # items of what it returns that hold the graph, once closed
    returns_fielded: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # params whose batches a loop of its own copies with `non_blocking=True` (`def
    # train_one_epoch(model, loader): for x in loader: x.cuda(non_blocking=True)`): a
    # caller handing it a loader built without `pin_memory=True` gets no asynchronous copy
    copies_non_blocking: frozenset[str] = frozenset()
    # (param, callee, slot): a param that `copies_non_blocking` gains, once closed, when the
    # function it hands it to as it is, itself a function of the file or of another module,
    # copies the batches of what the slot holds (`def train(model, loader): run_epoch(model,
    # loader)`); a chain of such calls, as far as it goes (see `trainlint.analysis.batch_copies`)
    copies_through: tuple[tuple[str, str, str], ...] = ()
    # of a module's `MODULE_RUN`: the attributes of torch's AMP API it replaces at run time
    # (`torch.cuda.amp.autocast = npu_autocast`), for the files that import it
    patches: frozenset[str] = frozenset()
    # of a module's `MODULE_RUN`: the modules its imports may run, as it spells them
    # (`a`, `.amp_patch`): a module imported through it patches too (see `Project.patched_on_import`)
    runs: tuple[str, ...] = ()
    # a method's loops that call hooks of its instance (`self.backward(loss)`): what a subclass
    # overriding them runs in (see `trainlint.hooks`)
    hook_loops: tuple[HookLoop, ...] = ()
    # of a module's `TORCH_EXPORT`: how it binds `torch` (see `trainlint.analysis.torch_binding`)
    torch_export: str = ""

    @property
    def effects(self) -> tuple[str, ...]:
        """Effects in the order they are first reached."""
        seen: dict[str, None] = {}
        for event in self.events:
            if isinstance(event, str):
                seen.setdefault(event, None)
        return tuple(seen)

    def does(self, effect: str) -> bool:
        return effect in self.events

    def tests_of(self, stepped: str, bound: str) -> tuple[tuple[str, str], ...]:
        """The tests of the pair (`stepped`, `bound`) of `guarded_steps`: see `step_tests`."""
        return tuple((operator, limit) for param, bounded, operator, limit in self.step_tests
                     if param == stepped and bounded == bound)

    def items_holding(self, kind: str) -> tuple[str, ...]:
        """The items of what it returns that hold `kind` (see `returned_items`): GRAPH,
        DISTRIBUTED_LOADER or a kind of object; "#0" for a tuple's first, a dict's key."""
        return tuple(item for item, kinds in self.returned_items if kind in kinds)

    def item_kind(self, item: str) -> str:
        """The kind of object an item of what it returns is (`scheduler`), "" if not known."""
        kinds = next((kinds for held, kinds in self.returned_items if held == item), ())
        return next((kind for kind in kinds if kind not in _ITEM_TAGS), "")

    def float16_for(self, given: Given) -> bool:
        """Whether a call that gives `given` (see `Given`) gets a value computed under
        float16 autocast: on every call, or on a path of `float16_when` its constants, or
        the defaults it leaves, take; not where a flag holds what it cannot tell."""
        return self.returns_float16 or any(needs_through(self, given, needs) == () for needs in self.float16_when)

    def stored(self, attribute: str) -> str | None:
        """The constructor's parameter kept as `attribute` (`self.model`)."""
        return next((param for kept, param in self.stores if kept == attribute), None)

    def bound(self, slots: Iterable[tuple[str, _Value]]) -> dict[str, _Value]:
        """What a call gives, by slot (`#0` or a keyword), as the parameters it binds."""
        return {param: value for name, value in slots if (param := self.slot(name)) is not None}

    def slot(self, name: str) -> str | None:
        """The parameter a slot (`#0` or a keyword) of a call binds; a keyword
        no parameter is named after goes to `**kwargs` (listed as `**kwargs`)."""
        named = [p for p in self.params if not p.startswith("**")]
        if name.startswith("#"):
            index = int(name[1:])
            return named[index] if index < len(named) else None
        if name in named:
            return name
        rest = [p[2:] for p in self.params if p.startswith("**")]
        return rest[0] if rest else None

    # -- JSON ------------------------------------------------------------------
    def to_json(self) -> dict[str, object]:
        return {
            "params": list(self.params),
            "events": [e if isinstance(e, str) else _call_json(e) for e in self.events],
            "flags": [f for f in _FLAGS if getattr(self, f)],
            **{name: sorted(getattr(self, name)) for name in _SETS},
            **({"returned_items": [[item, list(kinds)] for item, kinds in self.returned_items]}
               if self.returned_items else {}),
            **({"returns_distributed_sampler": list(self.returns_distributed_sampler)}
               if self.returns_distributed_sampler else {}),
            **({"returns_result_of": list(self.returns_result_of)} if self.returns_result_of else {}),
            **({"returns_unpinned_loader": True} if self.returns_unpinned_loader else {}),
            **({"alias_of": self.alias_of} if self.alias_of else {}),
            **({"stores": [list(pair) for pair in self.stores]} if self.stores else {}),
            **({"guarded_steps": [list(pair) for pair in self.guarded_steps]} if self.guarded_steps else {}),
            **({"default_steps": [list(pair) for pair in self.default_steps]} if self.default_steps else {}),
            **({"step_tests": [list(test) for test in self.step_tests]} if self.step_tests else {}),
            **({"defaults": [list(pair) for pair in self.defaults]} if self.defaults else {}),
            **({"no_grad_when": [list(branch) for branch in self.no_grad_when]} if self.no_grad_when else {}),
            **({"unjudged_steps": True} if self.unjudged_steps else {}),
            **({"flag_writes": [list(write) for write in sorted(self.flag_writes)]} if self.flag_writes else {}),
            **({"updates_later": [list(pair) for pair in sorted(self.updates_later)]} if self.updates_later else {}),
            **({"read_params": sorted(self.read_params)} if self.read_params else {}),
            **({"grad_scalers": sorted(self.grad_scalers)} if self.grad_scalers else {}),
            **({"forwards": sorted(self.forwards)} if self.forwards else {}),
            **({"evaluated_forwards": sorted(self.evaluated_forwards)} if self.evaluated_forwards else {}),
            **({"forwards_through": [list(item) for item in self.forwards_through]} if self.forwards_through else {}),
            **({"evaluated_through": [list(item) for item in self.evaluated_through]} if self.evaluated_through else {}),
            **({"called_forwards": sorted(self.called_forwards)} if self.called_forwards else {}),
            **({"called_through": [list(item) for item in self.called_through]} if self.called_through else {}),
            **({"wrapped_forwards": [list(item) for item in self.wrapped_forwards]} if self.wrapped_forwards else {}),
            **({"runs_layers": True} if self.runs_layers else {}),
            **({"method_forwards": [list(item) for item in self.method_forwards]} if self.method_forwards else {}),
            **({"layer_methods": sorted(self.layer_methods)} if self.layer_methods else {}),
            **({"returns_kind": self.returns_kind} if self.returns_kind else {}),
            **({"leaves_eval": sorted(self.leaves_eval)} if self.leaves_eval else {}),
            **({"updates_if": sorted(self.updates_if)} if self.updates_if else {}),
            **({"graph_when_training": True} if self.graph_when_training else {}),
            **({"computed_backwards": [[list(need) for need in needs] for needs in self.computed_backwards]}
               if self.computed_backwards else {}),
            **({"float16_when": [[list(need) for need in needs] for needs in self.float16_when]}
               if self.float16_when else {}),
            **({"unscales_given": sorted(self.unscales_given)} if self.unscales_given else {}),
            **({"fields": list(self.fields)} if self.fields else {}),
            **({"returns_fielded": [[callee, list(items)] for callee, items in self.returns_fielded]}
               if self.returns_fielded else {}),
            **({"copies_non_blocking": sorted(self.copies_non_blocking)} if self.copies_non_blocking else {}),
            **({"copies_through": [list(item) for item in self.copies_through]} if self.copies_through else {}),
            **({"patches": sorted(self.patches)} if self.patches else {}),
            **({"runs": list(self.runs)} if self.runs else {}),
            **({"hook_loops": [loop.to_json() for loop in self.hook_loops]} if self.hook_loops else {}),
            **({"torch_export": self.torch_export} if self.torch_export else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Summary:
        events: list[Event] = []
        for raw in data.get("events", ()):  # type: ignore[union-attr]
            if isinstance(raw, str):
                events.append(raw)
            else:
                callee, args, returned, *rest = raw  # type: ignore[misc]
                events.append(Call(callee, tuple((a, b) for a, b in args), bool(returned), bool(rest and rest[0]),
                                   tuple(rest[1]) if len(rest) > 1 else (), bool(len(rest) > 2 and rest[2]),
                                   tuple((slot, value) for slot, value in rest[3]) if len(rest) > 3 else (),
                                   bool(len(rest) > 4 and rest[4]), _gate_of(rest[5]) if len(rest) > 5 else None,
                                   bool(len(rest) > 6 and rest[6])))
        flags = set(data.get("flags", ()))  # type: ignore[arg-type]
        return cls(
            params=tuple(data.get("params", ())),  # type: ignore[arg-type]
            events=tuple(events),
            **{name: name in flags for name in _FLAGS},
            **{name: frozenset(data.get(name, ())) for name in _SETS},  # type: ignore[arg-type]
            returned_items=tuple((item, tuple(kinds))
                                 for item, kinds in data.get("returned_items", ())),  # type: ignore[union-attr]
            returns_distributed_sampler=tuple(data.get("returns_distributed_sampler", ())),  # type: ignore[arg-type]
            returns_result_of=tuple(data.get("returns_result_of", ())),  # type: ignore[arg-type]
            returns_unpinned_loader=bool(data.get("returns_unpinned_loader")),
            alias_of=data.get("alias_of"),  # type: ignore[arg-type]
            stores=tuple((attribute, param) for attribute, param in data.get("stores", ())),  # type: ignore[union-attr]
            guarded_steps=tuple((stepped, bound)
                                for stepped, bound in data.get("guarded_steps", ())),  # type: ignore[union-attr]
            default_steps=tuple((stepped, bound)
                                for stepped, bound in data.get("default_steps", ())),  # type: ignore[union-attr]
            step_tests=tuple((stepped, bound, operator, limit)
                             for stepped, bound, operator, limit in data.get("step_tests", ())),  # type: ignore[union-attr]
            defaults=tuple((param, value) for param, value in data.get("defaults", ())),  # type: ignore[union-attr]
            no_grad_when=tuple((param, constant, bool(default))
                               for param, constant, default in data.get("no_grad_when", ())),  # type: ignore[union-attr]
            unjudged_steps=bool(data.get("unjudged_steps")),
            flag_writes=frozenset((flag, value) for flag, value in data.get("flag_writes", ())),  # type: ignore[union-attr]
            updates_later=frozenset((scaler, optimizer)
                                    for scaler, optimizer in data.get("updates_later", ())),  # type: ignore[union-attr]
            grad_scalers=frozenset(data.get("grad_scalers", ())),  # type: ignore[arg-type]
            read_params=frozenset(data.get("read_params", ())),  # type: ignore[arg-type]
            forwards=frozenset(data.get("forwards", ())),  # type: ignore[arg-type]
            evaluated_forwards=frozenset(data.get("evaluated_forwards", ())),  # type: ignore[arg-type]
            forwards_through=tuple((param, callee, slot)
                                   for param, callee, slot in data.get("forwards_through", ())),  # type: ignore[union-attr]
            evaluated_through=tuple((param, callee, slot)
                                    for param, callee, slot in data.get("evaluated_through", ())),  # type: ignore[union-attr]
            called_forwards=frozenset(data.get("called_forwards", ())),  # type: ignore[arg-type]
            called_through=tuple((param, callee, slot)
                                 for param, callee, slot in data.get("called_through", ())),  # type: ignore[union-attr]
            wrapped_forwards=tuple((param, callee, slot)
                                   for param, callee, slot in data.get("wrapped_forwards", ())),  # type: ignore[union-attr]
            runs_layers=bool(data.get("runs_layers")),
            method_forwards=tuple((param, method) for param, method in data.get("method_forwards", ())),  # type: ignore[union-attr]
            layer_methods=frozenset(data.get("layer_methods", ())),  # type: ignore[arg-type]
            returns_kind=str(data.get("returns_kind", "")),
            leaves_eval=frozenset(data.get("leaves_eval", ())),  # type: ignore[arg-type]
            updates_if=frozenset(data.get("updates_if", ())),  # type: ignore[arg-type]
            graph_when_training=bool(data.get("graph_when_training")),
            computed_backwards=tuple(tuple((param, bool(held), default) for param, held, default in needs)
                                     for needs in data.get("computed_backwards", ())),  # type: ignore[union-attr]
            float16_when=tuple(tuple((param, bool(held), default) for param, held, default in needs)
                               for needs in data.get("float16_when", ())),  # type: ignore[union-attr]
            unscales_given=frozenset(data.get("unscales_given", ())),  # type: ignore[arg-type]
            fields=tuple(data.get("fields", ())),  # type: ignore[arg-type]
            returns_fielded=tuple((callee, tuple(items))
                                  for callee, items in data.get("returns_fielded", ())),  # type: ignore[union-attr]
            copies_non_blocking=frozenset(data.get("copies_non_blocking", ())),  # type: ignore[arg-type]
            copies_through=tuple((param, callee, slot)
                                 for param, callee, slot in data.get("copies_through", ())),  # type: ignore[union-attr]
            patches=frozenset(data.get("patches", ())),  # type: ignore[arg-type]
            runs=tuple(data.get("runs", ())),  # type: ignore[arg-type]
            hook_loops=tuple(HookLoop.from_json(raw) for raw in data.get("hook_loops", ())),  # type: ignore[union-attr]
            torch_export=str(data.get("torch_export", "")),
        )


def _call_json(call: Call) -> list[object]:
    gate = [[list(need) for need in call.gate[0]], [list(slot) for slot in call.gate[1]]] if call.gate else None
    tail: list[object] = [call.occasional, list(call.hands_returned), call.hands_scaler,
                          [list(pair) for pair in call.constants], call.when_training, gate, call.imported]
    while tail and not tail[-1]:
        tail.pop()
    return [call.callee, [list(a) for a in call.args], call.returned, *tail]


_FLAGS = ("returns_graph", "returns_half", "returns_distributed_loader", "returns_float16", "returns_grad_scaler")
_SETS = ("set_epoch", "accumulates", "half", "eval_mode", "backpropagates", "steps", "known_steps",
         "scales_backward", "plain_steps", "uncleared_loop_steps", "optimizes", "unscales", "handed_away")


def close(
    summaries: Mapping[str, Summary],
    external: Callable[[str], Summary | None] = lambda name: None,
) -> dict[str, Summary]:
    """Every summary with its calls replaced by what they do: calls of keys of
    `summaries` (the same file) and of names `external` knows (closed
    summaries of other files). Calls of anything else are dropped. Functions
    that call each other in a cycle grow together until a round changes
    nothing, so no answer depends on the order they are defined in."""
    closed: dict[str, Summary] = {}

    def resolve(name: str) -> Summary | None:
        if name in summaries:  # closed by now: `_components` puts callees first
            return closed.get(name)
        return external(name)

    edges = {key: [name for name in _callees(own) if name in summaries] for key, own in summaries.items()}
    for component in _components(edges):
        if len(component) == 1 and component[0] not in edges[component[0]]:
            closed[component[0]] = _inline(summaries[component[0]], resolve, summaries)
        else:
            closed.update(_close_cycle(component, summaries, edges, resolve))
    return {key: closed[key] for key in summaries}


def _close_cycle(component: Sequence[str], summaries: Mapping[str, Summary], edges: Mapping[str, list[str]],
                 resolve: Callable[[str], Summary | None]) -> dict[str, Summary]:
    """The members of one cycle of calls, each closed over what the others did
    the round before, from what each does before its calls (`_cut`). Every
    member reads the same round, whatever the order; a round closes again only
    the callers of what the last one changed, and the rounds are bounded, as
    each carries effects one call further."""
    current = {key: _cut(summaries[key]) for key in component}
    callers: dict[str, set[str]] = {key: set() for key in component}
    for key in component:
        for callee in edges[key]:
            if callee in callers:
                callers[callee].add(key)

    def within(name: str) -> Summary | None:
        return current[name] if name in current else resolve(name)

    stale = set(component)
    for _ in range(2 * len(component) + 1):
        following = {key: _inline(summaries[key], within, summaries) for key in component if key in stale}
        changed = [key for key, summary in following.items() if summary != current[key]]
        if not changed:
            break
        current.update(following)
        stale = {caller for key in changed for caller in callers[key]}
    return current


def _cut(own: Summary) -> Summary:
    """What a function of a cycle does before its calls are followed: its own
    effects, and a scaler update where it hands a scaler on, which the call may update."""
    handed = any(isinstance(e, Call) and e.hands_scaler for e in own.events)
    return replace(own, events=tuple(dict.fromkeys(
        [*(e for e in own.events if isinstance(e, str)), *([SCALER_UPDATE] if handed else [])])))


def _callees(own: Summary) -> list[str]:
    """Every name `_inline` resolves for `own` wherever it is (of the file or not), once
    each in source order: its calls, the named tuples it returns, the function whose
    result it returns, those it hands a loader on to. The cycles of the file are closed
    along these."""
    return list(dict.fromkeys([*(event.callee for event in own.events if isinstance(event, Call)),
                               *(name for name, _ in own.returns_fielded), *own.returns_result_of[:1],
                               *(name for _, name, _ in own.copies_through)]))


def _links(own: Summary) -> list[str]:
    """The functions `_inline` resolves for `own` only where they are of another module:
    those its links name (`forwards_through`, `wrapped_forwards`, ...); a function of the
    file they name is judged by the file itself, so no cycle runs through them."""
    links = (*own.forwards_through, *own.wrapped_forwards, *own.evaluated_through, *own.called_through)
    return list(dict.fromkeys(name for _, name, _ in links))


def _lookup(own: Summary, resolve: Callable[[str], Summary | None], local: Mapping[str, Summary]
            ) -> Callable[[str], Summary | None]:
    """`resolve`, for the names `_callees` and `_links` list for `own` alone: the one
    list of what `_inline` looks up, which `close` orders the file's functions by. A
    lookup of any other name is a KeyError, not a call left out of the cycles unseen."""
    allowed = {*_callees(own), *(name for name in _links(own) if name not in local)}

    def lookup(name: str) -> Summary | None:
        if name not in allowed:
            raise KeyError(f"`_inline` looks up {name!r}, which `_callees` / `_links` do not list")
        return resolve(name)

    return lookup


def _components(edges: Mapping[str, list[str]]) -> list[list[str]]:
    """The cycles of the calls `edges` (each function's callees among them):
    strongly connected components, a function alone where it is in none,
    callees before their callers. Tarjan's walk, kept on a list of its own: a
    chain of calls as deep as a file's is no deeper than Python's stack."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        walk = [(root, 0)]
        while walk:
            key, next_edge = walk.pop()
            if next_edge == 0:
                index[key] = low[key] = len(index)
                stack.append(key)
                on_stack.add(key)
            for position in range(next_edge, len(edges[key])):
                callee = edges[key][position]
                if callee not in index:
                    walk.extend(((key, position + 1), (callee, 0)))
                    break
                if callee in on_stack:
                    low[key] = min(low[key], index[callee])
            else:
                if low[key] == index[key]:
                    component: list[str] = []
                    while not component or component[-1] != key:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    found.append(component)
                if walk:
                    caller = walk[-1][0]
                    low[caller] = min(low[caller], low[key])
    return found


def _inline(own: Summary, resolve: Callable[[str], Summary | None], local: Mapping[str, Summary]) -> Summary:
    resolve = _lookup(own, resolve, local)
    events: dict[str, None] = {}
    # a step its module cannot judge, in a function of the same file it calls: nor can it here
    unjudged = own.unjudged_steps
    sets = {name: set(getattr(own, name)) for name in _SETS}
    flag_writes = set(own.flag_writes)
    updates_later = set(own.updates_later)
    flags = {name: getattr(own, name) for name in _FLAGS}
    graph_items = own.items_holding(GRAPH)
    for name, items in own.returns_fielded:  # `return PPOStats(loss, kl)` of another module's named tuple
        fields = found.fields if (found := resolve(name)) is not None else ()
        held = field_items(fields, (int(item[1:]) if item.startswith("#") else fields.index(item)
                                    for item in items if item.startswith("#") or item in fields))
        if fields and held:
            flags["returns_graph"] = True
            graph_items = (*graph_items, *(item for item in held if item not in graph_items))
    loader_items = own.items_holding(DISTRIBUTED_LOADER)
    guarded = dict.fromkeys(own.guarded_steps)
    tests = dict.fromkeys(own.step_tests)
    defaulted = dict.fromkeys(own.default_steps)
    defaults = dict(own.defaults)
    when_training = own.graph_when_training
    backwards = dict.fromkeys(own.computed_backwards)
    float16 = dict.fromkeys(own.float16_when)
    for event in own.events:
        if isinstance(event, str):
            events.setdefault(event, None)
            continue
        callee = resolve(event.callee)
        if event.hands_scaler and _may_keep_scaler(event.callee, callee):
            events.setdefault(SCALER_UPDATE, None)
        if callee is None:
            if event.imported:  # out of reach: it may do anything to what it is handed
                sets["handed_away"].update(caller_param for _, caller_param in event.args)
            continue
        # a call outside `if self.training:` whose callee needs the graph: in eval mode too
        when_training = when_training and (event.when_training or not any(callee.does(e) for e in GRAPH_EFFECTS))
        unjudged = unjudged or (callee.unjudged_steps and event.callee in local)
        for effect in callee.events:
            if isinstance(effect, str) and not (event.occasional and effect == EMPTY_CACHE):
                # a clear on some calls only (`if overflow: zero_grads(params); return`)
                # may clear, and is no clear of every step
                events.setdefault(MAY_ZERO_GRAD if event.occasional and effect == ZERO_GRAD else effect, None)
        for slot, caller_param in event.args:
            param = callee.slot(slot)
            for name in _SETS:
                if param is not None and param in getattr(callee, name):
                    sets[name].add(caller_param)
            flag_writes |= {(caller_param + flag[len(param):], value) for flag, value in callee.flag_writes
                            if param is not None and flag.startswith(param + ".")}
        handed = callee.bound(event.args)
        if not event.occasional:  # `install_update_hook(optimizer, scaler)` on every call
            updates_later |= {(handed[scaler], handed[optimizer]) for scaler, optimizer in callee.updates_later
                              if scaler in handed and optimizer in handed}
        given = callee.bound((slot, value) for slot, value in event.constants if slot != "*")
        unpacks = any(slot == "*" for slot, _ in event.constants)
        for stepped, bound in callee.guarded_steps:
            if stepped not in handed:
                continue
            mine, bounds = handed[stepped], callee.tests_of(stepped, bound)
            if bound in handed:  # the caller's own parameter: its callers judge it
                pair = (mine, handed[bound])
                guarded[pair] = None
                tests.update(dict.fromkeys((*pair, operator, limit) for operator, limit in bounds))
                default = defaults.get(handed[bound])
                if default is not None and not (default and fails_for(bounds, default)):
                    defaulted[pair] = None
            elif bound in given:  # a number that passes the bound: a step of every call
                if given[bound] and not fails_for(bounds, given[bound]):
                    sets["plain_steps"].add(mine)
            elif not unpacks and (stepped, bound) in callee.default_steps:  # left to a default that passes
                sets["plain_steps"].add(mine)
        if event.returned:
            for name in _FLAGS:
                flags[name] = flags[name] or getattr(callee, name)
            # `def run(model, x, amp): return loss_step(model, x, amp)`: float16 where the
            # flags it hands on, or the constants it gives, take a float16 path of the callee
            for needs in callee.float16_when if event.gate is not None else ():
                through = needs_through(callee, event.gate[1], needs)  # type: ignore[index]
                if through is not None:
                    float16[tuple(sorted({*event.gate[0], *through}))] = None  # type: ignore[index]
            graph_items = graph_items or callee.items_holding(GRAPH)  # `return self._step(batch)`
            # `return build_loaders(cfg)`, a dict or a tuple of loaders
            loader_items = loader_items or callee.items_holding(DISTRIBUTED_LOADER)
        if any(callee.slot(slot) in callee.backpropagates for slot in event.hands_returned):
            flags["returns_graph"] = True
        for needs in callee.computed_backwards if event.gate is not None else ():
            # `def fit(model, batch): train_step(model, batch)`: a backward of `train_step`'s
            through = needs_through(callee, event.gate[1], needs)  # type: ignore[index]
            if through is not None:
                backwards[tuple(sorted({*event.gate[0], *through}))] = None  # type: ignore[index]
    flags["returns_float16"] = flags["returns_float16"] or () in float16  # a path every call takes
    result_of = resolve(own.returns_result_of[0]) if own.returns_result_of else None
    sampler = own.returns_distributed_sampler
    if not sampler and result_of is not None:
        sampler = passed_sampler(result_of, own.returns_result_of[1:])
    # `def build(cfg): return make_loader(cfg)`: every return gives what the builder returns
    unpinned = own.returns_unpinned_loader or (result_of is not None and result_of.returns_unpinned_loader)
    # `def loaders(args): return make_loaders(args)`: the tuple's items as that builder's
    unpinned_items = own.items_holding(UNPINNED_LOADER) or (
        result_of.items_holding(UNPINNED_LOADER) if result_of is not None else ())
    # a loop's call that hands a model to a function of another module, itself or through
    # one of the file: an evaluation loop when that function runs the model's forward
    forwards = (_linked(own.forwards, own.forwards_through, resolve, local)
                | _wrapped(own.wrapped_forwards, resolve, local))
    evaluated = _linked(own.evaluated_forwards, own.evaluated_through, resolve, local)
    # and a helper that hands it so to a function of another module: a helper itself
    called = _linked(own.called_forwards, own.called_through, resolve, local)
    # `train(model, loader)` handing the loader on to a `run_epoch` that copies its batches
    copies = own.copies_non_blocking | {param for param, name, slot in own.copies_through
                                        if (callee := resolve(name)) is not None
                                        and callee.slot(slot) in callee.copies_non_blocking}
    return replace(
        own,
        copies_non_blocking=copies,
        events=tuple(events),
        forwards=forwards,
        evaluated_forwards=evaluated,
        called_forwards=called,
        unjudged_steps=unjudged,
        flag_writes=frozenset(flag_writes),
        updates_later=frozenset(updates_later),
        guarded_steps=tuple(guarded),
        returns_distributed_sampler=sampler,
        returns_unpinned_loader=unpinned,
        step_tests=tuple(tests),
        default_steps=tuple(defaulted),
        returned_items=with_items(with_items(with_items(own.returned_items, GRAPH, graph_items), DISTRIBUTED_LOADER,
                                             loader_items), UNPINNED_LOADER, unpinned_items),
        graph_when_training=when_training and any(effect in events for effect in GRAPH_EFFECTS),
        computed_backwards=tuple(backwards),
        float16_when=() if flags["returns_float16"] else tuple(float16),
        **flags,
        **{name: frozenset(values) for name, values in sets.items()},
    )


def with_items(record: tuple[tuple[str, tuple[str, ...]], ...], kind: str,
               items: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`record` (see `Summary.returned_items`) with `kind` added to each of `items`: the
    tuple's positions in order, then the keys of a dict in the order first seen."""
    found = {item: dict.fromkeys(kinds) for item, kinds in record}
    for item in items:
        found.setdefault(item, {})[kind] = None
    keys = [item for item in found if item_position(item) is None]
    positions = sorted((item for item in found if item not in keys), key=lambda item: item_position(item) or 0)
    return tuple((item, tuple(found[item])) for item in (*positions, *keys))


def field_items(fields: Sequence[str], positions: Iterable[int]) -> list[str]:
    """The items of `Summary.returned_items` for the given positions of a named tuple with
    `fields`: each read by position ("#0": `stats[0]`) and by its field's name (".loss":
    `stats.loss`)."""
    found: dict[str, None] = {}
    for position in positions:
        found[f"#{position}"] = None
        if position < len(fields):
            found[f".{fields[position]}"] = None
    return list(found)


def constant_truth(text: str) -> bool:
    """Whether a constant, as `trainlint.analysis.literals.constant_text` writes it, is true."""
    return text not in _FALSE


def needs_through(callee: Summary, given: Given, needs: Needs) -> Needs | None:
    """What the caller's flags must hold for a code path of `callee` that needs `needs` of
    its own flags to run through a call that gives `given`: a flag handed on needs the
    same of the caller's; None where a constant given, or the default a call leaves, makes
    it skip the path, or where what the flag holds is not known (another value, `*args`)."""
    handed = callee.bound((slot, (flag, text)) for slot, flag, text in given if slot != "*")
    unpacked = any(slot == "*" for slot, _, _ in given)
    found: list[Need] = []
    for param, held, default in needs:
        flag, text = handed.get(param, ("", None if unpacked else default))
        if flag:
            found.append((flag, held, text))
        elif not text or constant_truth(text) is not held:
            return None
    return tuple(found)


def _gate_of(raw: object) -> tuple[Needs, Given] | None:
    """`Call.gate` as `_call_json` writes it."""
    if not raw:
        return None
    needs, given = raw  # type: ignore[misc]
    return (tuple((param, bool(held), default) for param, held, default in needs),
            tuple((slot, flag, text) for slot, flag, text in given))


def item_position(item: str) -> int | None:
    """The position in a returned tuple an item of `Summary.returned_items` names ("#1": 1),
    None for a dict's key."""
    return int(item[1:]) if item[:1] == "#" and item[1:].isdigit() else None


def shuffles_with(condition: tuple[str, ...] | list[str], given: str | None) -> bool | None:
    """Whether a sampler that shuffles under `condition` (the tail of
    `Summary.returns_distributed_sampler`: ("always",), or (param, operator, text, ...))
    shuffles when its parameter is given the constant `given` (see `constant_text`);
    None when not known (no constant, or a condition of another form)."""
    if tuple(condition) == ("always",):
        return True
    if len(condition) < 3 or given is None or given == "?" or given.startswith("@"):
        return None
    operator, expected = condition[1], condition[2]
    if operator == "is":
        return given == expected
    if operator not in ("==", "!="):
        return None
    equal = given[:1] in ("'", '"') and ast.literal_eval(given) == expected
    return equal == (operator == "==")


def passed_sampler(callee: Summary, arguments: tuple[str, ...]) -> tuple[str, ...]:
    """What a function returning `callee`'s result returns (see `Summary.returns_result_of`,
    whose slot and argument pairs are `arguments`): the callee's sampler, shuffling always,
    or under the same test of a parameter of the caller it hands the argument unchanged;
    () when it does not shuffle for those arguments, or when that is not known."""
    if not callee.returns_distributed_sampler:
        return ()
    form, *condition = callee.returns_distributed_sampler
    if condition == ["always"]:
        return (form, "always")
    if len(condition) < 3:
        return ()
    given = [value for slot, value in zip(arguments[::2], arguments[1::2]) if callee.slot(slot) == condition[0]]
    if len(given) > 1:
        return ()
    value = given[0] if given else (condition[3] if len(condition) > 3 else None)
    if value is not None and value.startswith("@"):
        param, _, default = value[1:].partition("=")
        return (form, param, *condition[1:3], *((default,) if default else ()))
    return (form, "always") if shuffles_with(condition, value) else ()


def _linked(own: frozenset[str], links: tuple[tuple[str, str, str], ...], resolve: Callable[[str], Summary | None],
            local: Mapping[str, Summary]) -> frozenset[str]:
    """`own` and each param of `links` (param, callee, slot) that the function of another
    module the link names runs the forward of, where the slot hands it: its `called_forwards`."""
    found = set(own)
    for param, name, slot in links:
        linked = resolve(name) if name not in local else None
        if linked is not None and linked.slot(slot) in linked.called_forwards:
            found.add(param)
    return frozenset(found)


def _wrapped(links: tuple[tuple[str, str, str], ...], resolve: Callable[[str], Summary | None],
             local: Mapping[str, Summary]) -> frozenset[str]:
    """Each param of `links` (param, callee, slot) that the function of another module the
    link names evaluates in a loop of its own, where the slot hands it: its `forwards`."""
    found = set()
    for param, name, slot in links:
        linked = resolve(name) if name not in local else None
        if linked is not None and linked.slot(slot) in linked.forwards:
            found.add(param)
    return frozenset(found)


def _may_keep_scaler(key: str, callee: Summary | None) -> bool:
    """A callee handed a scaler may update it: code out of reach (no summary), one whose
    summary updates one, or one that keeps what it is given where it outlives the call
    (a constructor, `self.scaler = scaler`), for its object to update later."""
    return (callee is None or callee.does(SCALER_UPDATE) or key.endswith("__init__")
            or bool(callee.stores) or bool(callee.accumulates))


def fails_for(tests: Iterable[tuple[str, str]], value: str) -> bool:
    """A parameter holding `value` (a constant as `trainlint.analysis.literals.constant_text`
    writes it) fails one of the tests a guard puts it to: (operator, bound) as
    `trainlint.analysis.guards.bound_tests` reads them (`(">", "0")` fails for "0" and
    "False"; any of `>`, `>=`, `is not None` fails for "None"; a string compared by `>` or
    `>=` with a number raises, so the guarded code never runs)."""
    number = _number(value)
    for operator, bound in tests:
        if value == "None":
            if operator in (">", ">=", "is not"):
                return True
            continue
        if value[:1] in ("'", '"') and operator in (">", ">=") and _number(bound) is not None:
            return True
        limit = _number(bound)
        if number is None or limit is None:
            continue
        if (operator == ">" and not number > limit) or (operator == ">=" and not number >= limit):
            return True
    return False


def _number(text: str) -> float | None:
    if text in ("True", "False"):
        return float(text == "True")
    try:
        return float(text)
    except ValueError:
        return None


def may_summarize(source: str) -> bool:
    """Whether a file's functions may have anything to summarize."""
    return any(token in source for token in _SUMMARY_TOKENS) or _acts_on_a_parameter(source)


def _acts_on_a_parameter(source: str) -> bool:
    """A function with no decorator calls one of its parameters (`model(x)`, also
    `model.forward(x)` or `model.module(x)`): the forward of a model it is handed, which
    needs none of the words above (`def predict(model, x): return model(x)`, see
    `Summary.called_forwards`); or a function sets an attribute of one (`def
    force_cpu(cfg): cfg.cuda = False`, see `Summary.flag_writes`). Read with Python's
    own parser, only for files that have none of those words."""
    if "def " not in source:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    # a method's instance is no parameter a summary follows (`self.x = x` sets no flag)
    methods = {id(stmt) for cls in ast.walk(tree) if type(cls) is ast.ClassDef for stmt in cls.body}  # type: ignore[attr-defined]
    for func in ast.walk(tree):
        if type(func) not in (ast.FunctionDef, ast.AsyncFunctionDef):
            continue
        args = func.args  # type: ignore[attr-defined]
        positional = [arg.arg for arg in (*args.posonlyargs, *args.args)]
        params = {*positional, *(arg.arg for arg in args.kwonlyargs)}
        given = params - {positional[0]} if id(func) in methods and positional else params
        calls = not func.decorator_list  # type: ignore[attr-defined]
        if any((calls and _calls_a_parameter(node, params)) or _sets_a_parameters_attribute(node, given)
               for node in ast.walk(func)):
            return True
    return False


def _calls_a_parameter(node: ast.AST, params: set[str]) -> bool:
    """`model(x)`, `model.forward(x)` or `model.module(x)` of a parameter `model`."""
    called = node.func if type(node) is ast.Call else None  # type: ignore[attr-defined]
    if type(called) is ast.Attribute and called.attr in ("forward", "module"):
        called = called.value
    return type(called) is ast.Name and called.id in params


def _sets_a_parameters_attribute(node: ast.AST, params: set[str]) -> bool:
    """`cfg.cuda = ...` or `setattr(cfg, ...)` of a parameter `cfg`, also `vars(cfg)[...]
    = ...` and `cfg.__dict__[...] = ...` (see `trainlint.analysis.flag_resets.flag_write`)."""
    owner: ast.AST | None = None
    if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "setattr" and node.args:
        owner = node.args[0]
    elif type(node) is ast.Assign and len(node.targets) == 1:
        target = node.targets[0]
        held = target.value if type(target) is ast.Subscript else None
        if type(target) is ast.Attribute:
            owner = target.value
        elif type(held) is ast.Attribute and held.attr == "__dict__":
            owner = held.value
        elif type(held) is ast.Call and type(held.func) is ast.Name and held.func.id == "vars" and held.args:
            owner = held.args[0]
    return type(owner) is ast.Name and owner.id in params


def trigger_words(summaries: Iterable[Summary]) -> str:
    """Rule trigger words that calls of functions with these summaries stand
    for, as if the file spelled them."""
    words: set[str] = set()
    for summary in summaries:
        data = summary.to_json()
        words.update(_TRIGGERS.get(e, "") for e in summary.events if isinstance(e, str))
        words.update(_TRIGGERS.get(f, "") for f in data["flags"])  # type: ignore[union-attr]
        words.update(_TRIGGERS[name] for name in _SETS if data[name])
        if summary.items_holding(DISTRIBUTED_LOADER) or summary.returns_distributed_sampler:
            words.add(_TRIGGERS["returns_distributed_loader"])
        if summary.guarded_steps:
            words.add(_TRIGGERS["plain_steps"])
        if summary.float16_when:
            words.add(_TRIGGERS["returns_float16"])
        if summary.forwards or summary.evaluated_forwards:
            words.add(_TRIGGERS[EVAL])
        if summary.copies_non_blocking:
            words.add(_TRIGGERS["copies_non_blocking"])
        if summary.hook_loops:  # a loop of a base class handing the overrides its losses
            words.add(_TRIGGERS[BACKWARD])
        if summary.returns_kind or any(summary.item_kind(item) for item, _ in summary.returned_items):
            words.add(_TRIGGERS[SCHEDULER_STEP])  # a builder of a scheduler
    return " ".join(sorted(words - {""}))
