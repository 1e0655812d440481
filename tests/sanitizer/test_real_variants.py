"""Real-style scripts written in a way the sanitizer misjudged: a DQN whose target
network is rebuilt with `copy.deepcopy` at each sync, a model given its batch by
keyword, after an empty cache or inside a dict (the batch's size and origin were
read from the first positional argument only). Each runs as under plain python:
same output, same exit status."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns

CALLS = ["keywords", "cache", "dict"]
PRELAUNCH += [("dqn_rebuilt_target.py",), ("plain", "dqn_rebuilt_target.py"),
              *[("keyword_batches.py", "--call", call) for call in CALLS],
              *[("keyword_batches.py", "--data", "slices", "--memorise", "--call", call) for call in CALLS],
              ("plain", "keyword_batches.py", "--call", "dict")]


def _kinds(events: list[dict[str, object]]) -> list[object]:
    return [event["kind"] for event in events]


def test_a_target_network_rebuilt_by_deepcopy_is_one(script_runs: ScriptRuns) -> None:
    """Each sync made the TD loss jump: a loss_spike and a grad_spike at step 201 when the
    copy was not seen as a target network."""
    run = script_runs.get("dqn_rebuilt_target.py")
    plain = script_runs.plain("dqn_rebuilt_target.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()
    notes = run.report["summary"]["notes"]
    assert any("target network" in note and "not judged" in note for note in notes), notes


@pytest.mark.parametrize("call", CALLS)
def test_a_batch_given_by_keyword_or_after_a_cache_or_in_a_dict_has_its_size(script_runs: ScriptRuns,
                                                                             call: str) -> None:
    """Each epoch ends on a batch of one sequence: its gradient was judged a spike of the
    full batches' (a grad_spike at step 63) while the batch's size was unknown."""
    run = script_runs.get("keyword_batches.py", "--call", call)
    assert run.returncode == 0, run.stderr
    assert _kinds(run.events()) == ["overfitting"], run.events()
    if call == "dict":
        plain = script_runs.plain("keyword_batches.py", "--call", "dict")
        assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout)


@pytest.mark.parametrize("call", CALLS)
def test_a_batch_given_by_keyword_tells_an_evaluation_on_the_training_data(script_runs: ScriptRuns,
                                                                          call: str) -> None:
    """The evaluation on the training tensor was taken for validation and averaged
    into it: the overfitting's last validation loss was half the one printed."""
    run = script_runs.get("keyword_batches.py", "--data", "slices", "--memorise", "--call", call)
    assert run.returncode == 0, run.stderr
    (event,) = run.events()
    assert event["kind"] == "overfitting" and event["val_end"] == pytest.approx(
        float(run.stdout.split("val ")[-1]), abs=1e-4), event
