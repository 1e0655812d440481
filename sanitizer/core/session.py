"""The sanitizer session: owns every hook, turns hook calls into per-step records.

`Sanitizer` is both what `python -m sanitizer` runs the script under and the
public API (`with Sanitizer(report="run.json") as s: train()`). Every hook handle
and patched function is held by one ExitStack and restored in `close()`.
"""
from __future__ import annotations

import functools
import math
import os
import sys
import time
import weakref
from collections import Counter, deque
from contextlib import ExitStack
from itertools import islice
from typing import Any, Iterable, TextIO

import torch
from torch import nn
from torch.optim import optimizer as optimizer_globals

from sanitizer.core import hooks, locations, loss_calls
from sanitizer.core.backward_steps import (
    HeldStep,
    StepSource,
    absorb,
    changed,
    gradient_state,
    value_samples,
    in_backward,
    storage_freed,
    trained_leaves,
)
from sanitizer.core.buffers import BufferWatch
from sanitizer.core.catalogue import chosen_kinds
from sanitizer.core.children import Children
from sanitizer.core.draws import Draws
from sanitizer.core.clearing import GradientClearing, kept_gradient
from sanitizer.core.cuts import cuts_of
from sanitizer.core.ending import (cut_graph, cut_graph_advice, ending_of, exited_at, freed_graph_advice, lost_peer,
                                   terminated_at)
from sanitizer.core.events import Event, SanitizerHalt
from sanitizer.core.loss_calls import LossCall
from sanitizer.core.manual import ManualUpdate
from sanitizer.core.masters import MasterCopies
from sanitizer.core.memory import MemoryMeter
from sanitizer.core.naming import ModelIndex, class_name, params_of, script_variable, unwrap_compiled
from sanitizer.core.probe import (
    INPUT_SLOT,
    Gather,
    MAX_LOSS_TERMS,
    ComputedLoss,
    LossTerm,
    StepProbe,
    StepRecord,
    UpdatedParams,
    inexact,
    largest_magnitudes,
    norms_from_squares,
    squared_norms,
)
from sanitizer.core.script_lint import ScriptLint, entry_file
from sanitizer.core.sink import Sink
from sanitizer.core.sources import DataSources, kept_for_validation
from sanitizer.core.step_calls import StepCall, crash_after_steps, step_call
from sanitizer.core.tracing import ForwardTracer
from sanitizer.core.underflow import flush_census
from sanitizer.detectors import Detector, build_detectors
from sanitizer.distributed.ranks import group_place
from sanitizer.report import json_report
from sanitizer.report.summary_text import summary_lines

MAX_EVENTS_PER_KIND = 20
# Libraries of reinforcement-learning environments: a loss trained on their returns
# (TD error, policy gradient) moves with the returns, not with the fit.
RL_ENVIRONMENTS = ("gymnasium", "gym", "dm_env", "envpool", "pettingzoo")
RL_NOT_JUDGED = ("follow the returns, not the fit, so loss and gradient spikes, divergence, vanishing "
                 "gradients and over- or underfitting were not judged")
UNDERFLOW_EVERY = 5  # fp16 underflow census on steps 1, 6, 11, ...
MAX_SYNCED_COPIES = 16  # models the trained weights were copied into, followed to tell a target network
MAX_SYNCED_MODULES = 4096  # modules of each followed
RECENT_SAMPLES = 16  # values of sample() kept (weakly) to tell whether a log_prob() is of one
MAX_DETACH_SITES = 64  # lines that detached a tensor requiring grad, kept to explain a cut graph
MAX_NONFINITE_WRITES = 64  # parameters the script wrote a NaN/Inf into by hand, remembered
MAX_DATA_LEAVES = 256  # leaf tensors used as data followed at once (a new input each step dies with it)
PROBE_PASSES = 2  # backward passes counted as steps, at most, before a first optimizer step renumbers them
MAX_EVAL_MAGNITUDES = 256  # per-sample loss vectors of one step's evaluation kept for the NaN check
_set_grad_enabled = torch._C._set_grad_enabled  # torch.no_grad() without its Python layers


class Sanitizer:
    """Watches a training run in this process and writes a report when closed."""

    def __init__(self, report: str | os.PathLike[str] | None = "sanitizer-report.json",
                 checks: Iterable[str] | None = None, halt_on: Iterable[str] = (),
                 strict: bool = False, script: str | None = None,
                 argv: list[str] | None = None, stream: TextIO | None = None, lint: bool = True,
                 launched_in: str | None = None) -> None:
        """`launched_in`: the directory the run started in, which relative paths are
        taken from (the current one when None)."""
        self.enabled_kinds, self.halt_on = chosen_kinds(checks, halt_on)
        self.launch_directory = launched_in if launched_in is not None else os.getcwd()
        self.strict = strict
        self.script = script
        self.argv = list(argv) if argv is not None else list(sys.argv)
        self.stream = stream if stream is not None else sys.stderr
        self.rank, self.world_size = _distributed_env()
        self._placed_by_group = False  # rank and world size taken from the script's process group
        self.report_path = report_path_for(report, self.rank) if report is not None else None
        # where it is written: a relative path is taken from where the run started, not
        # from wherever the script has changed directory to by its end (Hydra's outputs/)
        self.report_file = (os.path.join(self.launch_directory, self.report_path)
                            if self.report_path is not None else None)
        self.detectors: list[Detector] = build_detectors(self.enabled_kinds)
        self.events: list[Event] = []
        self.counts: Counter[str] = Counter()
        self.notes: list[str] = []
        self.step = 1  # the step being accumulated; `steps` have completed
        self.steps = 0
        self.skipped_steps = 0
        self.device: str | None = None
        self.fp16 = False
        self._reinforcement_learning: str | None = None  # why the run is, once known (see the property)
        # the latest values torch.distributions' sample() returned, until a log_prob() of one
        # is seen: an action's, not a mixing weight's (mixup's Beta(a, a).sample())
        self._samples: deque[weakref.ref[torch.Tensor]] = deque(maxlen=RECENT_SAMPLES)
        self._log_prob_of_sample = False
        self.draws = Draws()  # actions drawn with torch.multinomial (REINFORCE by hand)
        self._target_network = False  # the trained model was copied into another one while training
        # models the trained weights were copied into while training: (the model, the last
        # step a forward of it ran in); one run in two steps in a row is a target network.
        # Keyed by each of its modules: it may run as a child of another module (an agent
        # computing its TD loss), compiled, or through `copy.forward(x)` (its layers run)
        self._synced_copies: dict[int, tuple[weakref.ref[nn.Module], int | None]] = {}
        # id of each module of a copy: (that module, the copy's id)
        self._synced_modules: dict[int, tuple[weakref.ref[nn.Module], int]] = {}
        # each optimizer's number (see `_optimizer_number`), and how many were numbered
        self._optimizer_numbers: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._optimizers_numbered = 0
        self._log_prob_of_constant = False  # a log_prob() autograd differentiates, of a value it does not
        self._log_prob_without_grad: str | None = None  # where a log_prob() first ran with gradients off
        # leaf tensors that require grad used as data, by id: given to a model's outermost call
        # (a probe image whose saliency is followed) or differentiated against with
        # `torch.autograd.grad` (a PINN's collocation points); no weights left untrained
        self._data_leaves: dict[int, weakref.ref[torch.Tensor]] = {}
        # the lines of the script that detached a tensor requiring grad: which `.detach()` in
        # what a loss is computed from ran, when its backward() finds no graph (see core/cuts.py);
        # kept as (file, line), formatted only then: a detach in a loop costs a set lookup (a
        # code object would hash all its constants: a long script's top level, every time)
        self._detach_sites: set[tuple[str, int | None]] = set()
        # parameters the script itself wrote a non-finite value into (`w[0, 0] = nan`,
        # `w.fill_(inf)`): id -> (the parameter, its version after the write, the line)
        self._nonfinite_writes: dict[int, tuple[weakref.ref[torch.Tensor], int, str, int]] = {}
        # the parameters as each optimizer's `step()` since the last read left them, with
        # their squared norms queued on the device: read in the next step's single read
        self._updated: list[tuple[UpdatedParams, list[torch.Tensor]]] = []
        self.static_loss_scale: float | None = None  # the last `(loss * S).backward()`'s S, S >= 2
        self.exit_code: int | None = None
        self.ending: dict[str, Any] | None = None  # how the script ended, once known
        self.child: str | None = None  # the number of the child process this session watches
        self.children = Children()  # the watched child processes this session started
        self.lint_findings: list[dict[str, Any]] | None = None  # the script's lint, once the run ended
        self._lint = lint
        self._script_lint: ScriptLint | None = None
        self.index = ModelIndex()
        self.masters = MasterCopies()  # an optimizer's copies of the model's parameters (fp32 master weights)
        self.series = json_report.Series()
        self.probe = StepProbe()
        self.sink = Sink(self)  # all that detectors see of the session
        self._stack = ExitStack()
        self._active = False
        self._closed = False
        self._started = time.perf_counter()
        self._alerted: set[str] = set()
        self._index_step = 0
        self._optimizers: weakref.WeakSet[torch.optim.Optimizer] = weakref.WeakSet()
        self._new_optimizers = 0  # optimizers that ended a step, counted as each first does
        self._last_params: list[torch.Tensor] = []
        self._updated_at: dict[int, int] = {}  # id(optimizer) -> the step of its latest update
        # the parameters without a gradient as the step() about to run began, and their largest
        # magnitudes, queued (see UpdatedParams)
        self._before_update: tuple[list[torch.Tensor], list[torch.Tensor]] | None = None
        self._scaler: weakref.ref[Any] | None = None
        self._scaled: tuple[weakref.ref[torch.Tensor], torch.Tensor, LossCall | None] | None = None
        self._train_loss: tuple[weakref.ref[torch.Tensor], LossCall] | None = None  # the latest, and its call
        # the training losses functional losses returned since the last backward pass, the latest
        # MAX_LOSS_TERMS, and how many there were: a loss computed from them may be all that
        # backward runs on (see ComputedLoss)
        self._loss_terms: deque[LossTerm] = deque(maxlen=MAX_LOSS_TERMS)
        self._loss_terms_seen = 0
        self._stepped = False
        # backward passes seen in the run, and since the last step closed: optimizers that
        # step one after the other on one backward pass (an encoder's and a decoder's) end
        # one step, not one each
        self._backward_seen = False
        self._backward_since_close = False
        self._stepping: weakref.ref[Any] | None = None  # the optimizer whose step() runs now
        self._nested_steps = 0  # step() calls running inside it (a wrapper's inner optimizer's)
        self._step_call: StepCall | None = None  # the script's code that called the latest step
        self._backwards_since_step = 0  # backward passes since an optimizer last stepped
        self._most_backwards_per_step = 0  # gradient accumulation, LBFGS's closure: several per step
        self.step_source = StepSource.UNDECIDED
        self._held: HeldStep | None = None
        # the first values of what the first backward pass trained, kept while passes are steps:
        # unchanged at a first optimizer step, no pass was an update by hand
        self._first_values: list[tuple[weakref.ref[torch.Tensor], torch.Tensor]] = []
        self._leaves: list[torch.Tensor] = []  # what backward passes train, while no optimizer is seen
        self._stand_in: ManualUpdate | None = None  # the same, as an optimizer, once steps are backward passes
        self._in_backward_optimizer: ManualUpdate | None = None  # optimizers stepped inside backward, as one
        self._manual_update: ManualUpdate | None = None  # what mark_step() was given
        self._loss_site: str | None = None  # where the last training loss was computed
        self._data_wait = 0.0
        self._last_close: float | None = None
        self._memory = MemoryMeter()
        self._clearing = GradientClearing() if "missing_zero_grad" in self.enabled_kinds else None
        trace = bool(self.enabled_kinds & {"nonfinite_activation", "nonfinite_input",
                                           "nonfinite_loss", "nonfinite_grad"})
        self.sources = DataSources()
        self.tracer = ForwardTracer(self, trace, _overriding(self.detectors, "on_forward"))
        self._buffers = BufferWatch() if "nonfinite_buffer" in self.enabled_kinds else None
        self._backward_listeners = _overriding(self.detectors, "on_backward")
        self._scheduler_listeners = _overriding(self.detectors, "on_scheduler_step")
        self._clip_listeners = _overriding(self.detectors, "on_clip")
        self._scaled_since_step = False  # a GradScaler scaled a loss since its last step()

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> Sanitizer:
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self.exit_code is None:
            self.exit_code = status_of(exc)
        if self.ending is None:
            self.record_ending(exc)
        self.close()

    def start(self) -> None:
        """Install every hook; the run is watched from here until `close()`."""
        if self._active or self._closed:
            raise RuntimeError("this Sanitizer has already watched a run (a notebook cell run "
                               "twice?): create a new Sanitizer for each run")
        locations.skip_package(torch)
        locations.set_launch_directory(self.launch_directory)
        self._started = time.perf_counter()
        self._active = True
        self._stack.callback(self._deactivate)
        self._stack.callback(self._memory.close)
        hooks.install(self, self._stack)
        self._guard("preparing the lint", self._prepare_lint)

    def close(self, exit_code: int | None = None) -> dict[str, Any]:
        """Flush the last step, remove every hook, write the report; returns it."""
        if exit_code is not None:
            self.exit_code = exit_code
        if self._closed:
            return self.report()
        self._closed = True  # from here on nothing halts: the run is over
        self._take_group_place()
        try:
            self._guard("flushing the last step", self._flush)
        finally:
            self._stack.close()
        judge_levels = not self.reinforcement_learning
        for detector in self.detectors:
            if judge_levels or not detector.judges_loss_level:
                self._guard(f"{detector.name}.on_end", detector.on_end, self.sink)
        self._finish_lint()
        self._add_usage_notes()
        data = self.report()
        if self.report_file is not None:
            self._guard("writing the report", self._write_report, data)
        return data

    def _write_report(self, data: dict[str, Any]) -> None:
        try:
            json_report.write_atomic(self.report_file, data)
        except OSError as exc:  # a disk that filled up, a folder removed during the run
            self.alert(f"error: could not write the report to {self.report_path}: {exc.strerror or exc}")
            self.report_path = None  # the summary does not point at it

    def abandon(self) -> None:
        """In a forked child: take out this copy of the parent's session, writing nothing."""
        if not self._closed:
            self._closed = True
            self._stack.close()

    def record_ending(self, exc: BaseException | None) -> None:
        """Remember how the script ended: returned, or the exception that ended it."""
        halt = exc.event.one_line() if isinstance(exc, SanitizerHalt) else None
        self.ending = ending_of(exc, halt)
        if isinstance(exc, SanitizerHalt):  # the event it stopped at, for the diagnosis to point at
            self.ending.update(kind=exc.event.kind, step=exc.event.step)
        self._take_group_place()
        if self.world_size > 1 and lost_peer(self.ending):  # another rank's ending, not a cause here
            self.ending["peer_lost"] = True
        if self.ending["how"] == "exception":
            after = self._after_steps(exc)
            if after is not None:  # generation, a final evaluation: no step of its own
                self.ending.update(step=self.steps, after_step=True)
                if after == "last":
                    self.ending["last_step"] = True
            elif self.tracer.saw_forward or self.steps:  # else it ended while setting up: in no step
                self.ending["step"] = self.step  # the step it happened in
            cuts = self._guard("reading the cut graph", cuts_of, exc.__traceback__) \
                if exc is not None and cut_graph(self.ending) else None
            if cuts is not None:  # the `.detach()` calls in what the loss is computed from that ran
                ran = {locations.format_site(filename, line) for filename, line in self._detach_sites}
                cuts.detaches = [site for site in cuts.detaches if site in ran]
            advice = (cut_graph_advice(self.ending, self._log_prob_without_grad, cuts)
                      or freed_graph_advice(self.ending, self.steps))
            if advice is not None:  # backward() of a loss cut off from the model, or through a freed graph
                self.ending["advice"] = advice

    def _after_steps(self, exc: BaseException | None) -> str | None:
        """Whether an exception came after the steps so far, in code that began no step,
        on the evidence of where the script calls its step (`step_calls.crash_after_steps`):
        `"last"` past every loop around that call, `"after"` past its innermost; else None."""
        if not self.steps or self._step_began() or self._step_call is None or exc is None:
            return None
        return self._guard("placing the crash", crash_after_steps, self._step_call, exc.__traceback__)

    def _step_began(self) -> bool:
        """Whether the step being accumulated has begun: a backward pass, or a forward of a
        model in training mode with gradients, since the last step closed. Code after the
        loop (sampling text under torch.no_grad, a final evaluation) begins none."""
        probe = self.probe
        return bool(probe.graph_roots) or (probe.model_site is not None and self.tracer.training_mode is not False)

    def record_os_exit(self, code: int, frame: Any) -> None:
        """The script called `os._exit(code)` while `frame` ran."""
        self.ending = exited_at(code, frame)

    def record_termination(self, frame: Any) -> None:
        """The run was killed by SIGTERM while `frame` ran."""
        self.ending = terminated_at(frame)

    def report(self) -> dict[str, Any]:
        return json_report.build(self, time.perf_counter() - self._started)

    def print_summary(self) -> None:
        """The diagnosis, as `show` prints it, then where the report went."""
        lines = summary_lines(self.report())
        lines[0] = lines[0].removeprefix("sanitizer: ")  # alert() adds the prefix
        if self.report_path is not None:
            lines.append(f"report: {self.report_path}")
        for line in lines:
            self.alert(line)

    @property
    def active(self) -> bool:
        """True from `start()` until `close()` removes the hooks."""
        return self._active

    @property
    def error_count(self) -> int:
        return sum(1 for event in self.events if event.severity == "error")

    def _deactivate(self) -> None:
        self._active = False

    def _prepare_lint(self) -> None:
        """Find the file to lint now (before the script changes directory); the lint
        itself starts after the first step (see `script_lint`)."""
        path = entry_file(self.script) if self._lint else None
        if path is not None:
            self._script_lint = ScriptLint(path)

    def _finish_lint(self) -> None:
        if self._script_lint is None:
            return
        self.lint_findings = self._script_lint.result()
        if self._script_lint.problem:
            self.notes.append(self._script_lint.problem)

    # -------------------------------------------------------------------- events
    def emit(self, kind: str, step: int | None, message: str, **fields: Any) -> Event | None:
        """Record an event (if its check is on), alert once per kind, halt if asked."""
        if kind not in self.enabled_kinds and kind != "sanitizer_error":
            return None
        self._take_group_place()
        extra = fields.pop("extra", {})
        if self.child is not None:  # ordered against its siblings' by the parent (see core.children)
            extra.setdefault("time", round(time.time(), 3))
        event = Event(kind, step, message, extra=extra, **fields)
        self.counts[kind] += 1
        if self.counts[kind] <= MAX_EVENTS_PER_KIND:
            self.events.append(event)
        if kind not in self._alerted:
            self._alerted.add(kind)
            self.alert(event.one_line())
        if kind in self.halt_on and not self._closed:
            raise SanitizerHalt(event)
        return event

    def alert(self, line: str) -> None:
        places = ([f"rank {self.rank}"] if self.world_size > 1 else []) + ([f"child {self.child}"] if self.child else [])
        tag = f"[{', '.join(places)}]" if places else ""
        try:
            # one write per line, newline included: ranks and children share stderr, and an
            # unbuffered stream (torchrun, `python -u`) passes each write on as it comes
            self.stream.write(f"sanitizer{tag}: {line}\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not break the run
            pass

    def _take_group_place(self) -> None:
        """Take rank and world size from the script's process group once it exists.

        torchrun's `RANK`/`WORLD_SIZE` are read at the start; a script that starts its
        own workers (`mp.spawn`) passes them to `init_process_group` instead, and only
        the group knows them, until the script destroys it: so they are taken at the
        first step or event after it appears. A run whose rank the environment did not
        name then writes `.rank<r>` reports like torchrun's ranks (a watched child keeps
        its `.child<n>` name): one file per rank, never one overwritten by all."""
        if self._placed_by_group:
            return
        place = group_place()
        if place is None:
            return
        self._placed_by_group = True
        unnamed = self.rank is None
        self.rank, self.world_size = place
        if unnamed and self.child is None and self.world_size > 1 and self.report_path is not None:
            self.report_path = report_path_for(self.report_path, self.rank)
            self.report_file = report_path_for(self.report_file, self.rank)

    def internal_error(self, where: str, exc: BaseException, retired: bool = False) -> None:
        message = f"internal error in {where}: {type(exc).__name__}: {exc}"
        if retired:
            message += " (its checks stop here)"
        if self.counts["sanitizer_error"] < MAX_EVENTS_PER_KIND:
            self.emit("sanitizer_error", self.step, message)
        else:
            self.counts["sanitizer_error"] += 1

    def _retire(self, detector: Detector) -> None:
        """A detector whose step check failed is called no more, at any hook: its state may
        be half updated, and failing again each step would cost every step."""
        for listeners in (self.detectors, self._backward_listeners, self._scheduler_listeners,
                          self._clip_listeners):
            if detector in listeners:
                listeners.remove(detector)
        self.tracer.drop_listener(detector)

    def _guard(self, where: str, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except Exception as exc:  # the sanitizer's own failures never reach the script
            self.internal_error(where, exc)
            return None

    # ---------------------------------------------------------------- naming
    def module_of_slot(self, slot: int) -> nn.Module | None:
        return self.tracer.module_of_slot(slot)

    def module_name(self, module: nn.Module | None) -> str | None:
        if module is None:
            return None
        module = unwrap_compiled(module)
        name = self.index.module_name(module)
        if name is None and self._refresh_index():
            name = self.index.module_name(module)
        if name == "" and isinstance(module, (nn.parallel.DistributedDataParallel, nn.DataParallel)):
            # the wrapper's output is its model's (`torch.compile(DDP(model))` is seen whole):
            # named as that model is among the wrapper's modules (`module`, as in `module.0.weight`)
            name = self.index.module_name(module.module) or name
        return name or class_name(module)  # the model itself ("" in named_modules) by its class

    def slot_name(self, slot: int) -> str | None:
        return "<input>" if slot == INPUT_SLOT else self.module_name(self.module_of_slot(slot))

    def slot_is_own(self, slot: int) -> bool:
        return self.tracer.slot_is_own(slot)

    def param_name(self, param: torch.Tensor) -> str | None:
        name = self.index.param_name(param)
        if name is None and self._refresh_index():
            name = self.index.param_name(param)
        if name is None:  # an optimizer's master copy is named as the model's parameter it stands for
            model_param = self._model_param_of_copy(param)
            name = self.index.param_name(model_param) if model_param is not None else None
        return name if name is not None else script_variable(param)

    def _model_param_of_copy(self, param: torch.Tensor) -> torch.Tensor | None:
        model_param = self.masters.model_of(param)
        if model_param is None and any(p is param for p in self._all_optimizer_params()):
            self.find_master_copies()
            model_param = self.masters.model_of(param)
        return model_param

    def find_master_copies(self) -> None:
        """Pair the model's trainable parameters that no optimizer holds with the
        optimizers' tensors outside the model (see core/masters.py)."""
        named = self.index.named_parameters()
        held = self.optimizer_param_ids()
        lacking = [p for _, p in named if p.requires_grad and id(p) not in held]
        if lacking:
            self.masters.find(lacking, self._all_optimizer_params(), {id(p) for _, p in named})

    def param_module_name(self, param: torch.Tensor) -> str | None:
        owner = self.index.param_owner(param)
        if owner is None:
            model_param = self._model_param_of_copy(param)
            owner = self.index.param_owner(model_param) if model_param is not None else None
        name = self.index.module_name(owner) if owner is not None else None
        return type(owner).__name__ if name == "" else name  # the model itself, named by its class

    def _refresh_index(self) -> bool:
        """Rescan live models, at most once per step."""
        if self._index_step == self.step:
            return False
        self._index_step = self.step
        self.index.forget()
        self.index.refresh(self._all_optimizer_params(), self.tracer.traced_modules())
        return True

    def optimizer_param_ids(self) -> set[int]:
        """ids of the parameters of the optimizers alive when the model was indexed,
        and of those that stepped since (built later, for a second stage)."""
        return self.index.optimizer_params() | {id(p) for p in self._all_optimizer_params()}

    def _all_optimizer_params(self) -> list[torch.Tensor]:
        return [p for opt in list(self._optimizers) for p in params_of(opt)]

    # ------------------------------------------------------- loss and backward
    def on_backward(self, tensors: Any) -> None:
        self._backward_seen = self._backward_since_close = True
        self._backwards_since_step += 1
        if self._clearing is not None and not in_backward():
            self._clearing.before_backward()
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors or ())
        if not self._log_prob_of_sample and self.draws.log_prob_of_draw(roots):
            # REINFORCE by hand: a log-softmax taken at the indices torch.multinomial drew
            self._log_prob_of_sample = self._log_prob_of_constant = True
        if self.step_source is not StepSource.OPTIMIZER:
            self._settle_held(ended_by_backward=True)
            if not self._leaves:
                self._leaves = trained_leaves(root.grad_fn for root in roots if isinstance(root, torch.Tensor))
        probe = self.probe
        for root in roots:
            if not isinstance(root, torch.Tensor) or root.grad_fn is None:
                continue
            probe.graph_roots.append(root.grad_fn)
            if root.dim() != 0 or not root.is_floating_point():
                continue
            loss, call = root, self._train_call(root)
            scaled = self._scaled
            if scaled is not None and scaled[0]() is root:
                loss, call = scaled[1], scaled[2]
                self._scaled = None
            elif call is None:  # `(loss * 1024).backward()`: a static loss scale by hand
                loss, call = self._unscaled_by_hand(root) or (loss, call)
            probe.losses.append(loss.detach())
            probe.loss_kinds.append(call.kind if call is not None else None)
            probe.loss_calls.append(call)
            probe.computed_losses.append(self._computed_loss() if call is None else None)
            probe.model_in_eval_mode = self.tracer.model_in_eval_mode()  # the last backward before the step decides
            probe.eval_mode_site = self.tracer.eval_mode_site()
            probe.loss_sites.append(self._loss_site or locations.user_site())
            self._loss_site = None
            self._loss_terms.clear()
            self._loss_terms_seen = 0
            for detector in self._backward_listeners:
                detector.on_backward(loss, self.sink)

    def after_backward(self, tensors: Any) -> None:
        """A backward pass ended: a step in a loop without an optimizer (see backward_steps),
        or one whose optimizers stepped inside it."""
        if self._clearing is not None and not in_backward():
            self._clearing.after_backward()
        if self.probe.stepped_params:
            self._close_step(self._optimizer_in_backward(self.probe.stepped_params), skipped=False)
            self._advance()
            return
        if self.step_source is StepSource.OPTIMIZER or not self.probe.graph_roots or not self._leaves:
            return
        if any(storage_freed(leaf) for leaf in self._leaves):
            return  # a framework's transient copies (FSDP2): its optimizer steps the real parameters
        if self.step_source is StepSource.BACKWARD:
            self._close_step(self._stand_in, skipped=False)
            self._advance()
            return
        probe, data_wait, last_close = self.probe, self._data_wait, self._last_close
        self._last_params = self._leaves
        record = self._record_step(None, skipped=False)
        self._held = HeldStep(record, probe, data_wait, last_close, gradient_state(record.params),
                              value_samples(record.params))

    def _settle_held(self, ended_by_backward: bool) -> None:
        """Make the held backward pass a step, or give its probe back to the current step."""
        held, self._held = self._held, None
        if held is None:
            return
        if ended_by_backward and not held.gradients_moved_on():  # accumulation: the same step goes on
            self._give_back(held)
            return
        self.step_source = StepSource.BACKWARD
        self._first_values = held.values
        # from here the trained tensors stand for what an optimizer would hold
        self._stand_in = ManualUpdate(self._leaves)
        self._optimizers.add(self._stand_in)
        self._index_step = 0
        self._refresh_index()
        held.record.optimizer_id = self._optimizer_number(self._stand_in)  # the same "optimizer" as the steps after it
        self._dispatch(held.record)
        self._advance()

    def _optimizer_seen(self) -> None:
        """Steps come from the optimizer (or mark_step): a held backward pass was none."""
        if self.step_source is StepSource.OPTIMIZER:
            return
        if self.step_source is StepSource.BACKWARD:
            self._renumber_probe_passes()
        self.step_source = StepSource.OPTIMIZER
        self._leaves = []
        held, self._held = self._held, None
        if held is not None:
            self._give_back(held)
            self._last_params = []
            self._index_step = 0  # it was built before the optimizer's parameters were known

    def _renumber_probe_passes(self) -> None:
        """The first optimizer step comes after backward passes that were counted as
        steps: they were passes of that step, and the step is step 1, when they were at
        most two (a pass that only measures the gradient, then `zero_grad()`; SAM's first
        pass, whose move is undone), or when the trained tensors are still as the first
        pass found them (one pass per sample, cleared in between: DP-SGD by hand). A loop
        that updated by hand before it built an optimizer keeps its numbers."""
        first_values, self._first_values = self._first_values, []
        untouched = bool(first_values) and not any(changed(ref(), before) for ref, before in first_values)
        if self.steps > PROBE_PASSES and not untouched:
            return
        self._optimizers.discard(self._stand_in)
        for event in self.events:
            if event.step is not None:
                event.step = 1
        self.series = json_report.Series()
        self.step, self.steps = 1, 0

    def _give_back(self, held: HeldStep) -> None:
        self.probe = absorb(held.probe, self.probe)
        self._data_wait += held.data_wait
        self._last_close = held.last_close

    def on_scale(self, scaler: Any, outputs: Any, scaled: Any) -> None:
        if not scaler.is_enabled():
            return
        self.fp16 = True
        self._scaler = weakref.ref(scaler)
        self._scaled_since_step = True
        if isinstance(outputs, torch.Tensor) and isinstance(scaled, torch.Tensor):
            self._scaled = (weakref.ref(scaled), outputs.detach(), self._train_call(outputs))

    @property
    def policy_gradient(self) -> bool:
        """The loss is a policy-gradient (score-function) objective: log-probabilities of
        actions the run sampled, weighted by returns. Its level says nothing about fit."""
        return self._log_prob_of_sample and self._log_prob_of_constant

    def on_multinomial(self, probabilities: Any, result: Any) -> None:
        if not self._log_prob_of_sample and torch.is_grad_enabled():
            self.draws.drawn(probabilities, result)

    def on_detach(self) -> None:
        """The script's code detached a tensor that requires grad, at the innermost
        frame outside the sanitizer (see `_detach_sites`)."""
        if len(self._detach_sites) >= MAX_DETACH_SITES:
            return
        frame = sys._getframe(1)
        while frame is not None and locations.is_own(frame):
            frame = frame.f_back
        if frame is not None and locations.is_user_file(frame.f_code.co_filename):
            self._detach_sites.add((frame.f_code.co_filename, locations.frame_line(frame)))

    def on_nonfinite_write(self, param: torch.Tensor) -> None:
        """The script wrote a NaN or Inf into `param` by hand, at its innermost user line."""
        site = locations.user_site()
        if site is None:
            return
        if len(self._nonfinite_writes) >= MAX_NONFINITE_WRITES:
            self._nonfinite_writes = {key: entry for key, entry in self._nonfinite_writes.items()
                                      if entry[0]() is not None}
            if len(self._nonfinite_writes) >= MAX_NONFINITE_WRITES:
                return
        self._nonfinite_writes[id(param)] = (weakref.ref(param), param._version, site, self.step)

    def nonfinite_write(self, param: torch.Tensor) -> str | None:
        """The line where the script wrote a NaN or Inf into `param` by hand, when nothing
        has written `param` since (its version unchanged): what it holds now is what that
        line left."""
        entry = self._nonfinite_writes.get(id(param))
        if entry is None or entry[0]() is not param or param._version != entry[1]:
            return None
        return entry[2]

    def nonfinite_write_in(self, param: torch.Tensor, step: int) -> str | None:
        """The line where the script wrote a NaN or Inf into `param` by hand during `step`,
        whatever wrote it since (an optimizer's update that kept it)."""
        entry = self._nonfinite_writes.get(id(param))
        return entry[2] if entry is not None and entry[0]() is param and entry[3] == step else None

    def on_data_leaves(self, values: Any) -> None:
        """Tensors used as data (see `_data_leaves`): those among `values` (a tensor, or a
        tuple or list of them) that are leaves requiring grad and not `nn.Parameter`s."""
        for value in values if isinstance(values, (tuple, list)) else (values,):
            if (isinstance(value, torch.Tensor) and value.requires_grad and value.is_leaf
                    and not isinstance(value, nn.Parameter) and not self.used_as_data(value)):
                if len(self._data_leaves) >= MAX_DATA_LEAVES:
                    self._data_leaves = {key: ref for key, ref in self._data_leaves.items() if ref() is not None}
                    if len(self._data_leaves) >= MAX_DATA_LEAVES:
                        return
                self._data_leaves[id(value)] = weakref.ref(value)

    def used_as_data(self, tensor: torch.Tensor) -> bool:
        """Whether `tensor` was given to a model or to `torch.autograd.grad` as data."""
        ref = self._data_leaves.get(id(tensor))
        return ref is not None and ref() is tensor

    def on_sample(self, value: Any) -> None:
        if not self._log_prob_of_sample and isinstance(value, torch.Tensor):
            self._samples.append(weakref.ref(value))

    def on_log_prob(self, value: Any, log_prob: Any) -> None:
        """A log-probability of a value a `sample()` returned, or a view of one: an action's
        (PPO takes it while collecting, without gradients, and differentiates the
        log-probabilities of a buffer of the actions later). And a log-probability that
        autograd differentiates, of a value it does not: an action's (a flow's likelihood
        of data it transformed differentiates the value too)."""
        if (self._log_prob_without_grad is None and isinstance(log_prob, torch.Tensor)
                and not log_prob.requires_grad and not torch.is_grad_enabled()):
            self._log_prob_without_grad = locations.user_site()  # named if a backward() then finds no graph
        if not self._log_prob_of_sample and isinstance(value, torch.Tensor):
            sampled = [drawn for ref in self._samples if (drawn := ref()) is not None]
            if any(value is drawn or value._base is drawn for drawn in sampled):
                self._log_prob_of_sample = True
                self._samples.clear()
        if self._log_prob_of_constant:
            return  # seen: nothing more to learn from the calls
        if (isinstance(log_prob, torch.Tensor) and log_prob.requires_grad and torch.is_grad_enabled()
                and not (isinstance(value, torch.Tensor) and value.requires_grad)):
            self._log_prob_of_constant = True

    @property
    def reinforcement_learning(self) -> bool:
        """A policy-gradient loss, or an RL environment library loaded (asked until one is): then
        the checks that judge the loss's level by its history do not run, and a note says why."""
        if self._reinforcement_learning is None:
            loaded = next((name for name in RL_ENVIRONMENTS if name in sys.modules), None)
            if self.policy_gradient:
                self._reinforcement_learning = ("the loss is a policy-gradient objective (log-probabilities of "
                                                "sampled actions that autograd differentiates): its level")
            elif self._target_network:
                self._reinforcement_learning = ("the script copies the trained model into another one while it "
                                                "trains (a target network, as DQN's), so the loss is a temporal-"
                                                "difference error: its level")
            elif loaded is not None:
                self._reinforcement_learning = (f"the script trains with an RL environment ({loaded} is "
                                                "loaded): the loss's level")
            if self._reinforcement_learning is not None:
                self.notes.append(f"{self._reinforcement_learning} and its gradient's size {RL_NOT_JUDGED}")
        return self._reinforcement_learning is not None

    def on_load_state_dict(self, module: Any, state_dict: Any) -> None:
        """`target.load_state_dict(q.state_dict())` after training began: a model the
        optimizer steps copied into another, a DQN's target network (synced now and then)
        once it is run in two steps in a row (see `synced_copy_called`); a copy for
        evaluation, run once an epoch, is not."""
        if not self._following_copies() or not isinstance(state_dict, dict) or not isinstance(module, nn.Module):
            return
        trained = self._trained_storages()
        own = {p.data_ptr() for p in module.parameters()}
        if any(isinstance(value, torch.Tensor) and value.numel()
               and value.data_ptr() in trained - own for value in state_dict.values()):
            self._follow_copy(module)

    def on_model_copied(self, source: Any, copy: Any) -> None:
        """`target = copy.deepcopy(q)` after training began: the trained model copied
        into a new one (a DQN's target network rebuilt at each sync), followed as a
        model loaded with its weights is."""
        if (not self._following_copies() or not isinstance(source, nn.Module)
                or not isinstance(copy, nn.Module) or copy is source):
            return
        trained = self._trained_storages()
        if any(p.numel() and p.data_ptr() in trained for p in source.parameters()):
            self._follow_copy(copy)

    def _following_copies(self) -> bool:
        """Whether a copy of the trained weights made now would be followed."""
        return not self._target_network and bool(self.steps) and len(self._synced_copies) < MAX_SYNCED_COPIES

    def _trained_storages(self) -> set[int]:
        return {p.data_ptr() for p in self._all_optimizer_params() if p.numel()}

    def _follow_copy(self, module: nn.Module) -> None:
        """Follow the forwards of `module` (see `synced_copy_called`); an entry of a freed
        model whose id it was given is replaced."""
        entry = self._synced_copies.get(id(module))
        if entry is not None and entry[0]() is module:
            return
        self._synced_copies[id(module)] = (weakref.ref(module), None)
        for inner in islice(module.modules(), MAX_SYNCED_MODULES):
            held = self._synced_modules.get(id(inner))
            if held is None or held[0]() is None:
                self._synced_modules[id(inner)] = (weakref.ref(inner), id(module))

    def _forget_copy(self, key: int, module: nn.Module) -> None:
        del self._synced_copies[key]
        for inner in islice(module.modules(), MAX_SYNCED_MODULES):
            held = self._synced_modules.get(id(inner))
            if held is not None and held[1] == key:
                del self._synced_modules[id(inner)]

    def _optimizer_number(self, optimizer: Any) -> int:
        """Which optimizer stepped, numbered in the order they first stepped: an id would
        be reused by the next fold's optimizer once the last fold's is freed, and its
        step judged against the history of another optimizer's."""
        try:
            number = self._optimizer_numbers.get(optimizer)
            if number is None:
                self._optimizers_numbered += 1
                number = self._optimizer_numbers[optimizer] = self._optimizers_numbered
            return number
        except TypeError:  # an optimizer no weak reference can point to
            return id(optimizer)

    def synced_copy_called(self, module: nn.Module) -> None:
        """A forward of a module of a model the trained weights were copied into: run in
        this step and the one before, it computes the training targets (a TD target).
        A few dict lookups per call: an evaluation copy's layers come here on every forward."""
        held = self._synced_modules.get(id(module))
        if held is None:
            return
        ref, key = held
        if ref() is not module:  # the module is gone, and another was given its id
            del self._synced_modules[id(module)]
            return
        entry = self._synced_copies.get(key)
        if entry is None or entry[1] == self.step:
            return
        copy_ref, last = entry
        copy = copy_ref()
        if copy is None:
            del self._synced_copies[key]
        elif last is not None and self.step == last + 1:
            if self._trains(copy):  # a copy fine-tuned by an optimizer of its own (one per task)
                self._forget_copy(key, copy)
                return
            self._target_network = True
            self._synced_copies.clear()
            self._synced_modules.clear()
        else:
            self._synced_copies[key] = (copy_ref, self.step)

    def _trains(self, module: nn.Module) -> bool:
        """Whether an optimizer that stepped holds a parameter of `module`."""
        held = self.optimizer_param_ids()
        return any(id(p) in held for p in module.parameters())

    def on_loss_value(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> None:
        """A functional loss returned `value`: note where and what (training) or keep it (evaluating)."""
        if not isinstance(value, torch.Tensor) or not value.is_floating_point():
            return
        training = torch.is_grad_enabled() and self.tracer.training_mode is not False
        if value.dim() != 0:
            # per-sample losses of an evaluation (`reduction="none"`, SAM's smoothed
            # cross-entropy): no level to compare, but a NaN among them is a NaN validation
            if not training and value.numel() and len(self.probe.eval_magnitudes) < MAX_EVAL_MAGNITUDES:
                if self.probe.eval_site is None:
                    self.probe.eval_site = locations.user_site()
                self.probe.eval_magnitudes.append(value.detach().abs().amax())
            return
        kind = loss_calls.kind_of(name, args, kwargs)
        if training:
            self._loss_site = locations.user_site()
            call = loss_calls.call_of(name, args, kwargs, kind)
            self._train_loss = (weakref.ref(value), call)
            self._loss_terms.append(LossTerm(value.detach(), value._version, call, self._loss_site))
            self._loss_terms_seen += 1
        elif kind is not None:
            if self.probe.eval_site is None:
                self.probe.eval_site = locations.user_site()
            self.probe.eval_losses.append((kind, loss_calls.per_element_mean(name, args, kwargs, value.detach()),
                                           self.sources.latest))

    def _unscaled_by_hand(self, root: torch.Tensor) -> tuple[torch.Tensor, LossCall] | None:
        """The loss a functional loss call returned, when `root` is it times a constant of
        at least 2 (a static loss scale, undone on the gradients before the step: apex's
        static scaling, old fairseq); its level is the one to judge and to quote. A
        constant below 2 (`loss * (1 / accumulation)`) stays as it is."""
        noted = self._train_loss
        base = noted[0]() if noted is not None else None
        if base is None or base.grad_fn is None or type(root.grad_fn).__name__ != "MulBackward0":
            return None
        try:
            (first, _), (second, _) = root.grad_fn.next_functions
            factor = root.grad_fn._saved_other
        except (AttributeError, RuntimeError, ValueError):  # another shape of Mul, or saved values freed
            return None
        # a factor on the CPU only (a Python number is kept there): reading one on an
        # accelerator would wait for its stream at every backward
        if first is not base.grad_fn or second is not None or not isinstance(factor, torch.Tensor) \
                or factor.numel() != 1 or factor.device.type != "cpu" or not bool(factor.detach().abs() >= 2):
            return None
        self.static_loss_scale = float(factor)
        return base, noted[1]

    def _computed_loss(self) -> ComputedLoss | None:
        """The functional losses noted since the last backward pass, when this one runs on a
        loss computed from them (see ComputedLoss)."""
        if not self._loss_terms:
            return None
        return ComputedLoss(tuple(self._loss_terms), self._loss_terms_seen > MAX_LOSS_TERMS,
                            locations.user_point())

    def _train_call(self, loss: torch.Tensor) -> LossCall | None:
        """The functional loss call that returned `loss` (None for a sum of losses, a scaled loss)."""
        noted = self._train_loss
        return noted[1] if noted is not None and noted[0]() is loss else None

    def on_scheduler_step(self, scheduler: Any, position: Any) -> None:
        """The script's first `step()` of an LR scheduler ran; `position` is its
        `last_epoch` before. A step that left the schedule where it stood (MADE's
        `scheduler.step(epoch)` at the start of epoch 0) skipped nothing."""
        if getattr(scheduler, "last_epoch", None) == position:
            return
        for detector in self._scheduler_listeners:
            detector.on_scheduler_step(scheduler, self.sink)

    def has_stepped(self, optimizer: Any) -> bool:
        """Whether `optimizer` ended a step of this run (a step the scaler skipped counts)."""
        return optimizer in self._optimizers

    def on_data_wait(self, seconds: float) -> None:
        self._data_wait += seconds

    # -------------------------------------------------------------- steps
    def watching_clips(self) -> bool:
        """Whether a clip now matters to a detector: a GradScaler scaled a loss since its last step."""
        return bool(self._clip_listeners) and self._scaled_since_step and self._scaler is not None

    def on_clip(self, clip: str, parameters: list[Any], threshold: Any) -> None:
        """`clip` (`clip_grad_norm_`) ran on `parameters` while a scaler has scaled a loss
        since its last step. An infinite threshold only measures the norm."""
        scaler = self._scaler() if self._scaler is not None else None
        if scaler is None or not scaler.is_enabled():
            return
        if isinstance(threshold, (int, float)) and math.isinf(threshold):
            return
        for detector in self._clip_listeners:
            detector.on_clip(clip, parameters, scaler, self.sink)

    def before_scaler_step(self, scaler: Any, optimizer: Any) -> None:
        self._stepped = False
        self._scaled_since_step = False
        if scaler.is_enabled():
            for detector in self._clip_listeners:
                detector.on_scaler_step(scaler, optimizer, self.sink)

    def after_scaler_step(self, scaler: Any, optimizer: torch.optim.Optimizer) -> None:
        if self._stepped or not scaler.is_enabled():
            return
        self._optimizer_seen()
        self._scaler = weakref.ref(scaler)
        if not self._close_step(optimizer, skipped=True):
            self.skipped_steps += 1
        self._stepped_after_backwards()  # a step the scaler skipped is a step: training did not stall
        self._advance()

    def before_step(self, optimizer: torch.optim.Optimizer) -> None:
        outer = self._stepping() if self._stepping is not None else None
        if outer is not None and _step_frames(outer) > (outer is optimizer):
            # the optimizer a wrapper steps (Lookahead, ZeroRedundancyOptimizer), or a class's
            # `step()` calling its base class's, hooked too: one step
            self._nested_steps += 1
            return
        self._stepping = weakref.ref(optimizer)
        self._stepped = True
        self._nested_steps = 0
        self._step_call = step_call()
        if outer is not None and not in_backward():  # the step before raised, and the script went on
            if outer is optimizer and not self._backward_since_close:
                return  # retried at once: the same step
            self._advance()  # it counts, as any other step
        self._optimizer_seen()
        if in_backward():
            self._step_in_backward(optimizer)
            return
        found_inf = getattr(optimizer, "found_inf", None)  # GradScaler with a fused optimizer
        if self._clearing is not None:
            self.probe.kept = self._clearing.at_step(optimizer)
        self._close_step(optimizer, skipped=False, found_inf=found_inf)

    def after_step(self, optimizer: torch.optim.Optimizer) -> None:
        if self._nested_steps:
            self._nested_steps -= 1
            return  # the inner step of a wrapper (or a base class): the outer one ends the step
        if self._stepping is not None:
            if self._stepping() is not optimizer:
                return
            self._stepping = None
        if not in_backward():
            self._stepped_after_backwards()
            self._updated_at[id(optimizer)] = self.step
            self._queue_updated(optimizer)
            if self._clearing is not None:
                self._clearing.after_step(optimizer)
            self._advance()

    def _queue_updated(self, optimizer: torch.optim.Optimizer) -> None:
        """Measure the parameters `optimizer`'s step just updated, without reading them
        (no wait for the device): one fused reduction per parameter tensor, read with
        the next step's values. A NaN the update wrote is then the update's for sure,
        and one that appears later was written by code outside the optimizer."""
        if "nonfinite_param" not in self.enabled_kinds:
            return
        params = _floating(params_of(optimizer))
        if not params:
            return
        enabled = torch.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            squares = squared_norms(params)
        finally:
            _set_grad_enabled(enabled)
        before, self._before_update = self._before_update, None
        without_grad, largest = before if before is not None else (None, [])
        self._updated.append((UpdatedParams(self.step, locations.user_site(), params, [], without_grad, [],
                                            left_as_found=largest is None,
                                            step_hooks=tuple(_hook_label(hook) for hook in _scripts_step_hooks(optimizer)
                                                                     if locations.is_user_code(hook))),
                              squares + (largest or [])))

    def _queue_without_grad(self, record: StepRecord, optimizer: torch.optim.Optimizer,
                            ) -> tuple[list[torch.Tensor], list[torch.Tensor] | None] | None:
        """The optimizer's parameters that have no gradient as its step() begins, and their
        largest magnitudes queued (read with the update's norms): whether one the update
        left non-finite was so already. Nothing to measure in the usual step, where every
        one has a gradient, nor (None in place of the magnitudes) under an optimizer that
        leaves them as it found them: a frozen backbone handed to AdamW costs no reduction
        more than its norm after the update, which every parameter gets."""
        if "nonfinite_param" not in self.enabled_kinds:
            return None
        if len(record.params) == len(self._last_params):
            return [], []
        without_grad = [p for p in _floating(self._last_params) if p.grad is None]
        if not without_grad:
            return [], []
        if _leaves_gradless_alone(optimizer):
            return without_grad, None
        enabled = torch.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            return without_grad, largest_magnitudes(without_grad)
        finally:
            _set_grad_enabled(enabled)

    def _step_in_backward(self, optimizer: torch.optim.Optimizer) -> None:
        """An optimizer stepped from a gradient hook (the optimizer fused into the
        backward pass, one per parameter): its gradients are read now, before the
        update clears them; the step ends with the backward pass."""
        self._optimizers.add(optimizer)
        self._stepped_after_backwards()
        params = [p for p in params_of(optimizer) if p.grad is not None and not p.grad.is_sparse]
        if params:
            with torch.no_grad():
                self.probe.stepped_squares.extend(squared_norms([p.grad for p in params]))
            self.probe.stepped_params.extend(params)

    def _stepped_after_backwards(self) -> None:
        self._most_backwards_per_step = max(self._most_backwards_per_step, self._backwards_since_step)
        self._backwards_since_step = 0

    def _optimizer_in_backward(self, params: list[torch.Tensor]) -> ManualUpdate:
        """The optimizers a backward pass stepped, as one (the same from step to step
        while they step the same parameters)."""
        stand_in = self._in_backward_optimizer
        if stand_in is None or {id(p) for p in params_of(stand_in)} != {id(p) for p in params}:
            stand_in = self._in_backward_optimizer = ManualUpdate(params)
        return stand_in

    def mark_step(self, parameters: Iterable[torch.Tensor] | None = None) -> None:
        """End the current step by hand, in a loop that updates `parameters` without torch.optim.

        Not needed when an optimizer steps: its `step()` is seen. `parameters` are
        remembered for the following calls.
        """
        if not self._active:
            raise RuntimeError("mark_step() is for a running Sanitizer: call it inside the `with` block")
        self._optimizer_seen()
        if parameters is not None:
            params = list(parameters)
            self._manual_update = ManualUpdate(params) if params else None
        self._close_step(self._manual_update, skipped=False)
        self._advance()

    def _advance(self) -> None:
        self.steps = self.step
        self.step += 1
        if self.steps == 1 and self._script_lint is not None:
            self._script_lint.start()

    def _flush(self) -> None:
        self._settle_held(ended_by_backward=False)
        probe = self.probe
        if probe.losses or probe.trail_slots or probe.eval_losses or self._last_params:
            self._close_step(None, skipped=False, partial=True)

    def _close_step(self, optimizer: torch.optim.Optimizer | None, skipped: bool,
                    found_inf: Any = None, partial: bool = False) -> bool:
        """Measure and judge the step; True when it is the step an optimizer just ended
        (a second optimizer stepping on the same backward pass)."""
        self._take_group_place()
        joins = (optimizer is not None and not partial and self.steps > 0
                 and self._backward_seen and not self._backward_since_close)
        if joins:  # back to the step just ended: the next `_advance` ends it again
            self.step, self.steps = self.steps, self.steps - 1
        self._backward_since_close = False
        record = self._record_step(optimizer, skipped, found_inf, partial)
        record.joins_previous = joins
        # what the update that follows finds (see UpdatedParams)
        self._before_update = (self._queue_without_grad(record, optimizer)
                               if optimizer is not None and not partial else None)
        self._dispatch(record)
        return joins

    def _record_step(self, optimizer: torch.optim.Optimizer | None, skipped: bool,
                     found_inf: Any = None, partial: bool = False) -> StepRecord:
        """Take the step's probe and measure it (the one read of the step)."""
        probe, self.probe = self.probe, StepProbe()
        self.tracer.step_closed()
        self.sources.step_closed()
        if optimizer is not None:
            self._last_params = params_of(optimizer)
            new = optimizer not in self._optimizers
            self._new_optimizers += new
            if new and self._index_step and (
                    self._new_optimizers <= NEW_STAGES_INDEXED or not self.index.names_all(self._last_params)):
                # a model first trained now, or a new stage whose modules (a head built for it)
                # the index has not seen: names (and prefixes) are set again (a script that
                # builds an optimizer every step is not rescanned every step for that)
                self._index_step = 0
            self._optimizers.add(optimizer)
        params = self._last_params if (optimizer is not None or probe.graph_roots) else []
        if self.device is None and params:
            self.device = str(params[0].device)
        if self._index_step == 0 and params:
            self._refresh_index()
        enabled = torch.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            # its parameters are read before this step's update: as the last update of this
            # optimizer left them (another optimizer may have stepped since: a GAN's)
            last_update = self._updated_at.get(id(optimizer)) if optimizer is not None else None
            record = self._measure(probe, params, skipped, found_inf, partial, last_update)
        finally:
            _set_grad_enabled(enabled)
        # a closure's later calls (LBFGS's iterations) after gradients this step found non-finite
        self.probe.after_nonfinite = not all(math.isfinite(norm) for norm in record.grad_norms)
        record.optimizer_id = self._optimizer_number(optimizer) if optimizer is not None else None
        record.lr = _first_lr(optimizer)
        groups = getattr(optimizer, "param_groups", None)
        record.param_groups = len(groups) if isinstance(groups, list) else None
        return record

    def _dispatch(self, record: StepRecord) -> None:
        """Hand a measured step to the detectors and the series."""
        partial = record.partial
        judge_levels = not self.reinforcement_learning
        failed = []
        for detector in self.detectors:
            if detector.judges_loss_level and not judge_levels:
                continue
            try:
                detector.on_step(record, self.sink)
            except Exception as exc:
                self.internal_error(f"{detector.name}.on_step", exc, retired=True)
                failed.append(detector)
        for detector in failed:
            self._retire(detector)
        if record.joins_previous:
            self.series.add_to_last(grad_norm=record.grad_norm)
        elif not partial:
            self.series.add(step=record.step, loss=record.loss, grad_norm=record.grad_norm,
                            loss_scale=record.scale, memory_bytes=record.memory_bytes)
        if record.eval_loss is not None:
            self.series.add_evaluation(record.step, record.eval_loss)

    def _measure(self, probe: StepProbe, params: list[torch.Tensor], skipped: bool,
                 found_inf: Any, partial: bool, last_update: int | None = None) -> StepRecord:
        if probe.stepped_params:  # read while the optimizers stepped inside backward
            with_grad, grads, squares = probe.stepped_params, [], probe.stepped_squares
        else:
            with_grad = [p for p in params if p.grad is not None]
            grads = [_stored_values(p.grad) for p in with_grad]
            squares = squared_norms(grads) if grads else []
        self.fp16 = self.fp16 or any(grad.dtype == torch.float16 for grad in grads[:1])
        gather = Gather()
        gather.add("loss", probe.losses)
        gather.add("trail", probe.trail_values)
        if squares:
            gather.add("grads", squares)
        if isinstance(found_inf, torch.Tensor):
            gather.add("found_inf", [found_inf])
        if probe.kept is not None:
            gather.add("kept", [value for queued, _ in probe.kept[0] for value in queued])
        checked = self._queue_initial_param_norms(gather, params)
        if probe.buffers:
            gather.add("buffers", [value for measure in probe.buffers for value in measure.values()])
        updated, self._updated = self._updated, []
        gather.add("updated", [square for _, squares in updated for square in squares])
        scaler = self._scaler() if self._scaler is not None else None
        if scaler is not None and getattr(scaler, "_scale", None) is not None:
            gather.add("scale", [scaler._scale])
        underflow_total = 0
        if grads and self.fp16 and "grad_underflow" in self.enabled_kinds and self.step % UNDERFLOW_EVERY == 1:
            underflow_total = self._queue_underflow_census(gather, with_grad, scaler, found_inf is not None)
        validation = [(kind, loss) for (kind, loss, _), kept in
                      zip(probe.eval_losses, kept_for_validation([origin for *_, origin in probe.eval_losses]))
                      if kept]
        eval_kind = _most_common([kind for kind, _ in validation])
        if eval_kind is not None:
            gather.add("eval", [torch.stack([loss.float() for kind, loss in validation if kind == eval_kind]).mean()])
        elif probe.eval_magnitudes:
            gather.add("eval_magnitude", [torch.stack([m.float() for m in probe.eval_magnitudes]).amax()])
        values = gather.read()
        param_norms = norms_from_squares(checked, values.get("params", []))
        if not checked and (partial or _any_nonfinite(values, ("loss", "trail", "grads"))):
            checked, param_norms = self._read_param_norms()
        grad_norms = norms_from_squares(grads, values.get("grads", []))
        updates = _updates_read(updated, values.get("updated", []))
        scale = _first(values.get("scale"))
        if found_inf is not None and scale:  # fused path: gradients are still scaled
            grad_norms = [norm / scale for norm in grad_norms]
            skipped = skipped or bool(_first(values.get("found_inf")))
        now = time.perf_counter()
        step_time = None if self._last_close is None or partial else now - self._last_close
        if not partial:
            self._last_close = now
        data_wait, self._data_wait = self._data_wait, 0.0
        trail = probe.trail(values["trail"])
        kept, zeroed = kept_gradient(probe.kept[0], values.get("kept", [])) if probe.kept is not None else (None, False)
        buffers = self._buffers.judge_all(probe.buffers, values.get("buffers", [])) if self._buffers is not None else []
        return StepRecord(
            step=self.step, skipped=skipped, partial=partial, losses=values["loss"],
            loss_sites=probe.loss_sites, trail=trail, model_site=probe.model_site,
            input_sources=probe.input_sources, masks=probe.additive_masks(values["trail"]), trail_half=probe.trail_half,
            params=with_grad, grad_norms=grad_norms,
            grad_norm=sum(n * n for n in grad_norms) ** 0.5 if grad_norms else None,
            checked_params=checked, param_norms=param_norms,
            param_step=self.step if probe.stepped_params else last_update or self.steps or self.step,  # updated already?
            scale=scale, underflow=_share(values.get("underflow"), 0, underflow_total),
            tiny_share=_share(values.get("underflow"), 1, underflow_total), eval_loss=_first(values.get("eval")),
            eval_magnitude=_first(values.get("eval_magnitude")),
            eval_kind=eval_kind, eval_site=probe.eval_site, loss_kinds=probe.loss_kinds, loss_calls=probe.loss_calls, model_in_eval_mode=probe.model_in_eval_mode,
            eval_mode_site=probe.eval_mode_site, eval_mode_calls=probe.eval_mode_calls,
            eval_called=probe.eval_called, nograd_models=probe.nograd_models,
            data_wait=data_wait, step_time=step_time,
            memory_bytes=None if partial else self._memory.sample(self.step, self.device),
            graph_roots=probe.graph_roots, training_params=[p for p in params if p.requires_grad],
            batch_items=sum(probe.batch_sizes) or None,
            kept_gradient=kept, kept_beside_cleared=kept is not None and (probe.kept[1] or zeroed),
            step_site=locations.user_site() if kept is not None else None,
            updates=updates, by_hand=self.step_source is StepSource.BACKWARD,
            built_in_forward=probe.built_in_forward, loss_dtypes=[loss.dtype for loss in probe.losses],
            nonfinite_buffers=buffers, computed_losses=probe.computed_losses)

    def measure_buffers(self, model: nn.Module) -> None:
        """As `model`'s first training forward of the step begins (see core/buffers.py): a
        GAN's discriminator as well as its generator."""
        probe = self.probe
        if self._buffers is not None and id(model) not in probe.buffers_measured:
            probe.buffers_measured.add(id(model))
            measure = self._buffers.measure(model, self.step)
            if measure is not None:
                probe.buffers.append(measure)

    def _queue_initial_param_norms(self, gather: Gather, params: list[torch.Tensor]) -> list[torch.Tensor]:
        """Before the first update the parameters are checked in the step's single read;
        so are they at every step of a loop without an optimizer, where no `step()` says
        when the script's own update ran: they are as its latest update left them."""
        if "nonfinite_param" not in self.enabled_kinds or not params or (
                self.steps and self.step_source is not StepSource.BACKWARD):
            return []
        checked = _floating(params)
        gather.add("params", squared_norms(checked))
        return checked

    def _read_param_norms(self) -> tuple[list[torch.Tensor], list[float]]:
        """Parameter norms as the last update left them: read only after something went
        non-finite (an update is the only way a parameter turns non-finite) and at the end."""
        checked = _floating(self._last_params)
        if "nonfinite_param" not in self.enabled_kinds or not checked:
            return [], []
        gather = Gather()
        gather.add("params", squared_norms(checked))
        return checked, norms_from_squares(checked, gather.read()["params"])

    def _queue_underflow_census(self, gather: Gather, params: list[torch.Tensor], scaler: Any,
                                still_scaled: bool) -> int:
        """Queue the fp16 flush census of the gradients (embeddings excluded: their unused
        rows are zero by design); returns how many values it covers."""
        dense = [p.grad for p in params
                 if not p.grad.is_sparse and not isinstance(self.index.param_owner(p), (nn.Embedding, nn.EmbeddingBag))]
        total = sum(grad.numel() for grad in dense)
        if total:
            unscaled = scaler is not None and not still_scaled and getattr(scaler, "_scale", None) is not None
            gather.add("underflow", flush_census(dense, scaler._scale if unscaled else 1.0))
        return total

    # ------------------------------------------------------------------ notes
    def _add_usage_notes(self) -> None:
        self.notes.extend(self.children.notes())
        if not self.tracer.saw_forward and not self.steps and not self.children.started:
            if self.ending is not None and self.ending.get("how") not in (None, "returned"):
                self.notes.append("the run ended before any torch.nn.Module forward pass or optimizer step: "
                                  "nothing was checked")
            else:
                self.notes.append("the script never ran a torch.nn.Module forward pass nor an optimizer "
                                  "step: nothing to check (does it use torch?)")
        elif not self.steps and not self.children.started:
            self.notes.append("the script never stepped an optimizer: only forward/backward checks ran")
        elif self.step_source is StepSource.BACKWARD and self.steps <= 1 and self._backwards_since_step >= STALL_BACKWARDS:
            self.notes.append(
                f"training never stepped: {self._backwards_since_step} backward passes added up into the same "
                "gradients, no optimizer stepped and nothing cleared them; a handler that skips a batch and "
                "leaves its gradients uncleared makes every later batch fail the same way")
        elif self.step_source is StepSource.BACKWARD:
            self.notes.append("the script never stepped an optimizer: each backward pass was counted as a step")
        elif self.steps and self._backwards_since_step >= max(STALL_BACKWARDS, self.steps,
                                                               2 * self._most_backwards_per_step):
            self.notes.append(
                f"training stalled: the last {self._backwards_since_step} backward passes stepped no optimizer "
                f"(the last step was step {self.steps}); a handler that skips a batch and leaves its "
                "gradients uncleared makes every later batch fail the same way")


NEW_STAGES_INDEXED = 8  # optimizers, at most, whose first step rescans the models though every name is known
STALL_BACKWARDS = 20  # backward passes after the last step, at least, before a run counts as stalled


def _stored_values(grad: torch.Tensor) -> torch.Tensor:
    """The values a gradient holds: a sparse one's (`nn.Embedding(sparse=True)`), summed
    per row as the optimizer applies them, so its norm is the gradient's."""
    return grad.coalesce()._values() if grad.is_sparse else grad


def status_of(exc: BaseException | None) -> int:
    """The exit status a block ending with `exc` stands for (0: no exception)."""
    if exc is None:
        return 0
    if isinstance(exc, SystemExit):
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 1


def report_path_for(path: str | os.PathLike[str], rank: int | None) -> str:
    """`run.json` becomes `run.rank3.json` on rank 3 of a distributed run."""
    path = os.fspath(path)
    if rank is None:
        return path
    stem, suffix = os.path.splitext(path)
    return f"{stem}.rank{rank}{suffix or '.json'}"


def _distributed_env() -> tuple[int | None, int]:
    rank, world = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    try:
        return (int(rank) if rank is not None else None), (int(world) if world is not None else 1)
    except ValueError:
        return None, 1


def _overriding(detectors: list[Detector], callback: str) -> list[Detector]:
    base = getattr(Detector, callback)
    return [d for d in detectors if getattr(type(d), callback) is not base]


def _floating(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t for t in tensors if inexact(t) and t.numel()]


def _updates_read(queued: list[tuple[UpdatedParams, list[torch.Tensor]]],
                  squares: list[float]) -> list[UpdatedParams]:
    """The queued updates with their parameters' norms, from the squares read for them (in order),
    then the largest magnitudes of those without a gradient before the update."""
    updates, start = [], 0
    for update, queued_squares in queued:
        middle, stop = start + len(update.params), start + len(queued_squares)
        norms = norms_from_squares(update.params, squares[start:middle])
        if update.left_as_found:
            after = {id(param): norm for param, norm in zip(update.params, norms)}
            largest = [after[id(param)] for param in update.without_grad or ()]
        else:
            largest = squares[middle:stop]
        updates.append(update._replace(norms=norms, largest_before=largest))
        start = stop
    return updates


def _leaves_gradless_alone(optimizer: torch.optim.Optimizer) -> bool:
    """Whether `optimizer`'s step() leaves a parameter without a gradient exactly as it was:
    torch's own optimizers skip it, LBFGS aside (it moves every parameter along one flat
    direction). Not a class of the script's (its own step() may decay it), nor one with
    step hooks of the script's, its own or global (they run between the session's, and may write it)."""
    kind = type(optimizer)
    return (kind.__module__.startswith("torch.optim.") and kind is not torch.optim.LBFGS
            and not _scripts_step_hooks(optimizer))


def _scripts_step_hooks(optimizer: torch.optim.Optimizer) -> list[Any]:
    """The step hooks other than the session's own (global, from core/hooks.py) that run
    around `optimizer.step()`."""
    registered = [*getattr(optimizer, "_optimizer_step_pre_hooks", {}).values(),
             *getattr(optimizer, "_optimizer_step_post_hooks", {}).values(),
             *getattr(optimizer_globals, "_global_optimizer_pre_hooks", {}).values(),
             *getattr(optimizer_globals, "_global_optimizer_post_hooks", {}).values()]
    return [hook for hook in registered if getattr(hook, "__module__", None) != hooks.__name__]


def _hook_label(hook: Any) -> str:
    """`hook`'s name and where it is defined, as a message shows it (`clip_hook (train.py:21)`)."""
    while isinstance(hook, functools.partial):
        hook = hook.func
    name = getattr(hook, "__qualname__", None) or type(hook).__qualname__
    code = locations.code_of(hook)
    return f"{name} ({locations.format_site(code.co_filename, code.co_firstlineno)})" if code else name


def _any_nonfinite(values: dict[str, list[float]], names: tuple[str, ...]) -> bool:
    return not all(all(map(math.isfinite, values.get(name, ()))) for name in names)


def _most_common(kinds: list[str]) -> str | None:
    return Counter(kinds).most_common(1)[0][0] if kinds else None


def _share(values: list[float] | None, index: int, total: int) -> float | None:
    return values[index] / total if values and total else None


def _first(values: list[float] | None) -> float | None:
    return values[0] if values else None


def _step_frames(optimizer: Any, depth: int = 64) -> int:
    """How many `step()` calls of `optimizer` are on the stack: torch's step wrapper,
    which runs the step hooks, holds the optimizer as `self`."""
    frame, found = sys._getframe(1), 0
    while frame is not None and depth:
        if frame.f_code.co_name == "wrapper" and frame.f_locals.get("self") is optimizer:
            found += 1
        frame, depth = frame.f_back, depth - 1
    return found


def _first_lr(optimizer: Any) -> float | None:
    """The learning rate of `optimizer`'s first parameter group, read as it stands: a
    number, or a one-element tensor on the CPU (`lr=torch.tensor(0.01)`, for a compiled
    step); a tensor on a GPU would wait for the device and is not read."""
    groups = getattr(optimizer, "param_groups", None)
    lr = groups[0].get("lr") if isinstance(groups, list) and groups and isinstance(groups[0], dict) else None
    if isinstance(lr, torch.Tensor):
        return float(lr.detach()) if lr.device.type == "cpu" and lr.numel() == 1 else None
    return float(lr) if isinstance(lr, (int, float)) and not isinstance(lr, bool) else None
