"""What closing a file's summaries looks up is listed in one place (`_callees` and
`_links` of `trainlint.summaries`): the order the file's functions are closed in,
cycles included, follows the same list `_inline` reads, so a new kind of lookup
cannot be missed by one of them."""

from __future__ import annotations

import pytest

from trainlint import summaries
from trainlint.summaries import BACKWARD, STEP, Call, Summary, close

# a function that looks up every kind of name: a call of the file and one of another
# module, a named tuple it returns, the function whose result it returns, one it hands
# a loader on to, and links to functions of another module and of the file
_EVERY_LOOKUP = Summary(
    params=("model", "loader"),
    events=(Call("step", args=(("#0", "model"),)), Call("engine.train")),
    returns_fielded=(("stats.Stats", ("#0",)),),
    returns_result_of=("build",),
    forwards_through=(("model", "evaluation.run", "#0"),),
    wrapped_forwards=(("model", "step", "#0"),),
    called_through=(("loader", "evaluation.score", "#1"),),
    copies_through=(("loader", "engine.run_epoch", "#1"),),
)
_LOCAL = {"fit": _EVERY_LOOKUP, "step": Summary(params=("model",), events=(BACKWARD, STEP)),
          "build": Summary(params=())}


def test_closing_looks_up_exactly_what_the_list_names() -> None:
    asked: list[str] = []

    def external(name: str) -> Summary | None:
        asked.append(name)
        return None

    closed = close(_LOCAL, external)
    assert closed["fit"].does(BACKWARD) and closed["fit"].does(STEP)
    # the file's own link (`step` of `wrapped_forwards`) is judged by the file: not asked
    assert sorted(set(asked)) == ["engine.run_epoch", "engine.train", "evaluation.run", "evaluation.score",
                                  "stats.Stats"]
    assert summaries._callees(_EVERY_LOOKUP) == ["step", "engine.train", "stats.Stats", "build", "engine.run_epoch"]


def test_a_lookup_the_list_leaves_out_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping the returned result from the list (as a new kind of lookup added to
    `_inline` alone would be) is an error, not a callee the cycles never order."""
    listed = summaries._callees
    monkeypatch.setattr(summaries, "_callees", lambda own: [name for name in listed(own) if name != "build"])
    with pytest.raises(KeyError, match="build"):
        close(_LOCAL)


def test_a_step_hook_registered_through_a_call_keeps_its_optimizer() -> None:
    """`def prepare(opt, swa, scaler): install(swa, scaler)` registers the update on `swa`,
    not on `opt`; a call under a condition of the caller's registers nothing on every call."""
    install = Summary(params=("optimizer", "scaler"), updates_later=frozenset({("scaler", "optimizer")}))
    prepare = Summary(params=("opt", "swa", "scaler"),
                      events=(Call("install", args=(("#0", "swa"), ("#1", "scaler"))),))
    maybe = Summary(params=("opt", "scaler"),
                    events=(Call("install", args=(("#0", "opt"), ("#1", "scaler")), occasional=True),))
    closed = close({"install": install, "prepare": prepare, "maybe": maybe}, lambda name: None)
    assert closed["prepare"].updates_later == {("scaler", "swa")}
    assert closed["maybe"].updates_later == frozenset()
    assert Summary.from_json(closed["prepare"].to_json()).updates_later == {("scaler", "swa")}


def test_the_params_a_function_only_reads_survive_closing_and_the_cache() -> None:
    """`Summary.read_params` (TL104 keeps its fix for a scaler handed to such a param) is
    the function's own: closing keeps it, and the cache writes it out and back."""
    report = Summary(params=("scaler", "log"), read_params=frozenset({"scaler"}))
    closed = close({"report": report}, lambda name: None)["report"]
    assert closed.read_params == {"scaler"}
    assert Summary.from_json(closed.to_json()).read_params == {"scaler"}
