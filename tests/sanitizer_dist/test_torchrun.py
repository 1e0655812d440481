"""Real `torchrun --nproc_per_node 2` runs (gloo, CPU) under the sanitizer."""
from __future__ import annotations

from pathlib import Path

from dist_helpers import DistRuns, merge

STEPS = 12  # 64 samples, 2 ranks, batches of 8, 3 epochs


def test_healthy_ddp_run(dist_runs: DistRuns, tmp_path: Path) -> None:
    run = dist_runs.get("healthy")
    assert run.returncode == 0, run.output
    assert sorted(run.reports) == [0, 1]
    for rank, report in run.reports.items():
        assert report["rank"] == rank and report["world_size"] == 2 and report["steps"] == STEPS
        assert [e for e in report["events"] if e["severity"] == "error"] == []
        divergence = report["detectors"]["rank_divergence"]
        assert divergence["status"] == "watching" and divergence["compared_through"] == STEPS
        assert divergence["tensors"] == 4 and divergence["bytes_sent"] > 0
    done, merged = merge(run.report_paths(), tmp_path / "merged.json")
    assert done.returncode == 0, done.stderr
    assert "no problems found on any rank" in done.stdout
    assert merged["merged"] is True and [r["rank"] for r in merged["ranks"]] == [0, 1]
    assert merged["verdict"]["missing_ranks"] == [] and merged["verdict"]["stopped_ranks"] == []


def test_nan_on_rank1_only(dist_runs: DistRuns, tmp_path: Path) -> None:
    run = dist_runs.get("nan_rank1")
    assert run.returncode == 0, run.output
    activation = run.first(1, "nonfinite_activation")
    assert activation["step"] == 5 and activation["module"] == "module.1" and activation["rank"] == 1
    assert run.first(1, "nonfinite_loss")["step"] == 5
    # rank 0 computed finite outputs at step 5; it only received NaN gradients through all-reduce
    assert all(e["step"] > 5 for e in run.events(0, "nonfinite_activation"))
    assert run.first(0, "nonfinite_grad")["step"] == 5
    # ... and says so, with advice to look at the other rank rather than at its own ops
    assert run.first(0, "nonfinite_grad").get("through_allreduce") is True
    assert "another rank's non-finite gradients reached it" in run.first(0, "nonfinite_grad")["message"]
    assert "through_allreduce" not in run.first(1, "nonfinite_grad")
    advice = [p["advice"] for p in run.reports[0]["summary"]["problems"] if p["kind"] == "nonfinite_grad"]
    assert advice and "born on another rank" in advice[0], run.reports[0]["summary"]["problems"]
    assert all(e["rank"] == rank for rank in (0, 1) for e in run.events(rank))
    assert not run.events(0, "rank_divergence") and not run.events(1, "rank_divergence")  # NaN everywhere alike
    done, merged = merge(run.report_paths(), tmp_path / "merged.json")
    assert done.returncode == 1
    assert "first error: nonfinite_activation on rank 1 at step 5" in done.stdout
    first = merged["verdict"]["first"]
    assert first["nonfinite_activation"]["ranks"] == [1] and first["nonfinite_activation"]["step"] == 5
    assert first["nonfinite_grad"]["ranks"] == [0, 1]
    assert merged["events"][0]["kind"] == "nonfinite_activation" and merged["events"][0]["rank"] == 1


def test_nan_on_one_rank_through_a_compiled_ddp_model(dist_runs: DistRuns) -> None:
    """`torch.compile(DDP(model))`: the modules run inside the compiled graphs, unseen; the
    values the graphs compute are the model's, named as uncompiled DDP names it (`module`,
    as in `module.0.weight`), not `DistributedDataParallel` nor the compiler's `GraphModule`."""
    run = dist_runs.get("nan_rank1_compiled")
    assert run.returncode == 0 and "rank 1 done after 12 steps" in run.output, run.output
    activation = run.first(1, "nonfinite_activation")
    assert activation["step"] == 5 and activation["module"] == "module" and activation["rank"] == 1, activation
    assert run.first(1, "nonfinite_loss")["step"] == 5
    assert run.first(0, "nonfinite_grad")["step"] == 5 and run.first(0, "nonfinite_grad")["through_allreduce"]
    names = {"module", *(f"module.{index}" for index in range(4))}
    for rank in (0, 1):
        assert {e["module"] for e in run.events(rank) if e["module"] is not None} <= names, run.events(rank)


def test_weights_altered_on_one_rank(dist_runs: DistRuns, tmp_path: Path) -> None:
    run = dist_runs.get("altered_rank1")
    assert run.returncode == 0, run.output
    for rank in (0, 1):
        events = run.events(rank, "rank_divergence")
        assert len(events) == 1, events
        event = events[0]
        assert event["step"] == 7 and event["param"] == "module.3.weight" and event["rank"] == rank
        assert event["ranks"] == [1] and event["last_agreeing_step"] == 6
    # only the digests of steps 1-3 and of the windows at the end were exchanged: no step-by-step traffic
    assert run.reports[0]["detectors"]["rank_divergence"]["exchanges"] <= 5
    done, merged = merge(run.report_paths(), tmp_path / "merged.json")
    assert "step 7: rank_divergence (error) on ranks 0, 1 [module.3.weight]" in done.stdout
    assert merged["verdict"]["first"]["rank_divergence"]["step"] == 7


def test_set_epoch_never_called(dist_runs: DistRuns) -> None:
    run = dist_runs.get("no_set_epoch")
    assert run.returncode == 0, run.output
    for rank in (0, 1):
        events = run.events(rank, "missing_set_epoch")
        assert len(events) == 1 and events[0]["step"] == 5, events  # epoch 2 starts at step 5
        assert events[0]["set_epoch_called"] is False and "ddp_train.py" in events[0]["where"]
    assert all(not dist_runs.get("healthy").events(rank, "missing_set_epoch") for rank in (0, 1))


def test_one_rank_crashes(dist_runs: DistRuns, tmp_path: Path) -> None:
    run = dist_runs.get("crash_rank1")  # finished within the launch timeout: nothing hung
    assert run.returncode != 0
    crashed = run.reports[1]
    assert crashed["exit_code"] == 1 and crashed["steps"] == 2
    if 0 in run.reports:  # the survivor failed in its own all-reduce, or torchrun stopped it first
        assert run.reports[0]["exit_code"] != 0
    done, merged = merge(run.report_paths(), tmp_path / "merged.json")
    stopped = {entry["rank"] for entry in merged["verdict"]["stopped_ranks"]}
    assert 1 in stopped and f"rank 1 ended early: exit 1 after 2 steps" in done.stdout
    # the verdict is rank 1's own exception, not the all-reduce it broke on rank 0
    assert "verdict: rank 1 crashed in step 3: RuntimeError: rank 1 crashed at step 3" in done.stdout
    assert done.returncode == 1 and "no problems found" not in done.stdout
    assert merged["ending"]["rank"] == 1


def test_one_rank_killed(dist_runs: DistRuns, tmp_path: Path) -> None:
    run = dist_runs.get("killed_rank1")
    assert run.returncode != 0
    assert 1 not in run.reports  # SIGKILL leaves no report
    if 0 in run.reports:
        done, merged = merge(run.report_paths(), tmp_path / "merged.json")
        assert merged["verdict"]["missing_ranks"] == [1] and "rank 1: no report" in done.stdout


def test_fsdp2_fully_shard_runs_clean(dist_runs: DistRuns) -> None:
    run = dist_runs.get("fsdp2")
    assert run.returncode == 0, run.output
    for rank in (0, 1):
        report = run.reports[rank]
        assert report["exit_code"] == 0 and report["steps"] == 6
        assert run.events(rank) == [], run.events(rank)
        # sharded parameters are not replicas: nothing to compare, nothing reported
        assert report["detectors"]["rank_divergence"]["tensors"] == 0
        assert all(value is not None for value in report["series"]["grad_norm"])
