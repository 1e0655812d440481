"""The distributed pieces in one process: sampler patches, the store exchange's
bounded waits, fingerprints, and the merge verdict."""
from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from sanitizer.core.session import Sanitizer
from sanitizer.detectors.rank_divergence import RankDivergenceDetector
from sanitizer.distributed import merge, ranks, replicas
from sanitizer.distributed.exchange import ReplicaExchange
from sanitizer.report.merged import merge_reports


def _epochs(calls: str, shuffle: bool = True, peek: bool = False) -> list[dict[str, Any]]:
    """Three epochs of training over a DistributedSampler (no process group needed with
    explicit ranks); `peek` looks at one batch before each epoch's set_epoch."""
    data = TensorDataset(torch.arange(16.0).unsqueeze(1))
    sampler = DistributedSampler(data, num_replicas=2, rank=0, shuffle=shuffle)
    loader = DataLoader(data, batch_size=4, sampler=sampler)
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    original_iter = DistributedSampler.__iter__
    with Sanitizer(report=None, checks=["missing_set_epoch"]) as session:
        assert DistributedSampler.__iter__ is not original_iter
        for epoch in range(3):
            if peek:
                next(iter(loader))
            if calls == "every":
                sampler.set_epoch(epoch)
            elif calls == "same":
                sampler.set_epoch(0)
            for (x,) in loader:
                model(x).pow(2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()
            if peek:
                next(iter(loader))  # a look after the epoch is no epoch either
    assert DistributedSampler.__iter__ is original_iter  # restored on exit
    return [event.to_json() for event in session.events]


def test_missing_set_epoch_reported_once_at_the_second_epoch() -> None:
    for peek in (False, True):
        events = _epochs("never", peek=peek)
        assert [(e["kind"], e["step"], e["iteration"], e["set_epoch_called"]) for e in events] == [
            ("missing_set_epoch", 3, 2, False)]  # 2 steps per epoch: epoch 2 starts at step 3
        assert "never called" in events[0]["message"] and "training epoch 2 " in events[0]["message"]
        assert "test_dist_units.py" in events[0]["where"]


def test_set_epoch_with_a_constant_epoch_is_reported() -> None:
    events = _epochs("same")
    assert len(events) == 1 and events[0]["set_epoch_called"] is True and events[0]["epoch"] == 0


def test_set_epoch_every_epoch_or_no_shuffle_is_fine() -> None:
    assert _epochs("every") == []
    assert _epochs("every", peek=True) == []  # the peek iterates with the previous epoch: no epoch
    assert _epochs("never", shuffle=False) == []


def test_a_sampler_only_looked_at_is_not_judged() -> None:
    data = TensorDataset(torch.arange(16.0).unsqueeze(1))
    loader = DataLoader(data, batch_size=4, sampler=DistributedSampler(data, num_replicas=2, rank=0))
    with Sanitizer(report=None, checks=["missing_set_epoch"]) as session:
        for _ in range(3):
            list(loader)  # iterated, but no step ever ran
    assert session.events == []


class FakeSink:
    """What RankDivergenceDetector uses of its sink."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model
        self.notes: list[str] = []
        self.emitted: list[tuple[str, int | None, str, dict[str, Any]]] = []
        self.step = 1

    def model_roots(self) -> list[tuple[str, nn.Module]]:
        return [("", self.model)]

    def emit(self, kind: str, step: int | None, message: str, **fields: Any) -> None:
        self.emitted.append((kind, step, message, fields))

    def note(self, line: str) -> None:
        self.notes.append(line)


def _detector(monkeypatch: Any, store: Any, rank: int) -> RankDivergenceDetector:
    """Rank `rank` of 2 on a shared in-process store; every parameter of the sink's
    model counts as replicated (no DDP needed)."""
    monkeypatch.setenv("RANK", str(rank))
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("SANITIZER_DIVERGENCE_EVERY", "4")
    monkeypatch.setenv("SANITIZER_DIVERGENCE_END_WAIT", "0.5")
    monkeypatch.setattr(ranks, "side_store", lambda info: dist.PrefixStore(f"r{info.restart}", store))
    monkeypatch.setattr(replicas, "replicated_tensors",
                        lambda roots: [named for root in roots for named in root.named_parameters()])
    return RankDivergenceDetector()


def _record(step: int) -> Any:
    return type("Record", (), {"step": step, "partial": False})()


def test_a_silent_peer_costs_a_bounded_wait_and_a_note(monkeypatch: Any) -> None:
    store = dist.HashStore()
    detector = _detector(monkeypatch, store, 0)
    sink = FakeSink(nn.Linear(3, 2))
    for step in range(1, 10):
        detector.on_step(_record(step), sink)  # rank 1 never publishes: nothing blocks
    started = time.monotonic()
    detector.on_end(sink)
    assert time.monotonic() - started < 2.0
    assert sink.emitted == [] and "no final fingerprints from rank 1" in sink.notes[0]


def test_two_ranks_find_the_first_differing_step_and_tensor(monkeypatch: Any) -> None:
    store = dist.HashStore()
    torch.manual_seed(0)
    models = [nn.Linear(3, 2), nn.Linear(3, 2)]
    models[1].load_state_dict(models[0].state_dict())
    sinks = [FakeSink(models[0]), FakeSink(models[1])]
    detectors = [_detector(monkeypatch, store, rank) for rank in (0, 1)]
    for detector, sink in zip(detectors, sinks):
        assert detector._ready(sink)
        detector._exchange._space = "g0"  # two "ranks" in one process: one key space, as across processes
    for step in range(1, 11):
        if step == 6:
            with torch.no_grad():
                models[1].bias.add_(1e-3)
        for rank in (0, 1):
            detectors[rank].on_step(_record(step), sinks[rank])
    for rank in (0, 1):
        detectors[rank].on_end(sinks[rank])
        [(kind, step, message, fields)] = sinks[rank].emitted
        assert (kind, step, fields["param"], fields["extra"]["ranks"]) == ("rank_divergence", 6, "bias", [1])
        assert fields["extra"]["last_agreeing_step"] == 5


def test_store_keys_live_under_the_sanitizer_prefix() -> None:
    store = dist.TCPStore("127.0.0.1", 0, 1, True, timeout=timedelta(seconds=5))
    exchange = ReplicaExchange(dist.PrefixStore("p", store), rank=1, world_size=2)
    sent = exchange.publish([1, 2], ["aa", "bb"], "layout")
    assert store.check([f"p/{exchange._space}/window/1/0"]) and sent == exchange.bytes_sent > 0
    exchange.poll()  # rank 0 has published nothing: returns at once
    assert exchange.peers[0].digests == {}


def test_fingerprint_sees_a_small_change_and_names_it() -> None:
    a, b = torch.ones(100), torch.zeros(5)
    before = replicas.fingerprint([a, b])
    assert len(before) == 2 * replicas.FINGERPRINT_BYTES
    b[3] = 1e-6
    after = replicas.fingerprint([a, b])
    assert replicas.first_difference(before, after) == 1
    assert replicas.first_difference(before, before) is None


def _report(rank: int, steps: int, events: list[dict[str, Any]], exit_code: int = 0) -> dict[str, Any]:
    return {"schema": 1, "tool": "sanitizer", "rank": rank, "world_size": 3, "steps": steps,
            "exit_code": exit_code, "events": events}


def _event(kind: str, step: int, severity: str = "error", **fields: Any) -> dict[str, Any]:
    return {"kind": kind, "severity": severity, "step": step, "message": kind, **fields}


def test_merge_orders_by_step_then_cause_and_names_first_ranks() -> None:
    reports = [_report(0, 9, [_event("nonfinite_grad", 4), _event("nonfinite_param", 4)]),
               _report(1, 9, [_event("nonfinite_grad", 4), _event("nonfinite_loss", 4, module="head")])]
    merged = merge_reports(reports)
    assert [(e["kind"], e["rank"]) for e in merged["events"]] == [
        ("nonfinite_loss", 1), ("nonfinite_grad", 0), ("nonfinite_grad", 1), ("nonfinite_param", 0)]
    assert merged["verdict"]["first"]["nonfinite_grad"]["ranks"] == [0, 1]
    assert merged["verdict"]["missing_ranks"] == [2]
    assert "first error: nonfinite_loss on rank 1 at step 4" in merged["verdict"]["lines"][1]
    assert set(merged) == {"schema", "tool", "merged", "ranks", "events", "verdict"}


def test_merge_reports_ranks_that_stopped_early() -> None:
    merged = merge_reports([_report(0, 9, []), _report(1, 2, [], exit_code=1), _report(2, 9, [])])
    assert merged["verdict"]["stopped_ranks"] == [{"rank": 1, "exit_code": 1, "steps": 2, "others_steps": 9}]
    assert merged["verdict"]["errors"] == 0


def test_merge_default_output_name() -> None:
    assert merge.default_output("out/run.rank0.json") == "out/run.merged.json"
    assert merge.default_output("sanitizer-report.rank1.json") == "sanitizer-report.merged.json"


def test_a_collective_that_lost_its_peer_is_marked_as_such(monkeypatch: Any) -> None:
    closed = RuntimeError("[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:1234")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    session = Sanitizer(report=None)
    session.record_ending(closed)
    assert session.ending["peer_lost"] is True
    monkeypatch.setenv("WORLD_SIZE", "1")  # one process: a closed socket is its own problem
    session = Sanitizer(report=None)
    session.record_ending(closed)
    assert "peer_lost" not in session.ending
