"""What a function does to what it hands on, once its summary is closed: a loader
handed as it is to a function whose loop copies its batches with `non_blocking=True`
(TL502), and a model handed to an imported function no summary tells (TL405)."""

from __future__ import annotations

from trainlint.summaries import Call, Summary, close

_RUN_EPOCH = Summary(params=("model", "loader"), copies_non_blocking=frozenset({"loader"}))


def _fit(callee: str) -> Summary:
    """`def fit(model, loader): callee(model, loader)`, handing both on as given."""
    return Summary(params=("model", "loader"), events=(Call(callee, (("#0", "model"), ("#1", "loader"))),),
                   copies_through=(("model", callee, "#0"), ("loader", callee, "#1")))


def test_a_loader_handed_on_is_copied_by_each_function_of_the_chain() -> None:
    closed = close({"train": _fit("fit"), "fit": _fit("engine.run_epoch")},
                   lambda name: _RUN_EPOCH if name == "engine.run_epoch" else None)
    assert closed["fit"].copies_non_blocking == {"loader"}
    assert closed["train"].copies_non_blocking == {"loader"}


def test_a_chain_of_calls_in_a_cycle_ends() -> None:
    """`fit` and `warmup` calling each other: closed in bounded rounds, both copying."""
    fit = _fit("warmup")
    fit = Summary(params=fit.params, events=(*fit.events, Call("engine.run_epoch", (("#1", "loader"),))),
                  copies_through=(*fit.copies_through, ("loader", "engine.run_epoch", "#1")))
    closed = close({"fit": fit, "warmup": _fit("fit")},
                   lambda name: _RUN_EPOCH if name == "engine.run_epoch" else None)
    assert closed["warmup"].copies_non_blocking == {"loader"}


def test_a_function_that_copies_nothing_gives_nothing() -> None:
    closed = close({"fit": _fit("engine.count")}, lambda name: Summary(params=("model", "loader")))
    assert not closed["fit"].copies_non_blocking


def test_a_model_handed_to_an_import_out_of_reach_may_be_switched() -> None:
    prepare = Summary(params=("model", "epoch"), events=(
        Call("dropout_tools.configure", (("#0", "model"),), imported=True),
        Call("tracker.log", (("#0", "epoch"),)),  # a method of an object: not told either way
    ))
    closed = close({"prepare": prepare, "main": Summary(params=("net",), events=(
        Call("prepare", (("#0", "net"),)),))})
    assert closed["prepare"].handed_away == {"model"}
    assert closed["main"].handed_away == {"net"}
    # one that a summary tells does what it tells, nothing more
    told = close({"prepare": prepare}, lambda name: Summary(params=("module",)))
    assert not told["prepare"].handed_away
