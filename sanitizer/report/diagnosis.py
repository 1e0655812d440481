"""The diagnosis of a run, in cause order: what went wrong first, and what it explains.

A crashed run says so first. Then each *problem* is a root event: an event that
no earlier problem explains. Each step's events of a kind are judged apart from
the kind's other steps (a spike the loss came back from, then a spike that began
a blow-up); roots of a kind judged alike are then told once, with how many more
there were, and so are a root's symptoms of a kind. Events a root explains are
folded under it as symptoms (a NaN explains the spikes and the fitting
verdicts after it, fp16 underflow explains all-zero gradients, a collapsing
loss scale explains what its skipped steps look like and is itself explained by
a forward that had already gone non-finite, a leak explains memory growth,
gradients never cleared explain the blow-up they grow into). A symptom that came
before its root (the spike in the steps before a NaN) is shown as having led up to
it, never as explained by what followed; a spike the series had come back from
before a blow-up began (`recovered_step`) neither led up to it nor is explained by
it: it stays a problem of its own, and so does one come back from before a scale
collapse's skipped steps began. A spike up to NAN_LEAD steps before a NaN led up
to it, come back from or not. Problems come in the order they
started, end-of-run verdicts last; then spikes the run came back from (what lasted
matters first), and the sanitizer's own errors at the very end.

The report, the end-of-run summary, `show` and the HTML page all read this.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from sanitizer.core.catalogue import (
    BUILT_IN_FORWARD_ADVICE, DIED_PARAM_ADVICE, FP16_OVERFLOW_ADVICE, INITIAL_PARAM_ADVICE, KIND_ORDER, KINDS,
    LOSS_COMPUTATION_ADVICE, NONFINITE_WEIGHTS_VALIDATION_ADVICE, OUTPUTS_JUMPED_ADVICE, OUTSIDE_PARAM_ADVICE,
    REVERSE_FIRST_STEP_ADVICE, RISING_LR_SPIKE_ADVICE, SCRIPT_UPDATE_PARAM_ADVICE, VANISHED_PARAM_ADVICE,
    ZERO_LOSS_ADVICE, Kind,
)
from sanitizer.core.ending import crash_time
from sanitizer.report.access import as_float, event_counts, events_of, rank_reports, severity_of
from sanitizer.report.formatting import format_number

# a buffer is reported at the step that last found it finite: written after that step's forward
# began, it follows all that step made non-finite, its update included (an EMA of a broken weight)
NONFINITE = ("nonfinite_input", "nonfinite_activation", "nonfinite_loss", "nonfinite_grad", "nonfinite_param",
             "nonfinite_buffer")
# GradScaler's own errors for a loop that misuses it, with what the loop left out and
# the lint rule that finds it before the run
SCALER_MISUSE = (
    ("unscale_() is being called after step()", "the GradScaler was stepped again without `scaler.update()`", "TL104"),
    ("step() has already been called since the last update()",
     "the GradScaler was stepped again without `scaler.update()`", "TL104"),
    ("unscale_() has already been called on this optimizer since the last update()",
     "`scaler.unscale_()` ran twice before `scaler.update()` (every micro-step?)", "TL108"),
)
AFTER_NAN = frozenset({"loss_spike", "grad_spike", "vanishing_grad", "overfitting", "underfitting",
                       "train_val_mismatch", "divergence"})
ALLREDUCE_GRAD_ADVICE = ("the NaN was born on another rank and DDP's all-reduce spread it here: `python -m "
                         "sanitizer merge` the ranks' reports to see which rank and what went non-finite there")
SHARED_PARAM_ADVICE = ("the weights are in shared memory and other processes update them too (hogwild): find the "
                       "process whose own batch, loss or gradients went non-finite first (the parent's report lists "
                       "each child's report and first error), and guard every process's update against it")
STATIC_SCALE_ADVICE = ("the loss handed to backward() is multiplied by {scale:g} (a static loss scale): unless every "
                       "gradient is divided by {scale:g} before optimizer.step(), each step is {scale:g} times too "
                       "large; then lower the learning rate, clip gradients, check the data order")
NAN_LEAD = 3  # a spike this many steps before a NaN is the blow-up that produced it
COLLAPSE_LEAD = 50  # a scale collapse is judged over its scaler's recent window
DIVERGENCE_LEAD = 10  # a divergence is judged on its last 10 losses: a spike among them began it
MOST_FLUSHED = 0.5  # an underflow that took most gradient values leaves too little to learn from
EVIDENCE_FIELDS = ("value", "culprit", "first_nonfinite_module", "baseline", "params", "recovered_step")
SPIKES = ("loss_spike", "grad_spike")
LEADING = frozenset({*SPIKES, "divergence"})  # kinds that may come before their root as its beginning
CORE_FIELDS = frozenset({"kind", "severity", "step", "message", "module", "param", "where", "rank", "related"})


@dataclass
class Problem:
    """One item of the diagnosis: a root event (or the crash) and what it explains."""

    headline: str
    severity: str
    kind: str | None = None
    step: int | None = None
    evidence: list[str] = field(default_factory=list)
    symptoms: list[str] = field(default_factory=list)
    advice: str | None = None
    # the first of `symptoms` came before the root, in the steps that led up to it (the
    # spike a NaN ended): the same incident, never said to be caused by what followed
    precursors: int = 0

    def labelled_symptoms(self) -> list[tuple[str, str]]:
        """Each symptom with how it relates to the root: `led up to it` or `explains`."""
        return [("led up to it" if index < self.precursors else "explains", line)
                for index, line in enumerate(self.symptoms)]

    def lines(self) -> list[str]:
        """The headline, then its evidence, folded symptoms and advice, one per line."""
        body = [f"evidence: {'; '.join(self.evidence)}"] if self.evidence else []
        body += [f"{label}: {line}" for label, line in self.labelled_symptoms()]
        body += [f"try: {self.advice}"] if self.advice else []
        return [self.headline, *body]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "severity": self.severity, "headline": self.headline,
                "evidence": self.evidence, "symptoms": self.symptoms, "advice": self.advice,
                "precursors": self.symptoms[:self.precursors]}


@dataclass
class _Group:
    """The events of one kind: the first one stands for the rest."""

    first: dict[str, Any]
    count: int = 1
    symptoms: list[_Group] = field(default_factory=list)
    # the other ranks that saw the first event itself (same step, module and parameter):
    # the same finding, not more of them
    also_on: list[int] = field(default_factory=list)

    def more(self) -> str:
        """` (also on rank 1)`, ` (+3 more)`: what the first event stands for besides itself."""
        ranks = sorted(set(self.also_on))
        others = self.count - 1 - len(self.also_on)
        also = f" (also on rank{'s' * (len(ranks) > 1)} {', '.join(map(str, ranks))})" if ranks else ""
        return also + (f" (+{others} more)" if others > 0 else "")

    @property
    def kind(self) -> str:
        return str(self.first.get("kind", "unknown"))

    @property
    def step(self) -> int | None:
        step = as_float(self.first.get("step"))
        return int(step) if step is not None and math.isfinite(step) else None


def diagnose(report: dict[str, Any]) -> list[Problem]:
    """Every problem of the run, root causes first; empty for a clean, finished run."""
    multi_rank = len(rank_reports(report)) > 1
    groups = _groups(events_of(report))
    _count_unkept(groups, event_counts(report))
    roots = _roots(groups)
    problems = [problem for problem in [_ending(report, roots)] if problem is not None]
    return problems + [_problem(root, multi_rank) for root in roots]


def own_nonfinite_root(report: dict[str, Any]) -> dict[str, Any] | None:
    """The event the run's first non-finite problem is rooted at, unless that is weights in
    shared memory another process broke (hogwild: `nonfinite_param` with `shared`): the NaN
    did not start in this process. None when no value went non-finite."""
    groups = _groups(events_of(report))
    root = next((root for root in _roots(groups) if root.kind in NONFINITE), None)
    return root.first if root is not None and not root.first.get("shared") else None


def diagnosis_lines(problems: list[Problem], notes: list[str]) -> list[str]:
    """The diagnosis as plain lines: numbered problems with indented details, then notes."""
    lines: list[str] = []
    for number, problem in enumerate(problems, start=1):
        head, *body = problem.lines()
        lines.append(f"{number}. {head}")
        lines += [f"   {line}" for line in body]
    return lines + [f"note: {note}" for note in notes]


def event_line(event: dict[str, Any], show_rank: bool = False) -> str:
    """`kind at step N: message (module m, param p, where)`, or with a related lint
    finding, `kind at step N — train.py:31 clip before unscale (TL101)`."""
    step = as_float(event.get("step"))
    at = f" at step {step:g}" if step is not None and math.isfinite(step) else " at end"
    if show_rank and event.get("rank") is not None:
        at += f" on rank {event['rank']}"
    related = _related(event)
    if related:
        return f"{event.get('kind', 'unknown')}{at} — {related[0]}"
    places = [f"{name} {event[name]}" for name in ("module", "param") if event.get(name) not in (None, "")]
    if event.get("where"):
        places.append(str(event["where"]))
    where = f" ({', '.join(places)})" if places else ""
    return f"{event.get('kind', 'unknown')}{at}: {_one_line(event.get('message'))}{where}"


# ------------------------------------------------------------------- the ending
def _ending(report: dict[str, Any], roots: list[_Group]) -> Problem | None:
    """A run that did not end normally: an exception, an interrupt, a halt, an exit status.
    A crash in the step where values first went non-finite says so (torch rejecting a
    NaN: `Categorical`, `binary_cross_entropy`): that problem is its cause."""
    ending = report.get("ending")
    if isinstance(ending, dict) and ending.get("how") not in (None, "returned"):
        detail = _one_line(ending.get("detail"))
        where = f" ({ending['where']})" if ending.get("where") else ""
        how = {"exception": "the script crashed", "interrupted": "the run was interrupted",
               "terminated": "the run was terminated (SIGTERM)",
               "halted": "the sanitizer halted the run (--halt-on)",
               "exit": "the script exited with an error status"}.get(str(ending["how"]), "the run ended early")
        if ending.get("rank") is not None:  # a merged report's first failure (see report.merged)
            how += f" on rank {ending['rank']}"
        step = as_float(ending.get("step"))
        misuse = _scaler_misuse(report)
        if misuse is not None:
            found = crash_lint(report)
            place = f"{found.get('path', '?')}:{found.get('line', '?')}, " if found is not None else ""
            how += f": {misuse[0]} ({place}{misuse[1]})"
        elif ending.get("peer_lost"):  # a collective that lost its peer (core.ending.lost_peer)
            how += (" because another rank stopped (its collective lost the peer; that rank's report says why, "
                    "or `python -m sanitizer merge` the ranks' reports)")
        elif ending.get("how") == "exception" and step is not None:
            how += _crash_cause(ending, step, roots, detail)
        elif ending.get("how") == "halted":
            how += _halted_at(ending, roots)
        advice = ending.get("advice")  # a backward() that found no graph (core.ending.cut_graph_advice)
        return Problem(f"{how}: {detail}{where}" if detail else f"{how}{where}", "error",
                       advice=str(advice) if advice else None)
    statuses = {rank.get("exit_code") for rank in rank_reports(report)} - {0, None}
    if statuses and not isinstance(ending, dict):  # a report from before `ending` was recorded
        codes = ", ".join(str(code) for code in sorted(statuses, key=str))
        return Problem(f"the script ended with exit code {codes}", "error")
    return None


def _scaler_misuse(report: dict[str, Any]) -> tuple[str, str] | None:
    """A GradScaler error that ended the run: what the loop left out, and the rule
    that finds it before the run (`scaler.update()`, TL104)."""
    ending = report.get("ending")
    detail = str(ending.get("detail") or "") if isinstance(ending, dict) and ending.get("how") == "exception" else ""
    return next(((words, code) for message, words, code in SCALER_MISUSE if message in detail), None)


def crash_lint(report: dict[str, Any]) -> dict[str, Any] | None:
    """The lint finding a GradScaler error that ended the run points at (TL104 for a
    missing `update()`), if the script's lint has one."""
    misuse = _scaler_misuse(report)
    lint = report.get("lint")
    if misuse is None or not isinstance(lint, list):
        return None
    return next((finding for finding in lint if isinstance(finding, dict) and finding.get("code") == misuse[1]), None)


def _crash_cause(ending: dict[str, Any], step: float, roots: list[_Group], detail: str = "") -> str:
    """When the crash came, and what it followed, if a problem explains it: values non-finite
    in its step (their root, or the divergence they ended), or a divergence the loss was still
    at when the script raised (its own guard against a NaN, an index computed from the
    blown-up loss: `diverged_at_crash`). Weights a NaN update left non-finite stay so: a
    later crash on a NaN or Inf that torch names in its message (PPO's next rollout, a
    `Categorical` of NaN probabilities, steps after the update) follows them too. A crash
    after the last step (`after_step`: generation after the loop) came in the step that
    never began, after `step`; it is told as such whatever it followed."""
    after = bool(ending.get("after_step"))
    when = crash_time(ending) if isinstance(ending.get("step"), int) else f" in step {step:g}"
    step = step + 1 if after else step
    for number, root in enumerate(roots, start=2):
        if root.kind in NONFINITE and step in _steps_of(root):
            return f"{when}, where values had gone non-finite (problem {number})"
        since = _nonfinite_weights_since(root) if root.kind in NONFINITE else None
        if since is not None and since <= step and _names_nonfinite(detail):
            return f"{when}, with the weights non-finite since step {since} (problem {number})"
        if root.kind != "divergence" or root.step is None or step < root.step:
            continue
        diverged = f"after the loss diverged at step {root.step} (problem {number})"
        if step in {symptom.step for symptom in root.symptoms if symptom.kind in NONFINITE}:
            return f"{when}, where values had gone non-finite {diverged}"
        if root.first.get("diverged_at_crash"):
            return f"{when}, {diverged}"
    return when if after else ""


def _halted_at(ending: dict[str, Any], roots: list[_Group]) -> str:
    """` on what problem N reports`: the problem the event a `--halt-on` stopped at is,
    or is folded under (a NaN loss under the divergence that explains it)."""
    kind, step = ending.get("kind"), as_float(ending.get("step"))
    for number, root in enumerate(roots, start=2):
        if any(group.kind == kind and group.step == step for group in (root, *root.symptoms)):
            return f" on what problem {number} reports"
    return ""


def _nonfinite_weights_since(root: _Group) -> int | None:
    """The step whose update left weights non-finite, among a root and its symptoms."""
    steps = [group.step for group in (root, *root.symptoms) if group.kind == "nonfinite_param"]
    return min((step for step in steps if step is not None), default=None)


def _names_nonfinite(detail: str) -> bool:
    """An error message that shows or names a NaN or Inf value (torch's `Categorical`:
    `found invalid values: tensor([nan, nan])`; `multinomial`: `contains either inf, nan`)."""
    words = {word.strip("`'\"()[],.:;").lower() for word in detail.split()}
    return bool(words & {"nan", "inf", "-inf"})


def _steps_of(root: _Group) -> set[int]:
    """The steps a root's events and those of its non-finite symptoms happened at: a
    NaN update at step 20 makes the weights NaN, and torch rejects step 21's output."""
    steps = {root.step} | {symptom.step for symptom in root.symptoms if symptom.kind in NONFINITE}
    return {step for step in steps if step is not None}


# ------------------------------------------------------------- causes, symptoms
def _groups(events: list[dict[str, Any]]) -> list[_Group]:
    """The events of one kind at one step (on every rank), or of an end-of-run verdict on
    one module and parameter: each such group is judged on its own, so that a later
    episode of a kind (a spike that began a blow-up, after one the loss came back from),
    or a parameter that never got a gradient beside ones fp16 flushed, is explained by
    what explains it, not by its kind's first event."""
    groups: dict[tuple[Any, ...], _Group] = {}
    for event in sorted(events, key=_time_order):
        kind, step = str(event.get("kind", "unknown")), event.get("step")
        kind_step = (kind, step) if step is not None else (kind, None, event.get("module"), event.get("param"))
        if kind_step in groups:
            group = groups[kind_step]
            group.count += 1
            rank = event.get("rank")
            if isinstance(rank, int) and rank != group.first.get("rank") and all(
                    event.get(key) == group.first.get(key) for key in ("step", "module", "param")):
                group.also_on.append(rank)
        else:
            groups[kind_step] = _Group(event)
    return sorted(groups.values(), key=lambda group: _time_order(group.first))


def _count_unkept(groups: list[_Group], counts: dict[str, int]) -> None:
    """A report keeps only the first events of a kind: those it left out, later than all
    it kept, are counted with the latest group of their kind (`groups` in time order)."""
    kept: dict[str, int] = {}
    latest: dict[str, _Group] = {}
    for group in groups:
        kept[group.kind] = kept.get(group.kind, 0) + group.count
        latest[group.kind] = group
    for kind, group in latest.items():
        group.count += max(0, counts.get(kind, 0) - kept[kind])


def _roots(groups: list[_Group]) -> list[_Group]:
    """Fold each group under the earliest root that explains it, itself or through a
    symptom folded under it (a NaN collapses the loss scale, the collapsed scale then
    flushes gradients); a new root also takes in the roots just before it that it
    explains (the spike that became a NaN)."""
    roots: list[_Group] = []
    for group in groups:
        cause = next((root for root in roots
                      if explains(root, group) or any(explains(symptom, group) for symptom in root.symptoms)), None)
        if cause is not None:
            cause.symptoms.append(group)
            continue
        for earlier in [root for root in roots if _taken_in(root, group) and explains(group, root)]:
            roots.remove(earlier)
            group.symptoms += [earlier, *earlier.symptoms]
            earlier.symptoms = []
        roots.append(group)
    roots = _repeats_joined(roots)
    own_errors = [root for root in roots if root.kind == "sanitizer_error"]
    came_back = [root for root in roots if _came_back(root)]
    return [root for root in roots if root not in came_back and root not in own_errors] + came_back + own_errors


def _repeats_joined(roots: list[_Group]) -> list[_Group]:
    """The report kept short: roots of a kind judged alike (spikes come back from, or
    not) at the same place (`_place`) told once, with how many more there were;
    so are a root's symptoms of a kind (those that led up to it apart from those that
    followed), and its own repeats folded under it through a symptom (a NaN gradient at
    each step after the first)."""
    joined: dict[tuple[Any, ...], _Group] = {}
    for root in roots:
        first = joined.setdefault((root.kind, _came_back(root), _place(root)), root)
        if first is not root:
            first.count += root.count
            first.symptoms += root.symptoms
    for root in joined.values():
        symptoms: dict[tuple[str, bool], _Group] = {}
        for symptom in sorted(root.symptoms, key=lambda group: _time_order(group.first)):
            if symptom.kind == root.kind:
                root.count += symptom.count
                continue
            first = symptoms.setdefault((symptom.kind, _before(symptom, root)), symptom)
            if first is not symptom:
                first.count += symptom.count
        root.symptoms = list(symptoms.values())
    return list(joined.values())


def _place(group: _Group) -> Any:
    """The line of the script a group's first event happened at: roots of a kind at
    different lines are distinct problems (a NaN in the encoder's forward at step 10, one
    in the loss at step 50), not repeats of one. Modules or parameters alone do not part
    them: twelve layers overflowing one after the other at the model's call are one
    problem told once (+11 more)."""
    return group.first.get("where")


def _came_back(group: _Group) -> bool:
    """A spike the series came back from (`recovered_step`, see detectors/spikes.py)."""
    return group.kind in SPIKES and group.first.get("recovered_step") is not None


def _back_before(symptom: _Group, cause: _Group, began: int | None = None) -> bool:
    """A spike the series had come back from before `cause` began (`began`, when known
    apart from the step it was reported at): no part of it."""
    back = as_float(symptom.first.get("recovered_step"))
    began = began if began is not None else cause.step
    return symptom.kind in SPIKES and back is not None and began is not None and back <= began


def explains(cause: _Group, symptom: _Group) -> bool:
    """Whether `cause` accounts for `symptom` (each rule also bounds when it may happen)."""
    return symptom.kind != cause.kind and any(rule(cause, symptom) for rule in _RULES)


def _before(first: _Group, second: _Group) -> bool:
    return first.step is not None and second.step is not None and first.step < second.step


def _taken_in(earlier: _Group, root: _Group) -> bool:
    """Whether `root` may take in the `earlier` root it explains: one of an earlier step,
    or parameters that got only zero gradients from its own step on (a loss that blew up
    at step 2 and the gradients all zero from step 2: same step, the parameters sorted
    first by kind only; such a verdict on gradients never causes what explains it)."""
    return _before(earlier, root) or (earlier.kind == "unused_parameter" and earlier.step == root.step
                                      and earlier.step is not None)


def _later(symptom: _Group, cause: _Group, lead: int = 0) -> bool:
    """The symptom is stepless (an end-of-run verdict) or no more than `lead` steps early."""
    if symptom.step is None:
        return True
    return cause.step is not None and symptom.step >= cause.step - lead


def _nan_chain(cause: _Group, symptom: _Group) -> bool:
    """The first non-finite value explains the ones it spreads to: input, activation,
    loss, gradient, parameter, in time and then in that order."""
    if cause.kind not in NONFINITE or symptom.kind not in NONFINITE or cause.step is None or symptom.step is None:
        return False
    # weights non-finite before any update (an initialisation) come first: they explain
    # the step's forward, never follow from it
    if symptom.kind == "nonfinite_param" and symptom.first.get("initial"):
        return False
    if cause.kind == "nonfinite_param" and cause.first.get("initial"):
        return symptom.step >= cause.step
    return (symptom.step, NONFINITE.index(symptom.kind)) > (cause.step, NONFINITE.index(cause.kind))


def _nan_symptoms(cause: _Group, symptom: _Group) -> bool:
    """A NaN explains the verdicts after it (and a spike up to NAN_LEAD steps before it,
    even one the series came back from in between: the blow-up swinging on its way to the
    NaN), and parameters that learned and then got only zero gradients from then on (the
    backward of a ReLU on NaN inputs is zero)."""
    if cause.kind not in NONFINITE:
        return False
    if symptom.kind == "unused_parameter":
        return symptom.first.get("since") is not None and _later(symptom, cause)
    return symptom.kind in AFTER_NAN and _later(symptom, cause, NAN_LEAD)


def _collapse_symptoms(cause: _Group, symptom: _Group) -> bool:
    """Skipped steps under a collapsing scale: tiny scaled gradients, stalls, spikes (not
    one the series had come back from before the skipping began: a bad batch long
    before is no part of it)."""
    affected = {"grad_underflow", "vanishing_grad", "loss_spike", "grad_spike", "underfitting", "nonfinite_grad"}
    if cause.kind != "scale_collapse" or symptom.kind not in affected or not _later(symptom, cause, COLLAPSE_LEAD):
        return False
    began = as_float(cause.first.get("skipping_since"))
    return not _back_before(symptom, cause, int(began) if began is not None else None)


def _forward_nan_collapse(cause: _Group, symptom: _Group) -> bool:
    """A forward that is already non-finite (a NaN batch, an overflowing op, broken
    weights) makes the scaler skip the step at any scale: its collapse follows."""
    forward = ("nonfinite_input", "nonfinite_activation", "nonfinite_loss", "nonfinite_buffer", "nonfinite_param")
    if cause.kind not in forward or symptom.kind != "scale_collapse":
        return False
    return cause.step is not None and symptom.step is not None and 0 <= symptom.step - cause.step <= COLLAPSE_LEAD


def _underflow_symptoms(cause: _Group, symptom: _Group) -> bool:
    """Gradients fp16 flushed to zero look unused or vanishing; they are neither. When
    most of them were flushed, the loss that does not go down follows too (a model's
    capacity is not what held it back); a smaller underflow leaves it a problem of its own."""
    if cause.kind != "grad_underflow":
        return False
    if symptom.kind == "unused_parameter":
        return symptom.first.get("gradients") == "zero"
    if symptom.kind == "underfitting":
        share = as_float(cause.first.get("value"))
        return share is not None and share >= MOST_FLUSHED and _later(symptom, cause)
    return symptom.kind == "vanishing_grad"


def _replaced_parameters(cause: _Group, symptom: _Group) -> bool:
    """Parameters a module replaced in its forward: the old ones, still in the
    optimizer, get no gradient any more."""
    return (cause.kind == "param_not_in_optimizer" and symptom.kind == "unused_parameter"
            and bool(cause.first.get("replaced")) and bool(symptom.first.get("replaced")))


def _leak_symptoms(cause: _Group, symptom: _Group) -> bool:
    return cause.kind == "tensor_leak" and symptom.kind == "memory_growth"


def _divergence_symptoms(cause: _Group, symptom: _Group) -> bool:
    """A loss that blew up explains its spikes (also the one its window of recent losses
    began with: a batch of inputs a thousand times larger, unless the loss had come back
    from it before the blow-up began), the NaN it ends in, a
    stuck loss, and parameters that learned and then stopped getting gradients after
    it (ReLUs killed by the huge updates)."""
    if cause.kind != "divergence":
        return False
    if symptom.kind == "unused_parameter":
        return symptom.first.get("since") is not None and _later(symptom, cause)
    followers = AFTER_NAN | set(NONFINITE)
    lead = DIVERGENCE_LEAD if symptom.kind in SPIKES else NAN_LEAD
    return symptom.kind in followers and _later(symptom, cause, lead) and not _back_before(symptom, cause)


def _kept_gradient_symptoms(cause: _Group, symptom: _Group) -> bool:
    """Gradients never cleared grow with every step: the spikes, the climb and the
    NaN they end in, and a loss that cannot settle."""
    followers = AFTER_NAN | set(NONFINITE)
    return cause.kind == "missing_zero_grad" and symptom.kind in followers and _later(symptom, cause)


def _clip_symptoms(cause: _Group, symptom: _Group) -> bool:
    """Updates clipped on scaled gradients are tiny: the gradient norm looks collapsed
    and the loss stalls; a scale that overflows in the clip's norm keeps falling."""
    followers = {"vanishing_grad", "underfitting", "grad_spike", "scale_collapse", "divergence"}
    return cause.kind == "clip_before_unscale" and symptom.kind in followers and _later(symptom, cause)


def _spike_pair(cause: _Group, symptom: _Group) -> bool:
    """A loss spike and the gradient spike it produces in the same step."""
    return (cause.kind, symptom.kind) == ("loss_spike", "grad_spike") and cause.step == symptom.step


_RULES: tuple[Callable[[_Group, _Group], bool], ...] = (
    _nan_chain, _nan_symptoms, _collapse_symptoms, _forward_nan_collapse, _underflow_symptoms, _leak_symptoms,
    _divergence_symptoms, _spike_pair, _replaced_parameters, _kept_gradient_symptoms, _clip_symptoms,
)


# ------------------------------------------------------------------ wording
def _problem(root: _Group, multi_rank: bool) -> Problem:
    kind = KINDS.get(root.kind)
    more = root.more()
    evidence = _evidence(root.first)
    if _related(root.first):
        evidence.insert(0, _one_line(root.first.get("message")))
    # only a spike (or a divergence) can lead up to what it is folded under; what a root
    # explains (gradients fp16 flushed, read as vanishing) is its consequence even where it
    # was noticed first
    timed = sorted(root.symptoms, key=lambda group: _time_order(group.first))
    leading = [symptom for symptom in timed if symptom.kind in LEADING and _before(symptom, root)]
    symptoms = leading + [symptom for symptom in timed if not any(symptom is lead for lead in leading)]
    earlier = len(leading)
    return Problem(event_line(root.first, multi_rank) + more, severity_of(root.first), root.kind, root.step,
                   evidence, [_symptom_line(symptom, multi_rank) for symptom in symptoms],
                   _advice(root.first, kind), earlier)


def _advice(event: dict[str, Any], kind: Kind | None) -> str | None:
    """The kind's advice, or its variant for the event's circumstance."""
    if kind is not None and kind.name == "nonfinite_param" and event.get("shared"):
        return SHARED_PARAM_ADVICE
    if kind is not None and kind.name == "nonfinite_param" and event.get("initial"):
        return INITIAL_PARAM_ADVICE
    if kind is not None and kind.name == "unused_parameter" and event.get("zero_loss"):
        return ZERO_LOSS_ADVICE
    if kind is not None and kind.name == "param_not_in_optimizer" and event.get("built_in_forward"):
        return BUILT_IN_FORWARD_ADVICE
    if kind is not None and kind.name == "nonfinite_param" and event.get("origin") == "outside_optimizer":
        return OUTSIDE_PARAM_ADVICE
    if kind is not None and kind.name == "nonfinite_param" and event.get("origin") == "script_update":
        return SCRIPT_UPDATE_PARAM_ADVICE
    if kind is not None and kind.name == "unused_parameter" and event.get("since") is not None:
        return DIED_PARAM_ADVICE
    if kind is not None and kind.name == "unused_parameter" and event.get("reverse_first_step"):
        return REVERSE_FIRST_STEP_ADVICE
    if kind is not None and kind.name == "unused_parameter" and event.get("called") and event.get("gradients") == "zero":
        return VANISHED_PARAM_ADVICE
    if kind is not None and kind.name == "nonfinite_grad" and event.get("through_allreduce"):
        return ALLREDUCE_GRAD_ADVICE
    if kind is not None and kind.name == "nonfinite_loss" and event.get("origin") == "loss_computation":
        return LOSS_COMPUTATION_ADVICE
    if kind is not None and kind.name == "nonfinite_loss" and event.get("origin") == "outputs_jumped":
        return OUTPUTS_JUMPED_ADVICE
    if kind is not None and kind.name == "nonfinite_activation" and event.get("dtype") == "float16":
        return FP16_OVERFLOW_ADVICE
    if kind is not None and kind.name == "nonfinite_validation" and event.get("origin") == "weights":
        return NONFINITE_WEIGHTS_VALIDATION_ADVICE
    if kind is not None and kind.name == "divergence" and isinstance(event.get("static_loss_scale"), (int, float)):
        return STATIC_SCALE_ADVICE.format(scale=event["static_loss_scale"])
    if kind is not None and kind.name in ("loss_spike", "grad_spike") and event.get("lr"):
        return RISING_LR_SPIKE_ADVICE
    return kind.advice if kind else None


def _symptom_line(group: _Group, multi_rank: bool) -> str:
    more = group.more()
    return event_line(group.first, multi_rank) + more


def _evidence(event: dict[str, Any]) -> list[str]:
    lines = [f"{name} {_value_text(event[name])}" for name in EVIDENCE_FIELDS if event.get(name) not in (None, "", [])]
    lines += [line for line in _related(event)[1:]]
    return lines


def _related(event: dict[str, Any]) -> list[str]:
    """`train.py:31 clip before unscale (TL101)` for each lint finding that explains the event."""
    related = event.get("related")
    if not isinstance(related, list):
        return []
    lines = []
    for finding in related:
        if isinstance(finding, dict) and finding.get("code"):
            name = str(finding.get("name") or finding.get("message") or "").replace("-", " ")
            lines.append(f"{finding.get('path', '?')}:{finding.get('line', '?')} {name} ({finding['code']})")
    return lines


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, list):
        shown = ", ".join(str(item) for item in value[:5])
        return shown + (f" (+{len(value) - 5} more)" if len(value) > 5 else "")
    return _one_line(value)


def _time_order(event: dict[str, Any]) -> tuple[Any, ...]:
    step = as_float(event.get("step"))
    known = step is not None and math.isfinite(step)
    rank = event.get("rank") if isinstance(event.get("rank"), int) else 0
    # weights broken before the first update were so before the step's forward ran
    order = -1 if event.get("kind") == "nonfinite_param" and event.get("initial") else \
        KIND_ORDER.get(str(event.get("kind")), len(KIND_ORDER))
    return (not known, step if known else 0.0, order, rank)


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""
