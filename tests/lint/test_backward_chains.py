"""A backward on a loss a function computes itself (`Summary.computed_backwards`)
is followed through the calls that reach it, once summaries are closed: each
call adds what the caller's flags must hold for it to run (`Call.gate`) and
fixes the callee's flags by what it gives them."""

from __future__ import annotations

import pytest

from trainlint.summaries import BACKWARD, Call, Summary, close

_STEP = Summary(params=("model", "update"), events=(BACKWARD,),
                computed_backwards=((("update", True, "True"),),))


def _closed(**callers: Summary) -> dict[str, Summary]:
    return close({"step": _STEP, **callers})


def test_a_flag_handed_on_becomes_the_callers_and_its_own_test_is_added() -> None:
    fit = Summary(params=("model", "train", "log"), events=(
        Call("step", gate=((("log", False, ""),), (("#0", "", ""), ("update", "train", "False"))),),))
    assert _closed(fit=fit)["fit"].computed_backwards == ((("log", False, ""), ("train", True, "False")),)


def test_a_constant_or_default_that_skips_the_backward_and_an_unknown_call_are_not_followed() -> None:
    skipped = Summary(params=("model",), events=(Call("step", gate=((), (("#1", "", "False"),))),))
    defaulted = Summary(params=("model",), events=(Call("step", gate=((), (("#0", "", ""),))),))
    unpacked = Summary(params=("model",), events=(Call("step", gate=((), (("*", "", ""),))),))
    guarded = Summary(params=("model",), events=(Call("step"),))  # under `enable_grad()` or another test
    closed = _closed(skipped=skipped, defaulted=defaulted, unpacked=unpacked, guarded=guarded)
    assert closed["defaulted"].computed_backwards == ((),)  # `update` left to its default, True
    assert not any(closed[name].computed_backwards for name in ("skipped", "unpacked", "guarded"))


def test_a_cycle_of_calls_is_followed_once() -> None:
    ping = Summary(params=("model",), events=(Call("pong", gate=((), (("#0", "", ""),))),))
    pong = Summary(params=("model",), events=(Call("ping", gate=((), ())), Call("step", gate=((), ()))))
    closed = _closed(ping=ping, pong=pong)
    assert closed["ping"].computed_backwards == closed["pong"].computed_backwards == ((),)


@pytest.mark.parametrize("order", [("ping", "pong"), ("pong", "ping")])
def test_a_cycle_is_closed_alike_whichever_member_is_defined_first(order: tuple[str, str]) -> None:
    """`ping` runs the step and calls `pong`, which only calls `ping` back: both
    back-propagate, and both run the step, in either order of definition."""
    members = {"ping": Summary(params=("model",), events=(Call("step", gate=((), ())), Call("pong", gate=((), ())))),
               "pong": Summary(params=("model",), events=(Call("ping", gate=((), ())),))}
    closed = _closed(**{name: members[name] for name in order})
    assert closed["ping"].computed_backwards == closed["pong"].computed_backwards == ((),)
    assert closed["ping"].does(BACKWARD) and closed["pong"].does(BACKWARD)


def test_a_calls_gate_is_read_back_as_written() -> None:
    summary = Summary(params=("model", "train"), events=(
        Call("step", (("#0", "model"),), gate=((("train", True, "True"),), (("#0", "", ""), ("*", "", "")))),
        Call("fit", gate=((), ())), Call("log")))
    assert Summary.from_json(summary.to_json()) == summary
