"""SARIF 2.1.0 output, for code-scanning uploads (GitHub, Azure DevOps, IDEs).

Locations follow the standard's rules for URIs: a relative path becomes a
percent-encoded relative reference resolved against `%SRCROOT%` (the
directory trainlint ran in), an absolute path or one outside that directory
becomes a `file://` URI.
Columns count Unicode code points, as Python's string indices do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Sequence
from urllib.parse import quote

from trainlint import __version__, urls
from trainlint.finding import Finding, placed_message

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif(findings: Sequence[Finding]) -> str:
    from trainlint.registry import all_rules

    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    driver = {
        "name": "trainlint",
        "version": __version__,
        "semanticVersion": __version__,
        **_link("informationUri", urls.HOMEPAGE),
        "rules": [_descriptor(rule) for rule in rules],
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index[f.code]) for f in findings],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


def _descriptor(rule: type) -> dict[str, object]:
    docs = rule.docs()
    summary = docs.split("\n## ")[0].replace("## What it does", "").strip()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": summary or rule.message},
        **_link("helpUri", urls.rule_docs_url(rule.code)),
        "help": {"text": docs, "markdown": docs},
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.enabled_by_default()},
        "properties": {"fixable": rule.fixable(), "preview": rule.preview},
    }


def _link(key: str, url: str | None) -> dict[str, str]:
    """`{key: url}`, or nothing: the links are optional, and a project without an
    address gives none (a placeholder would be a link that leads nowhere)."""
    return {key: url} if url is not None else {}


def _result(finding: Finding, rule_index: int) -> dict[str, object]:
    """One result. A notebook's finding (`cell` set) is placed at the file's first
    line, for the lines of a cell are no lines of the JSON file a viewer shows;
    its message begins with its place in the notebook, and its `properties`
    hold the cell and the range within it."""
    message = placed_message(finding)
    region: dict[str, int] = {
        "startLine": finding.line,
        "startColumn": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column,
    }
    extra: dict[str, object] = {}
    if finding.cell is not None:
        extra = {"properties": {"cell": finding.cell, **{f"cell{key[0].upper()}{key[1:]}": value
                                                         for key, value in region.items()}}}
        region = {"startLine": 1}
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[finding.severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(finding.path),
                    "region": region,
                }
            }
        ],
        **extra,
    }


def artifact_location(path: str) -> dict[str, str]:
    """A path under the directory trainlint ran in stays relative (to
    `%SRCROOT%`); an absolute one, or one that leaves that directory
    (`../lib/x.py`), is a `file://` URI: code-scanning tools take a relative
    URI for a file of the repository. Both are percent-encoded."""
    native = Path(path)
    normal = os.path.normpath(path)
    if native.is_absolute() or normal == os.pardir or normal.startswith(os.pardir + os.sep):
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    posix = PurePosixPath(*Path(normal).parts).as_posix()
    return {"uri": quote(posix, safe="/"), "uriBaseId": SOURCE_ROOT}
