"""DDP replicas that drift apart: parameters (or unbroadcast buffers) that differ across ranks.

At every step, before the optimizer update, the replicated tensors are
fingerprinted (two norms per tensor) and the digest kept. Every `every` steps
(and on the first steps, and at the end) the digests since the last exchange go
to the other ranks through the c10d store (see `sanitizer.distributed.exchange`), so the first
step at which replicas differ is found exactly even though ranks talk rarely.
The event carries that step, the ranks that differ and the first differing
tensor. Checked once: replicas that diverged stay diverged.
"""
from __future__ import annotations

import os
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from torch import nn

from sanitizer.detectors.base import Detector
from sanitizer.distributed import ranks, replicas
from sanitizer.distributed.exchange import ReplicaExchange, wait_for

if TYPE_CHECKING:
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink

EVERY_STEPS = 50  # exchange period; override with SANITIZER_DIVERGENCE_EVERY
FIRST_STEPS = 3  # steps exchanged one by one at the start: a wrong broadcast shows at once
END_WAIT_S = 5.0  # how long the end of the run waits for the other ranks' last windows
HISTORY_STEPS = 512  # full fingerprints kept for steps not yet compared


class RankDivergenceDetector(Detector):
    name = "rank_divergence"
    kinds = ("rank_divergence",)

    def __init__(self) -> None:
        self.every = _env_number("SANITIZER_DIVERGENCE_EVERY", EVERY_STEPS, int, minimum=1)
        self.end_wait_s = _env_number("SANITIZER_DIVERGENCE_END_WAIT", END_WAIT_S, float, minimum=0.0)
        self.fingerprinted_steps = 0
        self.exchanges = 0
        self.compared_through = 0  # every step up to this one was compared and agreed
        self.tensors = 0
        self.bytes_sent = 0
        self.divergent_step: int | None = None
        self.status = "inactive"
        self._info = ranks.rank_info()
        self._disabled = False  # turned off for good (a store gone, tensors that are not replicas)
        self._exchange: ReplicaExchange | None = None
        self._named: list[tuple[str, Any]] = []
        self._roots: list[int] = []
        self._layout = ""
        self._history: OrderedDict[int, tuple[str, bytes]] = OrderedDict()  # step -> (digest, fingerprint)
        self._unpublished: list[int] = []
        self._pending: tuple[int, int, list[int], dict[int, str]] | None = None  # step, peer, ranks, digests

    # ------------------------------------------------------------------ callbacks
    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if record.partial or self.status == "done" or self._disabled or not self._ready(sink):
            return
        step = record.step
        packed = replicas.fingerprint([tensor for _, tensor in self._named])
        self._history[step] = (replicas.digest(packed), packed)
        while len(self._history) > HISTORY_STEPS:
            self._history.popitem(last=False)
        self._unpublished.append(step)
        self.fingerprinted_steps += 1
        if step <= FIRST_STEPS or step % self.every == 0:
            self._round(sink)

    def on_end(self, sink: Sink) -> None:
        exchange = self._exchange
        if exchange is None or self.status not in ("watching", "done"):
            return
        try:
            if self.status != "done":
                self._publish(final=True)
            deadline = time.monotonic() + self.end_wait_s

            def settled() -> bool:
                self._compare(sink)
                if self.status == "done":
                    return self._pending is None
                return exchange.all_final()

            def poll() -> None:
                exchange.poll()

            if not wait_for(settled, poll, deadline):
                self._give_up(sink, exchange)
            self.bytes_sent = exchange.bytes_sent
        except Exception as exc:  # the store went away with the job: say so, never raise
            self._disable(sink, f"store unavailable at the end of the run ({type(exc).__name__}: {exc})")

    # ------------------------------------------------------------------- setup
    def _ready(self, sink: Sink) -> bool:
        """True once there is a store and DDP replicas to fingerprint. Until the exchange
        is set up, the process group is asked at each step: a script that starts its own
        workers (`mp.spawn`) is distributed only once it has initialised its group."""
        if self._exchange is None:
            self._info = ranks.in_group(self._info)
            if not self._info.distributed:
                self.status = "off"
                return False
            self.status = "inactive"
            store = ranks.side_store(self._info)
            if store is None:
                return False  # the script has not initialised its process group yet
            self._exchange = ReplicaExchange(store, self._info.rank, self._info.world_size)
        roots = [id(root) for _, root in sink.model_roots()]
        if roots != self._roots or not self._named:
            self._roots = roots
            self._named = replicas.replicated_tensors(root for _, root in sink.model_roots())
            self._layout = replicas.layout_digest(self._named)
            self.tensors = len(self._named)
        if self._named and self.status == "inactive":
            self.status = "watching"
        return bool(self._named)

    # ---------------------------------------------------------------- exchange
    def _round(self, sink: Sink) -> None:
        exchange = self._exchange
        assert exchange is not None
        try:
            self._publish(final=False)
            exchange.poll()
            self._compare(sink)
        except Exception as exc:
            self._disable(sink, f"store unavailable ({type(exc).__name__}: {exc})")

    def _publish(self, final: bool) -> None:
        exchange = self._exchange
        assert exchange is not None
        steps = [step for step in self._unpublished if step in self._history]
        exchange.publish(steps, [self._history[step][0] for step in steps], self._layout, final=final)
        self._unpublished.clear()
        self.exchanges += 1
        self.bytes_sent = exchange.bytes_sent

    def _compare(self, sink: Sink) -> None:
        """Compare digests step by step as far as every peer has published."""
        exchange = self._exchange
        assert exchange is not None
        if self._pending is not None:
            self._resolve(sink)
            return
        if self.status == "done":
            return
        for peer, record in exchange.peers.items():
            if record.layout is not None and record.layout != self._layout:
                self._disable(sink, f"rank {peer} holds different DDP tensors than rank "
                                       f"{self._info.rank}: not replicas, not compared")
                return
        for step, (digest, packed) in list(self._history.items()):
            if step <= self.compared_through:
                continue
            if not all(step in record.digests for record in exchange.peers.values()):
                break
            digests = {self._info.rank: digest}
            digests.update({peer: record.digests[step] for peer, record in exchange.peers.items()})
            if len(set(digests.values())) > 1:
                self._diverged(sink, step, packed, digests)
                return
            self.compared_through = step
        exchange.forget_through(self.compared_through)
        for step in [s for s in self._history if s <= self.compared_through]:
            del self._history[step]

    def _diverged(self, sink: Sink, step: int, packed: bytes, digests: dict[int, str]) -> None:
        exchange = self._exchange
        assert exchange is not None
        exchange.publish_full(step, packed)
        reference = _reference_digest(digests)
        deviating = sorted(rank for rank, value in digests.items() if value != reference)
        mine = digests[self._info.rank]
        peer = min(rank for rank, value in digests.items() if value != mine)
        self.divergent_step = step
        self.status = "done"
        self._pending = (step, peer, deviating, digests)
        self._resolve(sink)

    def _resolve(self, sink: Sink) -> None:
        """Name the first differing tensor once the peer's full fingerprint is there."""
        assert self._pending is not None and self._exchange is not None
        step, peer, _, _ = self._pending
        theirs = self._exchange.full_of(peer, step)
        if theirs is not None:
            self._report(sink, self._history[step][1], theirs)

    def _report(self, sink: Sink, mine: bytes | None, theirs: bytes | None) -> None:
        assert self._pending is not None
        step, peer, deviating, digests = self._pending
        self._pending = None
        index = replicas.first_difference(mine, theirs) if mine is not None and theirs is not None else None
        tensor_name = self._named[index][0] if index is not None and index < len(self._named) else None
        tensor = self._named[index][1] if tensor_name is not None else None
        is_param = isinstance(tensor, nn.Parameter)
        groups = _groups(digests)
        rank = self._info.rank
        if rank == 0:
            tie = len(groups) > 1 and len(groups[0]) == len(groups[1])
            who = ("no majority" if tie else
                   f"rank {deviating[0]} differs from the others" if len(deviating) == 1
                   else f"ranks {', '.join(map(str, deviating))} differ from the others")
            message = f"DDP replicas differ ({_describe(groups)}): {who}"
        else:
            message = f"this rank's DDP replica differs from rank {peer}'s"
        last_agreed = self.compared_through if self.compared_through else None
        message += f"; first differing tensor: {tensor_name}" if tensor_name else \
            "; the first differing tensor is unknown (the other rank's fingerprint never arrived)"
        sink.emit("rank_divergence", step, message,
                  param=tensor_name if is_param else None,
                  module=_owner_name(tensor_name),
                  extra={"ranks": deviating, "groups": groups, "compared_with": peer,
                            "tensor": tensor_name, "last_agreeing_step": last_agreed})

    # ------------------------------------------------------------------ endings
    def _give_up(self, sink: Sink, exchange: ReplicaExchange) -> None:
        if self._pending is not None:
            step = self._pending[0]
            self._report(sink, self._history.get(step, (None, None))[1], None)
            return
        silent = exchange.silent_peers()
        if silent:
            last = {peer: exchange.peers[peer].last_step for peer in silent}
            told = ", ".join(f"rank {peer} through step {step}" for peer, step in last.items())
            sink.note(f"rank_divergence: no final fingerprints from {told} within "
                      f"{self.end_wait_s:g}s (stopped or died); replicas were compared "
                      f"through step {self.compared_through}")

    def _disable(self, sink: Sink, reason: str) -> None:
        self.status = "off"
        self._disabled = True
        self._pending = None
        sink.note(f"rank_divergence: {reason}")


def _reference_digest(digests: dict[int, str]) -> str:
    """The digest most ranks hold; on a tie, the one of the lowest rank among the tied."""
    groups = _groups(digests)
    return digests[groups[0][0]]


def _groups(digests: dict[int, str]) -> list[list[int]]:
    """Ranks grouped by digest, largest group first (then by lowest rank)."""
    by_digest: dict[str, list[int]] = {}
    for rank in sorted(digests):
        by_digest.setdefault(digests[rank], []).append(rank)
    return sorted(by_digest.values(), key=lambda ranks: (-len(ranks), ranks[0]))


def _describe(groups: list[list[int]]) -> str:
    return " vs ".join("ranks " + ",".join(map(str, g)) if len(g) > 1 else f"rank {g[0]}" for g in groups)


def _owner_name(tensor_name: str | None) -> str | None:
    return tensor_name.rpartition(".")[0] or None if tensor_name else None


def _env_number(name: str, default: Any, kind: type, minimum: Any) -> Any:
    try:
        return max(kind(os.environ[name]), minimum)
    except (KeyError, ValueError):
        return default
