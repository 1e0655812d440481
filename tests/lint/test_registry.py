"""The rule set as a whole: codes, catalogue, docs, examples, README table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trainlint.docs import rules_table, sections
from trainlint.registry import all_rules
from trainlint.rule import Rule

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT.parent / "shared" / "spec" / "rules.md"
FIXTURES = Path(__file__).parent / "fixtures"
RULES = all_rules()
# Rules proposed for the catalogue (a contract this repository cannot edit);
# each is checked like the others as soon as the catalogue has its row.
NOT_YET_CATALOGUED = {"TL001": "unused-noqa"}


def test_codes_are_unique_and_well_formed() -> None:
    codes = [rule.code for rule in RULES]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"TL\d{3}", code) for code in codes)
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))


@pytest.mark.skipif(not CATALOGUE.exists(), reason="the rule catalogue (../shared/spec/rules.md) is not beside this checkout")
def test_rules_match_the_catalogue() -> None:
    rows = re.findall(r"^\| (TL\d{3}) \| ([a-z0-9-]+) \| ([^|]+) \|", CATALOGUE.read_text(encoding="utf-8"), re.M)
    catalogue = {code: (name, severity.strip()) for code, name, severity in rows}
    for rule in RULES:
        if rule.code not in catalogue and NOT_YET_CATALOGUED.get(rule.code) == rule.name:
            continue
        assert rule.code in catalogue, f"{rule.code} is not in the catalogue"
        name, severity = catalogue[rule.code]
        assert rule.name == name
        assert rule.severity == severity.split(",")[0].strip()
        assert rule.preview == ("preview" in severity)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docs_have_every_heading(rule: type[Rule]) -> None:
    found = sections(rule)
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert found.get(heading), f"{rule.code} docs lack '{heading}'"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_enough_examples_and_a_fixture(rule: type[Rule]) -> None:
    assert len(rule.bad_examples()) >= 4
    assert len(rule.good) >= 4
    if rule.code != "TL000":
        assert (FIXTURES / f"{rule.name.replace('-', '_')}.py").exists(), f"{rule.code} has no fixture"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_fixable_rules_show_a_fix(rule: type[Rule]) -> None:
    if rule.fix_safety is not None:
        assert any(example.fixed for example in rule.bad_examples()), f"{rule.code} has no example of its fix"


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- rules:start -->\n", 1)[1].split("<!-- rules:end -->", 1)[0]
    assert block == rules_table(RULES, "markdown"), (
        "README rule table is stale: replace the block between the rules markers "
        "(run `python -m trainlint.docs README.md`)"
    )


def test_rule_pages_are_current() -> None:
    """docs/rules/ holds what `explain` prints for each rule (SARIF links point there)."""
    from trainlint.docs import rule_pages

    folder = ROOT / "docs" / "rules"
    on_disk = {page.name: page.read_text(encoding="utf-8") for page in folder.glob("*.md")}
    assert on_disk == rule_pages(RULES), "docs/rules/ is stale (run `python -m trainlint.docs README.md`)"
