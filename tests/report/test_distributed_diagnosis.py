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


def test_the_same_event_on_another_rank_is_said_to_be_there_too_not_counted_as_more():
    """DDP all-reduces a NaN gradient to every rank: rank 1's event is rank 0's seen again."""
    from sample_reports import make_merged
    report = make_merged(world_size=2, steps=5)
    same = {"module": "fc", "param": "fc.weight"}
    report["events"] = [_event("nonfinite_grad", 5, **same), {**_event("nonfinite_grad", 5, **same), "rank": 1},
                        _event("loss_spike", 2), {**_event("loss_spike", 3), "rank": 1}]
    for rank in report["ranks"]:
        rank["summary"] = {"counts": {}}
    problem = next(problem for problem in diagnose(report) if problem.kind == "nonfinite_grad")
    assert "(also on rank 1)" in problem.headline and "more" not in problem.headline, problem.headline
    spike, = problem.symptoms  # the spikes before it, on two ranks at two steps: more of them
    assert spike.endswith("(+1 more)") and "also on" not in spike, spike
