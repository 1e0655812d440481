"""The diagnosis of one rank's report (and of a merged one) where the cause was on
another rank."""
from __future__ import annotations

from sample_reports import make_report

from sanitizer.report.diagnosis import diagnose

PEER_CLOSED = ("RuntimeError: [../gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:44960. "
               "This is typically caused by a remote worker crashing.")


def _event(kind: str, step: int, **fields) -> dict:
    return {"kind": kind, "severity": "error", "step": step, "rank": 0, "message": kind, **fields}


def test_a_collective_that_lost_its_peer_is_not_blamed_on_the_nan():
    report = make_report(steps=5, world_size=2)
    report.update(events=[_event("nonfinite_grad", 5), _event("nonfinite_activation", 6)], summary={"counts": {}},
                  ending={"how": "exception", "detail": PEER_CLOSED, "where": "train.py:15", "step": 6,
                          "peer_lost": True})
    headline = diagnose(report)[0].headline
    assert headline.startswith("the script crashed because another rank stopped"), headline
    assert "non-finite" not in headline and "Connection closed by peer" in headline
