"""Fingerprint digests traded between ranks through the c10d store, never blocking.

Each rank publishes, every few steps, a *window*: the digest of its replicas'
fingerprint at every step since its previous window, under
`window/<rank>/<seq>`. Rank 0 (the hub) reads every rank's windows; every other
rank reads only rank 0's, so the store serves O(world size) keys per round.
Keys also carry the exchange's generation in this process (`g0/...`), so a
second session in the same script does not read the first one's windows.
Reads are `check` (does the key exist? answered at once) then `get` of keys
known to exist: nothing here waits for another rank, except `wait_for` at the
end of the run, which is bounded by a deadline.

When digests disagree at a step, the ranks involved publish that step's full
fingerprint under `g<n>/full/<rank>/<step>`, which names the first differing tensor.
"""
from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

POLL_INTERVAL_S = 0.05
_generations = itertools.count()  # exchanges made in this process, in order: the same on every rank


@dataclass
class PeerRecord:
    """What one other rank has published so far."""

    digests: dict[int, str] = field(default_factory=dict)  # step -> digest
    layout: str | None = None
    next_seq: int = 0
    final: bool = False  # it published its last window (its run ended)
    last_step: int = 0


class ReplicaExchange:
    def __init__(self, store: Any, rank: int, world_size: int) -> None:
        self.store = store
        self.rank = rank
        self.peers: dict[int, PeerRecord] = {
            peer: PeerRecord() for peer in (range(world_size) if rank == 0 else (0,)) if peer != rank}
        self.bytes_sent = 0
        self.bytes_received = 0
        self._seq = 0
        self._space = f"g{next(_generations)}"  # a second session in the process reads its own keys

    @property
    def hub(self) -> bool:
        return self.rank == 0

    def publish(self, steps: list[int], digests: list[str], layout: str, final: bool = False) -> int:
        """Publish one window; returns the bytes sent."""
        payload = json.dumps({"steps": steps, "digests": digests, "layout": layout, "final": final},
                             separators=(",", ":")).encode()
        key = f"{self._space}/window/{self.rank}/{self._seq}"
        self.store.set(key, payload)
        self._seq += 1
        sent = len(payload) + len(key)
        self.bytes_sent += sent
        return sent

    def poll(self) -> None:
        """Read every window the peers have published since the last poll."""
        for peer, record in self.peers.items():
            while not record.final:
                key = f"{self._space}/window/{peer}/{record.next_seq}"
                if not self.store.check([key]):
                    break
                payload = self.store.get(key)
                self.bytes_received += len(payload)
                window = json.loads(payload)
                record.next_seq += 1
                record.layout = window["layout"]
                record.final = bool(window["final"])
                record.digests.update(zip(window["steps"], window["digests"]))
                if window["steps"]:
                    record.last_step = max(record.last_step, max(window["steps"]))

    def publish_full(self, step: int, packed: bytes) -> None:
        key = f"{self._space}/full/{self.rank}/{step}"
        self.store.set(key, packed)
        self.bytes_sent += len(packed) + len(key)

    def full_of(self, peer: int, step: int) -> bytes | None:
        key = f"{self._space}/full/{peer}/{step}"
        if not self.store.check([key]):
            return None
        packed = self.store.get(key)
        self.bytes_received += len(packed)
        return bytes(packed)

    def all_final(self) -> bool:
        return all(record.final for record in self.peers.values())

    def silent_peers(self) -> list[int]:
        return [peer for peer, record in self.peers.items() if not record.final]

    def forget_through(self, step: int) -> None:
        for record in self.peers.values():
            for old in [s for s in record.digests if s <= step]:
                del record.digests[old]


def wait_for(done: Callable[[], bool], poll: Callable[[], None], deadline: float) -> bool:
    """Poll until `done()` or the monotonic `deadline`; True when done."""
    while True:
        poll()
        if done():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_INTERVAL_S)
