"""Static meets runtime: the lint findings that explain a runtime event.

Each event kind lists the rules whose bug produces it at run time; an event
gets `related`: the findings of those rules in the linted files, nearest to the
event's own `where` first.

A finding whose bug the run checks for directly is ruled out where that check
was on and saw nothing: memory growth is tied to a loss accumulated with its
graph (TL202) only when `tensor_leak` was not checked, or found one (else the
memory went somewhere else); a collapsing loss scale or a gradient spike to a
clip before `unscale_` (TL101) only when `clip_before_unscale` was not checked,
or found one (a branch of the script that clips first may never run). Such a
finding, on a line the run may never reach, would point the user the wrong way.
"""
from __future__ import annotations

from typing import Any

EXPLAINED_BY: dict[str, tuple[str, ...]] = {
    # clip before unscale_, unscale_ every micro-step, a step around the scaler
    "scale_collapse": ("TL101", "TL108", "TL105"),
    "grad_spike": ("TL101", "TL108", "TL105"),
    "grad_underflow": ("TL103",),  # fp16 without a GradScaler
    "tensor_leak": ("TL202",),  # a loss accumulated with its graph
    "memory_growth": ("TL202",),
    "train_in_eval_mode": ("TL405",),  # no model.train() in the training loop
    "missing_set_epoch": ("TL302",),
    "scheduler_before_optimizer": ("TL404",),  # the LR schedule starts one step late
    "clip_before_unscale": ("TL101",),  # clipped while the loss scale multiplies the gradients
    "missing_zero_grad": ("TL401",),  # no zero_grad in the loop
}
# rule -> the runtime check that sees its bug itself: on and quiet, it rules the finding out
RULED_OUT_BY: dict[str, str] = {"TL202": "tensor_leak", "TL101": "clip_before_unscale"}
RELATED_FIELDS = ("path", "line", "column", "code", "name", "message")


def relate(events: list[dict[str, Any]], findings: list[dict[str, Any]], checks: frozenset[str] = frozenset()) -> None:
    """Add `related` to each event some finding explains (in place). `checks`: the
    event kinds the run checked for."""
    seen = {str(event.get("kind")) for event in events}
    ruled_out = {code for code, check in RULED_OUT_BY.items() if check in checks and check not in seen}
    for event in events:
        codes = set(EXPLAINED_BY.get(str(event.get("kind")), ())) - ruled_out
        matching = [finding for finding in findings if finding.get("code") in codes]
        if matching:
            matching.sort(key=lambda finding: _distance(finding, event.get("where")))
            event["related"] = [{key: finding.get(key) for key in RELATED_FIELDS} for finding in matching]


def _distance(finding: dict[str, Any], where: Any) -> tuple[int, int]:
    """Findings in the event's own file, nearest line first; then the rest in order."""
    path, _, line = str(where or "").rpartition(":")
    same_file = bool(path) and finding.get("path") == path and line.isdigit()
    found_line = finding.get("line") if isinstance(finding.get("line"), int) else 0
    return (0, abs(found_line - int(line))) if same_file else (1, found_line)
