"""Tensors that keep autograd graphs alive across steps (`total_loss += loss`).

Every few steps, the variables of the user's frames that hold tensors with a
`grad_fn` are measured by the size of the graph they keep reachable. A holder
whose graph grows sample after sample, or never shrinks and grows again and
again at a slower pace (a validation loss kept every 10 or 50 steps), and still
reaches nodes that an earlier step created, retains every past step's graph.
One that is trimmed, cleared or filled once stops growing before it grows often
enough to count. A graph made of this step's nodes alone is the step's own,
however it grows (a policy-gradient loss summed over an episode that gets longer
as the agent learns).
"""
from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING

from sanitizer.core import locations
from sanitizer.core.probe import StepRecord
from sanitizer.detectors import graphs
from sanitizer.detectors.base import Detector
from sanitizer.detectors.holders import Holder, accumulation_site, find_holders

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink

SAMPLE_EVERY = 5
GROWING_SAMPLES = 3  # consecutive samples each larger than the last: a graph kept at every step
# rises, with no fall between them: a graph kept every few steps (more than a holder
# trimmed to its last few entries, or reset each epoch, ever rises before it falls)
SLOW_RISES = 8
WINDOW = 96  # samples remembered per holder: eight rises of a graph kept every 50 steps


class TensorLeakDetector(Detector):
    name = "tensor_leak"
    kinds = ("tensor_leak",)

    def __init__(self) -> None:
        self.scans = 0
        self.scan_seconds = 0.0
        self.leaking: list[str] = []
        self._sizes: dict[str, deque[int]] = {}
        # autograd numbers the nodes it creates in order: the highest number among the
        # loss nodes of the previous step, so that a node at or below it is from a past step
        self._past: int | None = None
        self._latest: int | None = None
        self._reported_nodes: set[int] = set()  # ids of the graph nodes of the leaks reported

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.joins_previous:  # a second optimizer of the same step: scanned once, with the first
            return
        if record.graph_roots and not record.partial:
            self._past, self._latest = self._latest, max(root._sequence_nr() for root in record.graph_roots)
        if record.partial or record.step % SAMPLE_EVERY:
            return
        started = time.perf_counter()
        self.scans += 1
        current: dict[str, deque[int]] = {}
        for holder in find_holders(locations.user_frames()):
            if holder.key in self.leaking:
                continue
            nodes = graphs.walk(holder.grad_fns)
            sizes = self._sizes.get(holder.key, deque(maxlen=WINDOW))
            sizes.append(len(nodes))
            current[holder.key] = sizes
            if growth(sizes) is not None and self._reaches_past_steps(nodes):
                if any(id(node) in self._reported_nodes for node in nodes):
                    # the same graphs under another name (the list in `main` and in `train_epoch`,
                    # a meter's `avg` made from its `sum`): one leak, reported once
                    self.leaking.append(holder.key)
                    continue
                self._report(record, sink, holder, nodes, sizes)
                self._reported_nodes.update(id(node) for node in nodes)
        self._sizes = current
        self.scan_seconds += time.perf_counter() - started

    def _reaches_past_steps(self, nodes: list) -> bool:
        """Whether some node was created before this step began (always, without a past step to tell by).
        AccumulateGrad nodes, made once per parameter, carry the largest number: they never count."""
        past = self._past
        return past is None or any(node._sequence_nr() <= past for node in nodes)

    def _report(self, record: StepRecord, sink: Sink, holder: Holder, nodes: list, sizes: deque[int]) -> None:
        self.leaking.append(holder.key)
        per_step = growth(sizes) or 0.0
        rate = f"{per_step:.0f}" if per_step >= 10 else f"{per_step:.2g}"  # a graph kept every 50 steps: 0.16
        # after backward the nodes no longer save tensors: then the nodes themselves are what piles up
        size, saved = graphs.retained_bytes(holder.tensors, nodes)
        amount = (f"holding {size} bytes of tensors" if saved else
                  "the nodes themselves piling up (backward freed the tensors they saved)")
        site = accumulation_site(holder)
        where = locations.format_site(*site[:2]) if site else None
        # an update helper whose branches end in the same op: which one ran is not known
        updated = f", updated in place in {site[2]}()" if site and site[2] else ""
        held, keep = (f"{len(holder.tensors)} tensors in ", "keep") if len(holder.tensors) > 1 else ("", "keeps")
        sink.emit("tensor_leak", record.step,
                  f"{held}`{holder.label}` (in {holder.frame_name}) {keep} the autograd graphs of past steps "
                  f"alive{updated}: {len(nodes)} graph nodes, growing by {rate} per step, {amount}",
                  where=where, value=len(nodes),
                  extra={"holder": holder.label, "nodes": len(nodes), "nodes_per_step": per_step,
                            "bytes": size})


def growth(sizes: deque[int]) -> float | None:
    """Graph nodes gained per step when `sizes` (one per sample, the newest last) shows a
    holder that keeps growing, else None. Either the last GROWING_SAMPLES samples each grew,
    or, since the last time it shrank, it grew at SLOW_RISES samples (a graph kept every N
    steps leaves equal sizes between its rises)."""
    recent = list(sizes)[-GROWING_SAMPLES:]
    if len(recent) == GROWING_SAMPLES and all(a < b for a, b in zip(recent, recent[1:])):
        return (recent[-1] - recent[0]) / ((GROWING_SAMPLES - 1) * SAMPLE_EVERY)
    rises: list[int] = []
    for index in range(len(sizes) - 1, 0, -1):
        if sizes[index] < sizes[index - 1]:
            break
        if sizes[index] > sizes[index - 1]:
            rises.append(index)
    if len(rises) < SLOW_RISES or rises[0] != len(sizes) - 1:
        return None  # too few rises, or none at this sample: it may have stopped growing
    first, last = rises[-1], rises[0]
    return (sizes[last] - sizes[first]) / ((last - first) * SAMPLE_EVERY)
