"""Paths that differ only in what they assumed about one condition are one
path: a run of `if`s that change nothing the analysis tracks does not
multiply the paths, so what an earlier condition decided is still known
many branches later."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.flow import Facts, Flow
from trainlint.semantic import SemanticModel


def _flow(source: str) -> tuple[Flow, list[Facts], frozenset]:
    module = cst.parse_module(source)
    at_clip: list[Facts] = []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            name = node.func.value
            if name == "scale":
                return facts | {"scaled"}
            if name == "clip":
                at_clip.append(facts)
        return facts

    flow = Flow(SemanticModel("paths.py", source, module), transfer)
    return flow, at_clip, flow.run(module)


def _unrelated_ifs(count: int) -> str:
    return "".join(f"if verbose_{i}:\n    log({i})\n" for i in range(count))


def test_a_condition_decided_early_is_still_known_after_many_unrelated_branches() -> None:
    source = "if amp:\n    scale()\n" + _unrelated_ifs(70) + "if amp:\n    unscale()\nelse:\n    clip()\n"
    _, at_clip, _ = _flow(source)
    assert at_clip and all("scaled" not in facts for facts in at_clip)


def test_branches_that_end_alike_leave_one_path() -> None:
    _, _, ends = _flow(_unrelated_ifs(5))  # 32 paths, under the cap, if each `if` forked
    assert len(ends) == 1
    assert next(iter(ends)).assumptions == frozenset()


def test_paths_that_differ_in_facts_stay_apart() -> None:
    _, _, ends = _flow("if amp:\n    scale()\n" + _unrelated_ifs(3))
    assert {frozenset(p.facts) for p in ends} == {frozenset(), frozenset({"scaled"})}
    assert all(p.assumptions for p in ends)  # each still knows which way `amp` went


def test_a_true_and_chain_decides_each_of_its_operands() -> None:
    source = "if clip and not deepspeed:\n    scale()\nif deepspeed:\n    clip()\nif clip:\n    pass\nelse:\n    clip()\n"
    _, at_clip, _ = _flow(source)
    assert at_clip and all("scaled" not in facts for facts in at_clip)


def test_a_false_and_chain_decides_nothing() -> None:
    # `not (a and b)` says nothing of a or b alone; neither does an `or` chain
    for test in ("not (amp and cuda)", "amp or cuda"):
        _, at_clip, _ = _flow(f"if {test}:\n    scale()\nif amp:\n    clip()\n")
        assert any("scaled" in facts for facts in at_clip), test
    _, at_clip, _ = _flow("if amp and cuda:\n    pass\nelse:\n    scale()\nif amp:\n    clip()\n")
    assert any("scaled" in facts for facts in at_clip)  # the else of `a and b` may still have a true


def test_branches_that_each_add_a_fact_of_their_own_stop_the_analysis_not_the_linter() -> None:
    """Thirty independent `if`s, each adding a fact of its own, would make 2**30 fact
    sets: past 512 the body is given up (no path reaches its end) instead of taking
    time and memory exponential in the branches; what was seen before stands."""
    module = cst.parse_module("clip()\n" + "".join(f"if flag_{i}:\n    mark_{i}()\n" for i in range(30)) + "clip()\n")
    seen: list[Facts] = []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value == "clip":
                seen.append(facts)
            else:
                return facts | {node.func.value}
        return facts

    flow = Flow(SemanticModel("paths.py", "", module), transfer)
    assert flow.run(module) == frozenset()
    assert seen == [frozenset()]  # the first clip, before the branches


def test_a_match_whose_last_case_takes_anything_leaves_no_path_around_its_cases() -> None:
    cases = "match mode:\n    case 'amp':\n        scale()\n    case {last}:\n        scale()\nclip()\n"
    for last in ("_", "other", "2 | _", "'bf16' | other", "_ as other", "(x) as y", "(2 | _) as y"):
        _, at_clip, _ = _flow(cases.format(last=last))
        assert at_clip == [frozenset({"scaled"})], last


def test_a_match_may_match_no_case_when_the_last_is_guarded_or_a_value() -> None:
    cases = "match mode:\n    case 'amp':\n        scale()\n    case {last}:\n        scale()\nclip()\n"
    for last in ("_ if amp", "'bf16'", "'bf16' | 'fp16'", "'bf16' as other", "(2 | _) as y if amp"):
        _, at_clip, _ = _flow(cases.format(last=last))
        assert frozenset() in at_clip, last


def test_a_body_run_repeatedly_carries_its_late_facts_into_its_next_iteration() -> None:
    source = "for batch in loader:\n    clip()\n    if batch:\n        continue\n    scale()\n"
    module = cst.parse_module(source)
    at_clip: list[Facts] = []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        name = node.func.value if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) else None
        if name == "clip":
            at_clip.append(facts)
        return facts | {"scaled"} if name == "scale" else facts

    loop = module.body[0]
    Flow(SemanticModel("paths.py", source, module), transfer).run_repeated(loop, loop.body)  # type: ignore[attr-defined]
    assert set(at_clip) == {frozenset(), frozenset({"scaled"})}


def _seen(source: str) -> list[tuple[str, Facts]]:
    """Each call of a plain name the flow reads (in the body of the first statement when
    that defines a function), in order, with the names called before it on its path."""
    module = cst.parse_module(source)
    seen: list[tuple[str, Facts]] = []

    def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            seen.append((node.func.value, facts))
            return facts | {node.func.value}
        return facts

    function = module.body[0]
    Flow(SemanticModel("paths.py", source, module), transfer).run(
        function.body if isinstance(function, cst.FunctionDef) else module)
    return seen


def _before(seen: list[tuple[str, Facts]], name: str) -> set[Facts]:
    return {facts for called, facts in seen if called == name}


def test_the_arms_of_a_conditional_expression_are_alternatives_after_its_test() -> None:
    seen = _seen("scale() if ready() else step()\nclip()\n")
    assert [name for name, _ in seen][0] == "ready"  # the test runs first, though written between the arms
    assert _before(seen, "step") == {frozenset({"ready"})}  # never after the other arm
    assert _before(seen, "clip") == {frozenset({"ready", "scale"}), frozenset({"ready", "step"})}


def test_a_conditional_expression_decides_its_test_for_later_ifs() -> None:
    seen = _seen("scale() if amp else None\nif amp:\n    unscale()\nelse:\n    clip()\n")
    assert _before(seen, "clip") == {frozenset()}


def test_the_right_operand_of_and_or_runs_on_some_paths_only() -> None:
    seen = _seen("amp and scale()\nclip()\n")
    assert _before(seen, "clip") == {frozenset(), frozenset({"scale"})}
    seen = _seen("done() or scale()\nclip()\n")
    assert _before(seen, "clip") == {frozenset({"done"}), frozenset({"done", "scale"})}


def test_a_conditional_expression_in_a_returned_value_runs_before_the_return() -> None:
    seen = _seen("def f(amp):\n    return scale() if ready() else step()\n")
    assert _before(seen, "step") == {frozenset({"ready"})}
