"""Reports for CI systems that do not read SARIF: GitLab Code Quality and
JUnit XML (Jenkins, Azure Pipelines, GitLab test reports)."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from typing import Sequence
from xml.etree import ElementTree

from trainlint.finding import Finding, placed_message

_GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def gitlab(findings: Sequence[Finding]) -> str:
    """GitLab Code Quality JSON. A fingerprint leaves the line out, so that a
    finding keeps its identity when code above it moves; two identical
    findings of one file are told apart by their order."""
    seen: Counter[tuple[str, str, str]] = Counter()
    issues = []
    for f in findings:
        path = _repo_relative(f.path)
        identity = (path, f.code, f.message)
        seen[identity] += 1
        issues.append(
            {
                "type": "issue",
                "check_name": f.code,
                "description": f"{f.code} {f.name}: {placed_message(f)}",
                "categories": ["Bug Risk"],
                "severity": _GITLAB_SEVERITY[f.severity],
                "fingerprint": _fingerprint(*identity, seen[identity]),
                # a notebook's cell lines are no lines of its file: the file's first line
                "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line} if f.cell is None
                             else {"begin": 1, "end": 1}},
            }
        )
    return json.dumps(issues, indent=2) + "\n"


def _repo_relative(path: str) -> str:
    """GitLab matches paths against the repository, relative to its root."""
    if os.path.isabs(path):
        try:
            path = os.path.relpath(path)
        except ValueError:  # another drive on Windows
            return path.replace("\\", "/")
    return os.path.normpath(path).replace("\\", "/")


def _fingerprint(path: str, code: str, message: str, occurrence: int) -> str:
    text = "\0".join((path, code, message, str(occurrence)))
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def junit(findings: Sequence[Finding]) -> str:
    """One test suite per file, one failed test case per finding; a clean run
    is one passing test case, so that CI shows the check ran."""
    suites = ElementTree.Element("testsuites", name="trainlint", tests=str(max(len(findings), 1)),
                                 failures=str(len(findings)), errors="0")
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_path[f.path].append(f)
    for path, found in by_path.items():
        suite = ElementTree.SubElement(suites, "testsuite", name=path, tests=str(len(found)),
                                       failures=str(len(found)), errors="0", skipped="0")
        for f in found:
            lines = {"line": str(f.line)} if f.cell is None else {}  # a cell's line is no line of the file
            case = ElementTree.SubElement(suite, "testcase", name=f"{f.code} {f.name} ({f.place})",
                                          classname=_classname(path), file=path, **lines)
            failure = ElementTree.SubElement(case, "failure", message=f.message, type=f.code)
            failure.text = f"{path}:{f.place}: {f.code} {f.message}"
    if not findings:
        suite = ElementTree.SubElement(suites, "testsuite", name="trainlint", tests="1", failures="0",
                                       errors="0", skipped="0")
        ElementTree.SubElement(suite, "testcase", name="no findings", classname="trainlint")
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


def _classname(path: str) -> str:
    """`src/train.py` -> `src.train`, as test reports group by dotted names."""
    stem = os.path.splitext(os.path.normpath(path))[0].replace("\\", "/").strip("./")
    return stem.replace("/", ".") or "trainlint"
