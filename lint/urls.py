"""Where trainlint's documentation lives on the web, for reports that link to
it (SARIF `helpUri`, GitLab and JUnit consumers follow these links)."""

from __future__ import annotations

# The repository's home; each rule has a page generated from its module in
# docs/rules/ (`python -m trainlint.docs`), so the link shows what `explain` shows.
HOMEPAGE = "https://github.com/your-org/trainlint"
RULE_DOCS = f"{HOMEPAGE}/blob/main/docs/rules"


def rule_docs_url(code: str | None) -> str:
    """The page of the rule `code`, or the index of every rule."""
    return f"{RULE_DOCS}/{code}.md" if code else f"{RULE_DOCS}/README.md"
