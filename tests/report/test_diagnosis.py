"""The diagnosis in cause order: roots first with their evidence, symptoms folded under them."""
import re

import pytest
from sample_reports import make_merged, make_report
from test_html_report import Page

from sanitizer.report.diagnosis import diagnose
from sanitizer.report.html_report import render_html
from sanitizer.report.summary_text import format_summary


def _event(kind: str, step: int | None, **fields: object) -> dict:
    return {"kind": kind, "step": step, "message": f"{kind} message", **fields}


def _shape(events: list[dict], **report: object) -> list[tuple[str | None, list[str]]]:
    """(root kind, [symptom kinds]) per problem."""
    problems = diagnose({"events": events, **report})
    return [(p.kind, [line.split(" at ")[0] for line in p.symptoms]) for p in problems]


def test_underflow_explains_all_zero_gradients_but_not_a_parameter_that_never_got_one():
    events = [_event("grad_underflow", 6), _event("vanishing_grad", 30),
              _event("unused_parameter", None, param="fc1.weight", gradients="zero"),
              _event("unused_parameter", None, param="head.bias", gradients="none")]
    assert _shape(events[:3]) == [("grad_underflow", ["vanishing_grad", "unused_parameter"])]
    assert _shape([events[0], events[3]]) == [("grad_underflow", []), ("unused_parameter", [])]


def test_a_nan_explains_the_spike_that_led_to_it_and_the_verdicts_after_it():
    events = [_event("loss_spike", 50), _event("grad_spike", 98), _event("nonfinite_loss", 100),
              _event("nonfinite_grad", 100), _event("loss_spike", 101), _event("overfitting", None)]
    assert _shape(events) == [("loss_spike", []),
                              ("nonfinite_loss", ["grad_spike", "nonfinite_grad", "loss_spike", "overfitting"])]
    problems = diagnose({"events": events})
    # the loss spike after the NaN is the NaN's, no repeat of the one long before it
    assert not problems[0].headline.endswith("more)"), problems[0].headline


def test_a_nan_explains_parameters_that_stopped_learning_after_it():
    """The parameters are NaN from step 301; the ReLU after a layer passes zero gradients
    back for NaN inputs: its bias "stopped learning" at 302, a symptom. Stopped before
    the NaN, or never learning at all, it is a problem of its own."""
    nan = _event("nonfinite_input", 301)
    assert _shape([nan, _event("unused_parameter", 302, param="D.2.bias", since=302, gradients="zero")]) == [
        ("nonfinite_input", ["unused_parameter"])]
    assert _shape([nan, _event("unused_parameter", 120, param="D.2.bias", since=120, gradients="zero")]) == [
        ("unused_parameter", []), ("nonfinite_input", [])]
    assert _shape([nan, _event("unused_parameter", None, param="head.bias", gradients="none")]) == [
        ("nonfinite_input", []), ("unused_parameter", [])]


def test_a_spike_before_the_nan_it_ended_in_led_up_to_it():
    """Folded under the NaN, but never said to be explained by what came after it."""
    events = [_event("loss_spike", 23), _event("nonfinite_loss", 25), _event("nonfinite_grad", 25)]
    problem, = diagnose({"events": events})
    assert problem.kind == "nonfinite_loss" and problem.precursors == 1
    assert problem.lines()[1:3] == ["led up to it: loss_spike at step 23: loss_spike message",
                                    "explains: nonfinite_grad at step 25: nonfinite_grad message"]
    assert problem.to_json()["precursors"] == ["loss_spike at step 23: loss_spike message"]
    assert "<span class=\"label\">led up to it:</span> loss_spike at step 23" in render_html(
        {"script": "train.py", "events": events})


def test_what_a_root_explains_is_never_said_to_have_led_up_to_it_though_noticed_first():
    """A loss scale set tiny flushes gradients from the first step: they read as vanishing
    at step 5, a step before the underflow is judged at 6. That is the underflow's
    consequence: only a spike (or a divergence) before its root is said to have led up to
    it."""
    problem, = diagnose({"events": [_event("vanishing_grad", 5), _event("grad_underflow", 6)]})
    assert problem.kind == "grad_underflow" and problem.precursors == 0
    assert problem.lines()[1] == "explains: vanishing_grad at step 5: vanishing_grad message"
    assert problem.to_json()["precursors"] == []
    assert "led up to it" not in render_html({"script": "train.py", "events": [
        _event("vanishing_grad", 5), _event("grad_underflow", 6)]})


def test_a_halted_run_points_at_the_problem_it_stopped_on():
    """`--halt-on nonfinite_loss` stopped at the NaN of step 6, which the divergence of
    step 2 explains: the halt says which problem it stopped on, as a crash does."""
    events = [_event("divergence", 2), _event("nonfinite_loss", 6)]
    ending = {"how": "halted", "detail": "nonfinite_loss at step 6: the loss is NaN", "where": None,
              "kind": "nonfinite_loss", "step": 6}
    halt, root = diagnose({"events": events, "ending": ending})
    assert halt.headline == ("the sanitizer halted the run (--halt-on) on what problem 2 reports: "
                             "nonfinite_loss at step 6: the loss is NaN")
    assert root.kind == "divergence"
    unknown = diagnose({"events": events, "ending": {**ending, "kind": None, "step": None}})[0]
    assert unknown.headline.startswith("the sanitizer halted the run (--halt-on): ")


def test_a_spike_the_loss_came_back_from_before_a_blow_up_is_a_problem_of_its_own():
    """A loss spike at step 40 the loss came back from at step 41 (`recovered_step`), then
    a blow-up from step 45 that ends in NaN: the blow-up comes first with what it explains;
    the spike did not lead up to it nor follow from it, and is listed after it, saying when
    the loss came back. A spike the loss had not come back from when the blow-up began
    still led up to it, and so does one up to 3 steps before a NaN, come back from or not:
    the loss swinging on its way to the NaN (60 at step 31, 1.5, 900, NaN at step 34)."""
    spike = _event("loss_spike", 40, recovered_step=41)
    blow_up = [_event("divergence", 45), _event("nonfinite_loss", 47)]
    problems = diagnose({"events": [spike, _event("grad_spike", 40), *blow_up]})
    assert [(p.kind, [line.split(" at ")[0] for line in p.symptoms]) for p in problems] == [
        ("divergence", ["nonfinite_loss"]), ("loss_spike", ["grad_spike"])]
    assert problems[0].precursors == 0 and "recovered_step 41" in problems[1].evidence, problems
    late = {**spike, "recovered_step": 60}  # back only long after: the blow-up began with it
    led, = diagnose({"events": [late, *blow_up]})
    assert (led.kind, led.precursors, led.symptoms[0].split(" at ")[0]) == ("divergence", 1, "loss_spike"), led
    swing = [_event("loss_spike", 31, recovered_step=32), _event("nonfinite_loss", 34)]
    led, = diagnose({"events": swing})
    assert (led.kind, led.step, led.precursors, led.symptoms[0].split(" at ")[0]) == (
        "nonfinite_loss", 34, 1, "loss_spike"), led
    assert _shape([spike, _event("nonfinite_loss", 44)]) == [("nonfinite_loss", []), ("loss_spike", [])]


def test_the_first_non_finite_value_is_the_root_whatever_its_kind():
    events = [_event("nonfinite_grad", 4), _event("nonfinite_param", 4), _event("nonfinite_loss", 6)]
    assert _shape(events) == [("nonfinite_grad", ["nonfinite_param", "nonfinite_loss"])]


def test_a_buffer_written_in_a_step_follows_all_that_step_made_non_finite():
    """A buffer is reported at the step that last found it finite, written after that step's
    forward began: a weight the same step's update broke (an EMA copying it), or its
    gradients, come first; the buffer was the root ahead of them."""
    events = [_event("nonfinite_buffer", 3), _event("nonfinite_param", 3), _event("nonfinite_activation", 4)]
    assert _shape(events) == [("nonfinite_param", ["nonfinite_buffer", "nonfinite_activation"])]
    events = [_event("nonfinite_grad", 3), _event("nonfinite_buffer", 3)]
    assert _shape(events) == [("nonfinite_grad", ["nonfinite_buffer"])]


def test_weights_broken_before_the_first_update_explain_the_forward_they_break():
    """An Inf bias from its initialisation is found with the step's own values; it was
    there before the forward ran, so it is the root, not one more symptom."""
    events = [_event("nonfinite_activation", 1), _event("nonfinite_loss", 1), _event("nonfinite_grad", 1),
              _event("nonfinite_param", 1, initial=True)]
    assert _shape(events) == [("nonfinite_param", ["nonfinite_activation", "nonfinite_loss", "nonfinite_grad"])]
    after_update = [*events[:3], _event("nonfinite_param", 1)]
    assert _shape(after_update) == [("nonfinite_activation", ["nonfinite_loss", "nonfinite_grad", "nonfinite_param"])]
    # no update broke them: the advice looks at what set them
    initial, = diagnose({"events": events})
    assert "before any update" in initial.advice and "after an update" not in initial.advice
    updated, = diagnose({"events": [_event("nonfinite_param", 3)]})
    assert "after an update" in updated.advice


def test_scale_collapse_explains_what_its_skipped_steps_look_like():
    events = [_event("grad_underflow", 40), _event("scale_collapse", 60), _event("vanishing_grad", 70),
              _event("tensor_leak", 3), _event("memory_growth", 90)]
    assert _shape(events) == [("tensor_leak", ["memory_growth"]),
                              ("scale_collapse", ["grad_underflow", "vanishing_grad"])]


def test_clipping_scaled_gradients_explains_the_stalled_updates_after_it():
    events = [_event("clip_before_unscale", 1), _event("vanishing_grad", 40), _event("underfitting", None),
              _event("tensor_leak", 3)]
    assert _shape(events) == [("clip_before_unscale", ["vanishing_grad", "underfitting"]), ("tensor_leak", [])]


def test_a_forward_gone_non_finite_explains_the_scale_collapse_that_follows():
    overflow = [_event("nonfinite_activation", 1), _event("nonfinite_loss", 1), _event("scale_collapse", 12)]
    assert _shape(overflow) == [("nonfinite_activation", ["nonfinite_loss", "scale_collapse"])]
    long_after = [_event("nonfinite_loss", 1), _event("scale_collapse", 500)]  # skips of another cause
    assert _shape(long_after) == [("nonfinite_loss", []), ("scale_collapse", [])]
    gradient_only = [_event("nonfinite_grad", 3), _event("scale_collapse", 12)]  # the scaler's own overflows
    assert _shape(gradient_only) == [("scale_collapse", ["nonfinite_grad"])]


def test_what_a_folded_symptom_explains_is_folded_under_its_root_too():
    """A NaN burst under fp16 collapses the loss scale; once it stops, the tiny scale
    flushes gradients: the underflow is the NaN's doing, through the collapse."""
    events = [_event("nonfinite_activation", 30), _event("nonfinite_loss", 30), _event("scale_collapse", 41),
              _event("grad_underflow", 71)]
    assert _shape(events) == [("nonfinite_activation", ["nonfinite_loss", "scale_collapse", "grad_underflow"])]
    alone = [_event("nonfinite_activation", 30), _event("grad_underflow", 71)]  # no collapse between them
    assert _shape(alone) == [("nonfinite_activation", []), ("grad_underflow", [])]


def test_a_crash_comes_first_and_unrelated_problems_stay_apart():
    ending = {"how": "exception", "detail": "ValueError: boom", "where": "train.py:9"}
    events = [_event("dataloader_bound", None), _event("missing_set_epoch", 2)]
    problems = diagnose({"events": events, "exit_code": 1, "ending": ending})
    assert [p.headline.split(":")[0] for p in problems] == [
        "the script crashed", "missing_set_epoch at step 2", "dataloader_bound at end"]
    assert problems[0].severity == "error"


def test_a_crash_in_the_step_that_went_non_finite_names_that_problem_as_its_cause():
    """torch rejecting a NaN (`Categorical`, `binary_cross_entropy`) ends the run in the
    step where values went non-finite: the crash still comes first, and says which
    problem caused it; a crash in another step says nothing of the kind."""
    ending = {"how": "exception", "detail": "RuntimeError: all elements of input should be between 0 and 1",
              "where": "train.py:12", "step": 6}
    events = [_event("missing_set_epoch", 2), _event("nonfinite_input", 6)]
    problems = diagnose({"events": events, "exit_code": 1, "ending": ending})
    assert problems[0].headline.startswith("the script crashed in step 6, where values had gone non-finite "
                                           "(problem 3): RuntimeError")
    assert problems[2].headline.startswith("nonfinite_input at step 6")
    elsewhere = diagnose({"events": events, "exit_code": 1, "ending": {**ending, "step": 9}})
    assert elsewhere[0].headline.startswith("the script crashed: RuntimeError")


def test_a_crash_a_step_after_a_nan_update_names_that_problem_as_its_cause():
    """A NaN loss at step 20 makes the weights NaN; torch rejects the NaN output of
    step 21 (a `Categorical` of NaN logits). That output is a symptom of the step-20
    NaN, and so is the crash: it names that problem."""
    ending = {"how": "exception", "detail": "ValueError: Expected parameter logits", "where": "train.py:10",
              "step": 21}
    events = [_event("nonfinite_loss", 20), _event("nonfinite_grad", 20), _event("nonfinite_activation", 21)]
    problems = diagnose({"events": events, "exit_code": 1, "ending": ending})
    assert problems[0].headline.startswith("the script crashed in step 21, where values had gone non-finite "
                                           "(problem 2): ValueError"), problems[0].headline
    assert problems[1].kind == "nonfinite_loss" and len(problems) == 2


def test_a_later_crash_on_a_nan_names_the_update_that_left_the_weights_non_finite():
    """Weights a NaN update left NaN stay so: a crash steps later on a NaN that torch names
    (a `Categorical` of the next rollout) follows that problem. Without NaN weights, or on
    an error that names no NaN or Inf, a crash in another step says nothing of the kind."""
    detail = "ValueError: Expected parameter probs to satisfy the constraint Simplex(), but found invalid " \
             "values: tensor([nan, nan])"
    ending = {"how": "exception", "detail": detail, "where": "train.py:40", "step": 25}
    events = [_event("nonfinite_input", 22), _event("nonfinite_param", 22), _event("nonfinite_activation", 23)]
    problems = diagnose({"events": events, "exit_code": 1, "ending": ending})
    assert problems[0].headline.startswith("the script crashed in step 25, with the weights non-finite since step 22 "
                                           "(problem 2): ValueError"), problems[0].headline
    for changed in ({"ending": {**ending, "detail": "OSError: no space left on device"}},
                    {"events": events[:1] + events[2:]}, {"ending": {**ending, "step": 21}}):
        report = {"events": events, "exit_code": 1, "ending": ending, **changed}
        assert diagnose(report)[0].headline.startswith("the script crashed: "), changed


def test_a_crash_on_a_diverged_loss_names_the_divergence_it_followed():
    """The script's own guard raises on the Inf a divergence ran into (or an index computed
    from the blown-up loss overruns): the crash names the divergence, still the root. A
    crash after the loss came back (no `diverged_at_crash`) or before the divergence says
    nothing of the kind; a crash in the step of a NaN the divergence ran into says both."""
    ending = {"how": "exception", "detail": "RuntimeError: loss is inf", "where": "train.py:30", "step": 85}
    diverged = _event("divergence", 39, diverged_at_crash=True)
    problems = diagnose({"events": [_event("loss_spike", 41), diverged], "exit_code": 1, "ending": ending})
    assert problems[0].headline.startswith("the script crashed in step 85, after the loss diverged at step 39 "
                                           "(problem 2): RuntimeError"), problems[0].headline
    assert [p.kind for p in problems] == [None, "divergence"]
    for events, step in (([_event("divergence", 39)], 85), ([diverged], 30)):
        crashed = diagnose({"events": events, "exit_code": 1, "ending": {**ending, "step": step}})
        assert crashed[0].headline.startswith("the script crashed: RuntimeError"), crashed[0].headline
    nan = diagnose({"events": [_event("divergence", 39), _event("nonfinite_loss", 60)], "exit_code": 1,
                    "ending": {**ending, "step": 60}})
    assert nan[0].headline.startswith("the script crashed in step 60, where values had gone non-finite after "
                                      "the loss diverged at step 39 (problem 2)"), nan[0].headline


def test_the_sanitizers_own_errors_come_last():
    events = [_event("sanitizer_error", 1), _event("grad_spike", 5)]
    assert [kind for kind, _ in _shape(events)] == ["grad_spike", "sanitizer_error"]


def test_evidence_numbers_are_readable():
    [problem] = diagnose({"events": [_event("grad_spike", 3, value=2.2583816676799147e29, baseline=0.5)]})
    assert problem.evidence == ["value 2.26e+29", "baseline 0.5"]
    assert problem.lines()[1] == "evidence: value 2.26e+29; baseline 0.5"


SAMPLES = {
    "single": make_report(steps=1200),
    "merged": make_merged(world_size=3, steps=300),
    "underflow": {"script": "t.py", "exit_code": 0, "steps": 50, "ending": {"how": "returned"},
                  "events": [_event("grad_underflow", 6, severity="warning"),
                             _event("unused_parameter", None, severity="warning", gradients="zero")]},
    "crash": {"script": "t.py", "exit_code": 1, "steps": 2, "events": [],
              "ending": {"how": "exception", "detail": "ValueError: boom", "where": "t.py:12"}},
}


@pytest.mark.parametrize("name", SAMPLES)
def test_text_and_html_list_one_problem_per_item_root_cause_first(name: str):
    report = SAMPLES[name]
    problems = diagnose(report)
    text = format_summary(report).splitlines()
    numbered = [line.strip() for line in text if re.match(r"  \d+\. ", line)]
    assert numbered == [f"{n}. {p.headline}" for n, p in enumerate(problems, start=1)]
    page = Page(render_html(report))
    box = page.find("section", "diagnosis")
    assert len(box) == 1
    items = [attrs for tag, attrs in page.elements if tag == "li" and attrs.get("class") in
             ("error", "warning", "info")]
    assert len(items) == len(problems)
    headlines = [problem.headline for problem in problems]
    assert all(headline in "".join(page.text) for headline in headlines)
    symptoms = {line.split(":")[0] for problem in problems for line in problem.symptoms}
    assert not symptoms & {headline.split(":")[0] for headline in headlines}  # a symptom is no item
    if report.get("ending", {}).get("how") == "exception":
        assert problems[0].headline.startswith("the script crashed")


def test_a_double_unscale_crash_names_the_micro_step_rule():
    lint = [{"path": "train.py", "line": 9, "code": "TL108", "name": "unscale-every-micro-step", "severity": "error"}]
    report = {"script": "train.py", "exit_code": 1, "steps": 3, "events": [], "lint": lint,
              "ending": {"how": "exception", "where": "train.py:9", "detail": "RuntimeError: unscale_() has "
                         "already been called on this optimizer since the last update()."}}
    text = format_summary(report)
    assert ("1. the script crashed: `scaler.unscale_()` ran twice before `scaler.update()` (every micro-step?) "
            "(train.py:9, TL108): RuntimeError") in text
    assert "not seen at run time" not in text


def test_a_divergence_explains_the_spike_its_recent_losses_began_with():
    def event(kind: str, step: int) -> dict:
        return {"kind": kind, "severity": "warning", "step": step, "message": f"{kind} message"}

    report = {"script": "train.py", "exit_code": 0, "steps": 90,
              "events": [event("loss_spike", 28), event("grad_spike", 28), event("divergence", 33)]}
    problems = diagnose(report)
    assert [p.kind for p in problems] == ["divergence"], problems
    assert len(problems[0].symptoms) == 2
    early = {**report, "events": [event("loss_spike", 12), event("divergence", 33)]}
    assert [p.kind for p in diagnose(early)] == ["loss_spike", "divergence"]  # long before its window


def test_a_blow_up_explains_parameters_that_stopped_learning_at_its_own_step():
    """A learning rate 1000 times too high (a Siamese ResNet under Adadelta at lr 1000):
    the loss blows up at step 2 and every gradient is zero from step 2 on. Both are
    dated step 2; the kinds' order put the parameters first, as a root of their own."""
    blow_up = _event("divergence", 2, rule="blow-up")
    died = [_event("unused_parameter", 2, param="resnet.0.weight", since=2, gradients="zero"),
            _event("unused_parameter", 2, param="fc.0.weight", since=2, gradients="zero")]
    assert _shape([*died, blow_up, _event("vanishing_grad", 6)]) == [
        ("divergence", ["unused_parameter", "vanishing_grad"])]
    # a parameter that never got a gradient is no symptom of it, at any step
    assert _shape([_event("unused_parameter", 2, param="head.bias", gradients="none"), blow_up]) == [
        ("unused_parameter", []), ("divergence", [])]


def test_parameters_judged_at_the_end_are_judged_each_on_its_own():
    """Two parameters that got only zero gradients (fp16 flushed them) and one that never
    got a gradient: the underflow explains the first two, told once with how many more;
    the third is a problem of its own, not folded with them because it was reported after."""
    events = [_event("grad_underflow", 6),
              _event("unused_parameter", None, param="fc1.weight", gradients="zero"),
              _event("unused_parameter", None, param="fc2.weight", gradients="zero"),
              _event("unused_parameter", None, param="head.bias", gradients="none")]
    assert _shape(events) == [("grad_underflow", ["unused_parameter"]), ("unused_parameter", [])]
    underflow, unused = diagnose({"events": events})
    assert underflow.symptoms[0].endswith("(+1 more)") and "head.bias" in unused.headline, (underflow, unused)
