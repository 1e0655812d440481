"""Real-style scripts written in a way the sanitizer misjudged: a DQN whose target
network is rebuilt with `copy.deepcopy` at each sync. Each runs as under plain
python: same output, same exit status."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("dqn_rebuilt_target.py",), ("plain", "dqn_rebuilt_target.py")]


def test_a_target_network_rebuilt_by_deepcopy_is_one(script_runs: ScriptRuns) -> None:
    """Each sync made the TD loss jump: a loss_spike and a grad_spike at step 201 when the
    copy was not seen as a target network."""
    run = script_runs.get("dqn_rebuilt_target.py")
    plain = script_runs.plain("dqn_rebuilt_target.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.events() == [], run.events()
    notes = run.report["summary"]["notes"]
    assert any("target network" in note and "not judged" in note for note in notes), notes
