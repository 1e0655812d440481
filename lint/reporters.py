"""Output formats: text, json, sarif, github."""

from __future__ import annotations

import json
from collections import Counter
from typing import Callable, Sequence

from lint import __version__
from lint.finding import Finding




def text(findings: Sequence[Finding]) -> str:
    lines = [
        f"{f.path}:{f.line}:{f.column}: {f.code}{' [*]' if f.fixable else ''} {f.message}"
        for f in findings
    ]
    safe = sum(f.fix == "safe" for f in findings)
    unsafe = sum(f.fix == "unsafe" for f in findings)
    if findings:
        noun = "finding" if len(findings) == 1 else "findings"
        hints = [f"{safe} fixable with `--fix`"] if safe else []
        if unsafe:
            hints.append(f"{unsafe} with `--fix --unsafe-fixes`")
        hint = f" ({', '.join(hints)})" if hints else ""
        lines.append(f"Found {len(findings)} {noun}{hint}.")
    else:
        lines.append("All checks passed.")
    return "\n".join(lines) + "\n"


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"


def github(findings: Sequence[Finding]) -> str:
    out = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        message = _escape_data(f"{f.name}: {f.message}")
        out.append(
            f"::{level} file={_escape_property(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={f.code}::{message}"
        )
    return "\n".join(out) + ("\n" if out else "")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif(findings: Sequence[Finding]) -> str:
    from lint.registry import all_rules

    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    descriptors = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": rule.docs().split("\n## ")[0].replace("## What it does", "").strip()},
            "help": {"text": rule.docs(), "markdown": rule.docs()},
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity], "enabled": rule.enabled_by_default()},
            "properties": {"fixable": rule.fixable(), "preview": rule.preview},
        }
        for rule in rules
    ]
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        },
                    }
                }
            ],
        }
        for f in findings
    ]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "trainlint",
                        "version": __version__,
                        "rules": descriptors,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def statistics(findings: Sequence[Finding]) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable)
    lines = [
        f"{count:>5}  {code}  {'[*]' if fixable[code] else '   '} {name}"
        for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return "\n".join(lines) + ("\n" if lines else "")


FORMATS: dict[str, Callable[[Sequence[Finding]], str]] = {
    "text": text,
    "json": as_json,
    "sarif": sarif,
    "github": github,
}
