"""Rule documentation for `trainlint explain`, `trainlint rules` and the
README table, rendered from the rule modules themselves."""

from __future__ import annotations

import json
import os
import re
from typing import Sequence

from trainlint.rule import EXPECT_MARK, Rule

SECTION_ORDER = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Limitations", "References")


def sections(rule: type[Rule]) -> dict[str, str]:
    """The rule's docs by heading, with Example / Use instead taken from its
    first bad and first good example when the docstring has none."""
    found: dict[str, str] = {}
    current = None
    for line in rule.docs().splitlines():
        heading = re.match(r"^##\s+(.*\S)\s*$", line)
        if heading:
            current = heading.group(1)
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    found = {k: v.strip() for k, v in found.items()}
    bad = rule.bad_examples()
    if "Example" not in found and bad:
        found["Example"] = _code_block(bad[0].code)
    if "Use instead" not in found and rule.good:
        found["Use instead"] = _code_block(rule.good[0])
    ordered = {k: found[k] for k in SECTION_ORDER if k in found}
    ordered.update({k: v for k, v in found.items() if k not in ordered})
    return ordered


def _code_block(code: str) -> str:
    shown = EXPECT_MARK.sub(lambda m: f"# <- {m.group(1)}", code.rstrip("\n"))
    return f"```python\n{shown}\n```"


def explain_text(rule: type[Rule]) -> str:
    fix = f", fix: {rule.fix_safety}" if rule.fix_safety else ""
    preview = ", preview (off unless selected)" if rule.preview else ""
    parts = [f"# {rule.code} {rule.name}", f"Severity: {rule.severity}{fix}{preview}", f"Message: {rule.message}"]
    for heading, body in sections(rule).items():
        parts.append(f"## {heading}\n{body}")
    more_bad = rule.bad_examples()[1:]
    more_good = rule.good[1:]
    if more_bad:
        parts.append("## Also flagged\n" + "\n\n".join(_code_block(e.code) for e in more_bad))
    if more_good:
        parts.append("## Not flagged\n" + "\n\n".join(_code_block(g) for g in more_good))
    return "\n\n".join(parts)


def rules_table(rules: Sequence[type[Rule]], output_format: str = "text") -> str:
    if output_format == "json":
        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity,
                "fixable": r.fix_safety,
                "default": "on" if r.enabled_by_default() else "off",
                "preview": r.preview,
                "message": r.message,
            }
            for r in rules
        ]
        return json.dumps(rows, indent=2) + "\n"
    if output_format == "markdown":
        lines = ["| code | name | severity | fix | default | what it flags |", "|---|---|---|---|---|---|"]
        for r in rules:
            default = "on" if r.enabled_by_default() else "off (preview)"
            lines.append(f"| {r.code} | {r.name} | {r.severity} | {r.fix_safety or '—'} | {default} | {r.message} |")
        return "\n".join(lines) + "\n"
    width = max(len(r.name) for r in rules)
    lines = [f"{'code':<6} {'name':<{width}} {'severity':<8} {'fixable':<7} default"]
    for r in rules:
        default = "on" if r.enabled_by_default() else "off"
        lines.append(f"{r.code:<6} {r.name:<{width}} {r.severity:<8} {r.fix_safety or '-':<7} {default}")
    return "\n".join(lines) + "\n"


def update_readme(path: str) -> bool:
    """Rewrite the rule table between the `rules:start` / `rules:end` markers;
    True when the file changed."""
    from trainlint.registry import all_rules

    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start, end = "<!-- rules:start -->\n", "<!-- rules:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    new = head + start + rules_table(all_rules(), "markdown") + end + tail
    if new != text:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(new)
    return new != text


def rule_pages(rules: Sequence[type[Rule]]) -> dict[str, str]:
    """docs/rules/: one page per rule (what `explain` prints), and an index;
    the targets of the SARIF `helpUri` links once the project has an address
    (see `trainlint.urls`)."""
    pages = {f"{rule.code}.md": explain_text(rule) + "\n" for rule in rules}
    rows = [f"| [{r.code}]({r.code}.md) | {r.name} | {r.severity} | {r.message} |" for r in rules]
    header = "# trainlint rules\n\nGenerated from `rules/` by `python -m trainlint.docs`.\n\n"
    pages["README.md"] = header + "| code | name | severity | what it flags |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    return pages


def update_rule_pages(directory: str) -> bool:
    """Write docs/rules/; True when a page changed or a stale one was removed."""
    from pathlib import Path

    from trainlint.registry import all_rules

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    pages = rule_pages(all_rules())
    changed = False
    for stale in folder.glob("*.md"):
        if stale.name not in pages:
            stale.unlink()
            changed = True
    for name, text in pages.items():
        page = folder / name
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
            changed = True
    return changed


if __name__ == "__main__":
    import sys

    readme = sys.argv[1] if len(sys.argv) > 1 else "README.md"
    changed = update_readme(readme)
    print("README rule table updated" if changed else "README rule table already current")
    pages = os.path.join(os.path.dirname(readme), "docs", "rules")
    print("docs/rules updated" if update_rule_pages(pages) else "docs/rules already current")
