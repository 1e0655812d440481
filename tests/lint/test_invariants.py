"""What users run is every rule at once; the per-rule tests run one rule at a
time. These tests tie the two together over every rule example, every fixture
and every file in examples/: a rule gives the same findings alone as with all
the others, in any order, and the number of worker processes changes nothing.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from trainlint.config import Config, select_rules
from trainlint import engine
from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.rule import Finding, Rule
from trainlint.runner import RunOptions, run
from trainlint.testing import findings_of

from lint_inputs import FIXTURES, INPUTS, ROOT, findings_of_every_rule, parsed


def _lint(source: str, rules: list[type[Rule]]) -> list[Finding]:
    return lint_bytes("input.py", source.encode("utf-8"), rules).findings


def _by_rule(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.code, []).append(finding)
    return grouped


@pytest.fixture()
def one_parse_per_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests below lint one source many times over (each rule alone, the rules in
    other orders): the tree of its first parse serves them all, as LibCST's trees are
    immutable and everything a lint derives from one is its own. A tree parsed from
    the text with its indentation's tabs expanded is never reused: the lint that
    takes it learns from `engine._TAB_EXPANDED` that it is not the file's text."""
    parse, trees = engine._parse, {}

    def parsed_once(source: str) -> object:
        tree = trees.get(source)
        if tree is None:
            tree = parse(source)
            if id(tree) not in engine._TAB_EXPANDED:
                trees[source] = tree
        return tree

    monkeypatch.setattr(engine, "_parse", parsed_once)


@pytest.mark.usefixtures("one_parse_per_source")
@pytest.mark.parametrize("source", INPUTS)
def test_each_rule_alone_finds_what_it_finds_with_all(source: str) -> None:
    rules = list(all_rules())
    together = _by_rule(findings_of_every_rule(source))
    # alone, as the rule tests run it: a rule about `# noqa` comments with the rules it judges
    alone = {rule.code: findings_of(rule, source, "input.py") for rule in rules}
    for rule in rules:
        assert alone[rule.code] == together.get(rule.code, []), f"{rule.code} alone != with all rules"
    defaults = [rule for rule in rules if rule.enabled_by_default()]
    by_default = _by_rule(_lint(source, defaults))
    assert by_default == {code: found for code, found in together.items() if code in {r.code for r in defaults}}


@pytest.mark.usefixtures("one_parse_per_source")
@pytest.mark.parametrize("seed, source", [pytest.param(seed, case.values[0], id=case.id)  # type: ignore[attr-defined]
                                          for seed, case in enumerate(INPUTS)])
def test_rule_order_does_not_matter(seed: int, source: str) -> None:
    """One order per input, each input its own: over all of them, the rules run in
    some fifteen hundred orders."""
    shuffled = list(all_rules())
    random.Random(seed).shuffle(shuffled)
    assert sorted(_lint(source, shuffled)) == sorted(findings_of_every_rule(source))


def test_worker_count_does_not_change_findings() -> None:
    files = sorted(str(p) for p in FIXTURES.glob("*.py"))
    selection = select_rules(["TL"], [], [])
    config = Config(root=ROOT)
    serial = run(files, selection, config, RunOptions(jobs=1))
    parallel = run(files, selection, config, RunOptions(jobs=2))
    assert serial.findings, "the fixtures hold findings"
    assert serial.findings == parallel.findings
    assert serial.errors == parallel.errors == []


def test_default_run_on_examples_reports_clip_before_unscale() -> None:
    files = sorted(str(p) for p in (ROOT / "examples").glob("*.py"))
    result = run(files, select_rules(None, [], []), Config(root=ROOT), RunOptions(jobs=1))
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert ("train_fp16.py", 32, "TL101") in found


@pytest.mark.parametrize("source", INPUTS)
def test_the_parse_without_node_checks_builds_the_tree_libcst_builds(source: str) -> None:
    checked = parsed(source)
    if checked is not None:
        assert engine._parse(source).deep_equals(checked)


def test_nothing_of_a_file_is_left_in_reference_cycles() -> None:
    """Once a file is linted, its tree and model are freed by reference
    counting: left in cycles, the collector walks all of them after every
    file (about a twentieth of a cold run). A file that does not parse has
    no tree; its syntax error's traceback is left to the collector."""
    left: dict[str, list[str]] = {}
    # parsed before the freeze: the trees `parsed` keeps would be walked at every collection
    cases = [(case.values[0], case.id) for case in INPUTS if parsed(case.values[0]) is not None]  # type: ignore[attr-defined]
    gc.collect()
    gc.freeze()  # what the test session holds is not walked again
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for source, name in cases:
            _lint(source, list(all_rules()))
            gc.collect()
            ours = [type(o).__qualname__ for o in gc.garbage if type(o).__module__.split(".")[0] in ("libcst", "trainlint")]
            if ours:
                left[name] = sorted(set(ours))
            gc.garbage.clear()
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.unfreeze()
    assert left == {}
