from sample_reports import HOSTILE, make_merged, make_report

from sanitizer.report.summary_text import format_summary


def test_summary_names_the_run_then_the_problems_root_cause_first():
    lines = format_summary(make_report(steps=1200)).splitlines()
    assert lines[0] == (
        "sanitizer: train.py --lr 3e-4 --note '<b>bold</b>' | exit code 1 | 1200 steps in 1 m 24 s | cpu"
    )
    assert lines[1] == "5 problems, root cause first (5 events: 1 error, 3 warnings, 1 info):"
    numbered = [line.strip() for line in lines if line[2:3].isdigit()]
    assert [line.split(" at ")[0] for line in numbered] == [
        "1. the script crashed: RuntimeError: CUDA error: an illegal memory access was encountered (train.py:58)",
        "2. loss_spike", "3. memory_growth", "4. nonfinite_loss", "5. unused_parameter"]
    assert numbered[3].startswith(f"4. nonfinite_loss at step 1140: {HOSTILE}")


def test_a_symptom_is_folded_under_its_cause_with_evidence_and_advice():
    lines = format_summary(make_report(steps=1200)).splitlines()
    spike = lines.index("  2. loss_spike at step 480: loss 6x its running median (train.py:55)")
    assert lines[spike + 1] == "     evidence: value 9.3"
    assert lines[spike + 2].startswith("     explains: grad_spike at step 480: gradient norm 40x")
    assert lines[spike + 3].startswith("     try: the loss jumped far above its recent median")
    assert sum("grad_spike" in line for line in lines) == 1


def test_a_clean_run_says_so():
    report = {"script": "ok.py", "argv": ["ok.py"], "exit_code": 0, "steps": 3, "duration_s": 0.5,
              "device": "cpu", "events": [], "summary": {"counts": {}, "diagnosis": ""}}
    assert format_summary(report) == "sanitizer: ok.py | exit code 0 | 3 steps in 0.5 s | cpu\nno problems found in 3 steps"


def test_a_crash_without_events_is_never_a_clean_run():
    report = {"script": "t.py", "exit_code": 1, "steps": 2, "events": [],
              "ending": {"how": "exception", "detail": "ValueError: boom", "where": "t.py:12"}}
    lines = format_summary(report).splitlines()
    assert lines[1:] == ["1 problem, root cause first (no events):",
                         "  1. the script crashed: ValueError: boom (t.py:12)"]
    assert "no problems found" not in format_summary(report)


def test_missing_fields_do_not_break_the_summary():
    assert format_summary({}) == "sanitizer: ? | exit code ? | ? steps in ?\nno problems found"
    text = format_summary({"events": [{"message": "multi\nline   text"}, "not an event"]})
    assert "  1. unknown at end: multi line text" in text.splitlines()


def test_many_events_of_a_kind_are_one_problem_with_a_count():
    events = [{"kind": "grad_spike", "severity": "warning", "step": i, "message": "m"} for i in range(1, 26)]
    lines = format_summary({"events": events, "summary": {"counts": {"grad_spike": 31}}}).splitlines()
    assert lines[1] == "1 problem, root cause first (31 events: 31 warnings):"
    assert lines[2] == "  1. grad_spike at step 1: m (+30 more)"


def test_merged_reports_name_the_rank_of_each_problem():
    text = format_summary(make_merged(world_size=2, steps=100))
    assert "| 2 ranks" in text.splitlines()[0]
    assert "(10 events: 2 errors, 6 warnings, 2 infos)" in text.splitlines()[1]
    # the same spike on both ranks: seen there too, not one more
    assert "  2. loss_spike at step 40 on rank 0: loss 6x its running median (train.py:55) (also on rank 1)" in text


def test_notes_come_after_the_problems():
    report = {"steps": 0, "events": [], "summary": {"notes": ["the script never stepped an optimizer"]}}
    assert format_summary(report).splitlines()[-1] == "note: the script never stepped an optimizer"


def test_lint_findings_no_event_points_at_are_listed_after_the_verdict():
    def finding(code: str, line: int, severity: str = "error") -> dict:
        return {"path": "train.py", "line": line, "code": code, "name": f"{code.lower()}-name", "severity": severity}

    lint = [finding("TL101", 31), finding("TL202", 21), finding("TL504", 9, severity="info")]
    event = {"kind": "scale_collapse", "severity": "error", "step": 12, "message": "scale fell",
             "related": [{"path": "train.py", "line": 31, "code": "TL101", "name": "clip-before-unscale"}]}
    report = {"script": "train.py", "exit_code": 0, "steps": 40, "events": [event], "lint": lint}
    lines = format_summary(report).splitlines()
    assert lines[-2:] == ["lint, not seen at run time (1 finding):", "  train.py:21 tl202 name (TL202)"]
    warned = [finding("TL301", 3, severity="warning"), finding("TL102", 5, severity="warning"), *lint]
    assert format_summary({**report, "lint": warned}).splitlines()[-4:] == [  # errors first
        "lint, not seen at run time (3 findings):", "  train.py:21 tl202 name (TL202)",
        "  train.py:3 tl301 name (TL301)", "  train.py:5 tl102 name (TL102)"]
    clean = {"script": "train.py", "exit_code": 0, "steps": 40, "events": [], "lint": lint[2:]}
    assert format_summary(clean).splitlines()[-1] == "no problems found in 40 steps"  # info findings stay in the report
