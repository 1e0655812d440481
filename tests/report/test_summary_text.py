from sample_reports import HOSTILE, make_merged, make_report

from sanitizer.report.summary_text import LISTED_EVENTS, format_summary


def test_summary_names_the_run_counts_events_and_diagnosis():
    text = format_summary(make_report(steps=1200))
    lines = text.splitlines()
    assert lines[0] == (
        "sanitizer: train.py --lr 3e-4 --note '<b>bold</b>' | exit code 1 | 1200 steps in 1 m 24 s | cpu"
    )
    assert lines[1] == "5 events: 1 error, 3 warnings, 1 info"
    assert "  error    nonfinite_loss    x1  first at step 1140" in lines
    assert "  info     unused_parameter  x1" in lines
    assert lines[-1].startswith("diagnosis: The loss became NaN at step 1140")
    assert not text.endswith("\n")


def test_events_are_listed_in_step_order_with_their_location():
    lines = format_summary(make_report(steps=1200)).splitlines()
    listed = lines[lines.index("first events:") + 1 :]
    assert listed[0] == (
        "  step 480: warning grad_spike: gradient norm 40x its running median "
        "(module encoder.layers.3.attn, train.py:57)"
    )
    assert listed[3].startswith(f"  step 1140: error nonfinite_loss: {HOSTILE}")
    assert listed[4] == "  at end: info unused_parameter: head.bias never received a gradient (param head.bias)"


def test_a_clean_run_says_so():
    report = {"script": "ok.py", "argv": ["ok.py"], "exit_code": 0, "steps": 3, "duration_s": 0.5,
              "device": "cpu", "events": [], "summary": {"counts": {}, "diagnosis": ""}}
    assert format_summary(report) == (
        "sanitizer: ok.py | exit code 0 | 3 steps in 0.5 s | cpu\nno events: no problems found"
    )


def test_missing_fields_do_not_break_the_summary():
    assert format_summary({}) == "sanitizer: ? | exit code ? | ? steps in ?\nno events: no problems found"
    text = format_summary({"events": [{"message": "multi\nline   text"}, "not an event"]})
    assert "  at end: info unknown: multi line text" in text.splitlines()


def test_long_event_lists_are_cut_with_a_count():
    events = [{"kind": "grad_spike", "severity": "warning", "step": i, "message": "m"} for i in range(25)]
    lines = format_summary({"events": events}).splitlines()
    assert lines[1] == "25 events: 25 warnings"
    assert lines[-1] == f"  ... and {25 - LISTED_EVENTS} more in the report"


def test_merged_reports_show_ranks_on_each_event():
    text = format_summary(make_merged(world_size=2, steps=100))
    assert "| 2 ranks" in text.splitlines()[0]
    assert "10 events: 2 errors, 6 warnings, 2 infos" in text
    assert "  rank 1 step 40: warning grad_spike: gradient norm 40x its running median" in text
    assert text.splitlines()[-1] == "diagnosis: Rank 2 diverged first."
