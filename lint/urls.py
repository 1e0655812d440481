"""Where trainlint's documentation lives on the web, for reports that link to
it (SARIF `informationUri` and `helpUri`, the link an editor shows beside a
diagnostic). The project publishes no address yet (pyproject.toml has no
[project.urls]): reports then carry no link rather than a made-up one, and a
rule's documentation travels in the report itself (SARIF `help`) and in
`trainlint explain`."""

from __future__ import annotations

# The repository's home as pyproject.toml's [project.urls] gives it (a test checks
# they agree); each rule has a page generated from its module in docs/rules/
# (`python -m trainlint.docs`), so the link shows what `explain` shows.
HOMEPAGE: str | None = None


def rule_docs_url(code: str | None) -> str | None:
    """The page of the rule `code`, or the index of every rule; None while
    the project has no `HOMEPAGE`."""
    if HOMEPAGE is None:
        return None
    docs = f"{HOMEPAGE}/blob/main/docs/rules"
    return f"{docs}/{code}.md" if code else f"{docs}/README.md"
