from __future__ import annotations

import re
from typing import Mapping

import libcst as cst
from libcst.metadata import CodeRange

from trainlint.manifest import manifest
from trainlint.rule import Diagnostic, Example, Fix, Replacement, Rule
from trainlint.suppression import NoqaDirective, NoqaUsage, file_directive_codes, noqa_directives

_OWN_CODE = re.compile(r"TL-?\d")  # TL99, TL3O1 or TL-301 is a typo of ours, not another tool's code
_NOQA_WITH_OWN_CODE = re.compile(r"#\s*noqa\s*:[^\n]*TL-?\d", re.IGNORECASE)
# the start of another tool's comment directive (mypy, black, pylint, isort, pyright, coverage)
_PRAGMA = re.compile(r"(type|fmt|pylint|isort|pyright|mypy|pragma|noqa)\s*:", re.IGNORECASE)
_FILE_NOQA_WITH_CODE = re.compile(r"trainlint:\s*noqa\s*:[^\n]*TL-?\d", re.IGNORECASE)
_NOQA_WITH_COLON = re.compile(r"#\s*noqa\s*:[^\n]*", re.IGNORECASE)


class UnusedNoqa(Rule):
    """
    ## What it does
    Reports a trainlint code in a line `# noqa: TL...` comment that
    suppresses nothing: the rule ran on the file and found nothing on that
    line, or no rule has that code (a rule's name, `# noqa:
    clip-before-unscale`, stands for its code; a mistyped code, `TL3O1`,
    suppresses nothing). A `# noqa:` followed by words, not codes (`# noqa:
    legacy code`), is a bare `# noqa`, as flake8 reads it. A file's `#
    trainlint: noqa: CODE` naming no rule (a code or a word) is reported as
    well, without a fix. Codes of other tools (`E501`, `F401`) and
    a bare `# noqa` are left alone, and so are codes of rules that did not run
    (not selected, or switched off for the file by `per-file-ignores` or
    `# trainlint: noqa: CODE`).

    ## Why is this bad?
    A `# noqa` outlives the code it was written for: the bug gets fixed, the
    line gets rewritten, the rule gets more precise, and the comment stays.
    Left there, it silently hides the next real finding on that line, and
    readers take it as a sign that the line is still suspicious. A code that
    names no rule is usually a typo, so the finding it was meant to silence
    is still reported.

    ## Example
    ```python
    import torch
    model = torch.nn.parallel.DistributedDataParallel(model)  # noqa: TL301
    ```

    ## Use instead
    ```python
    model = DistributedDataParallel(model)
    ```

    ## Fix safety
    Safe: the fix removes only the unused codes; the `# noqa` itself goes when
    none of its codes is left, and the comment goes when nothing else was in
    it. Other text of the comment and other tools' codes are kept. No fix
    when the text after the directive would become another tool's directive
    (`# noqa: TL301 type: ignore` would leave mypy's `# type: ignore`).
    """

    code = "TL001"
    name = "unused-noqa"
    severity = "info"
    message = "unused `# noqa` code"
    fix_safety = "safe"
    audits_noqa = True
    bad = (
        Example(
            "import torch.nn as nn\nm = nn.parallel.DistributedDataParallel(m)  # noqa: TL301  # expect: TL001\n",
            "import torch.nn as nn\nm = nn.parallel.DistributedDataParallel(m)  # expect: TL001\n",
        ),
        Example(
            "import torch.nn as nn\n"
            "m = nn.DataParallel(m)  # noqa: TL301, TL101, E501  # expect: TL001\n",
            "import torch.nn as nn\nm = nn.DataParallel(m)  # noqa: TL301, E501  # expect: TL001\n",
        ),
        Example(
            "x = compute()  # noqa: TL99  # expect: TL001\ny = compute()  # noqa:TL999  # expect: TL001\n",
            "x = compute()  # expect: TL001\ny = compute()  # expect: TL001\n",
        ),
        Example(
            "import torch\n"
            "for batch in loader:\n"
            "    # noqa: TL201  # expect: TL001\n"
            "    step(batch)\n",
            "import torch\nfor batch in loader:\n    # expect: TL001\n    step(batch)\n",
        ),
        Example(
            "def train(model):  # no GradScaler here # noqa: TL103  # expect: TL001\n    return model\n",
            "def train(model):  # no GradScaler here  # expect: TL001\n    return model\n",
        ),
        # a mistyped code (a letter O): no rule has it
        Example(
            "x = compute()  # noqa: TL3O1  # expect: TL001\n",
            "x = compute()  # expect: TL001\n",
        ),
        # what follows the directive would become mypy's `# type: ignore`: no fix
        "x = compute()  # noqa: TL301 type: ignore  # expect: TL001\n",
        # the separator after the code goes with it
        Example(
            "y = compute()  # noqa: TL301, legacy  # expect: TL001\n",
            "y = compute()  # legacy  # expect: TL001\n",
        ),
    )
    good = (
        "import torch.nn as nn\nm = nn.DataParallel(m)  # noqa: TL301\n",
        "import torch.nn as nn\nm = nn.DataParallel(m)  # noqa\nx = 1  # noqa\ny = 2  # noqa: E501, F401\n",
        "import torch.nn as nn\nm = nn.DataParallel(\n    m,\n)  # noqa: TL301\n",
        "# trainlint: noqa: TL301\nimport torch.nn as nn\nx = 1  # noqa: TL301\n",
        'text = "x = 1  # noqa: TL301"\n',
        # a rule's name stands for its code; a space before the colon is allowed
        "import torch.nn as nn\nm = nn.DataParallel(m)  # noqa: data-parallel\nn = nn.DataParallel(m)  # noqa : TL301\n",
        # words after the colon: a bare `# noqa`, as flake8 reads it
        "import torch.nn as nn\nm = nn.DataParallel(m)  # noqa: this wraps the legacy checkpoint\nx = 1  # NOQA: tl\n"
        "n = nn.DataParallel(m)  # noqa: pre-existing issue\n",
    )

    @classmethod
    def may_fire(cls, source: str) -> bool:
        # files with only other tools' `# noqa: E501` need no parse for this rule
        if _NOQA_WITH_OWN_CODE.search(source) is not None or _FILE_NOQA_WITH_CODE.search(source) is not None:
            return True
        # a rule's name (`# noqa: data-parallel`) stands for one of our codes
        return any(_OWN_CODE.match(c) for m in _NOQA_WITH_COLON.finditer(source) for d in noqa_directives(m.group())
                   for c in d.codes)

    @classmethod
    def audit_noqa(cls, positions: Mapping[cst.CSTNode, CodeRange], usage: NoqaUsage) -> list[Diagnostic]:
        known = set(manifest().codes())
        found: list[Diagnostic] = []
        for node in positions:
            if type(node) in (cst.TrailingWhitespace, cst.EmptyLine) and node.comment is not None:
                line = positions[node.comment].start.line
                found.extend(cls._judge(node, line, usage, known))
        return found

    @classmethod
    def _judge(
        cls, holder: cst.TrailingWhitespace | cst.EmptyLine, line: int, usage: NoqaUsage, known: set[str]
    ) -> list[Diagnostic]:
        comment = holder.comment
        assert comment is not None
        found = []
        whole_file = file_directive_codes(comment.value) if type(holder) is cst.EmptyLine else None
        unknown = [c for c in whole_file or () if c not in known]
        if unknown:  # `# trainlint: noqa: TL031`, a typo of TL301: the file is not skipped for it
            found.append(Diagnostic(cls, comment, f"`# trainlint: noqa` names no rule: {', '.join(unknown)}"))
        for directive in noqa_directives(comment.value):
            own = [c for c in directive.codes if _OWN_CODE.match(c)]  # `TL3O1` mistyped is ours too
            unknown = [c for c in own if c not in known]
            unused = [c for c in own if c in usage.ran and (line, c) not in usage.used]
            if unknown or unused:
                kept = _without(holder, comment.value, directive, {*unknown, *unused}, line)
                fix = Fix({holder: kept}) if kept is not None else None
                found.append(Diagnostic(cls, comment, _message(unused, unknown), fix))
        return found


def _message(unused: list[str], unknown: list[str]) -> str:
    parts = []
    if unused:
        parts.append(f"unused `# noqa` code{'s' if len(unused) > 1 else ''} {', '.join(unused)}: nothing on this line needs it")
    if unknown:
        parts.append(f"`# noqa` names no rule: {', '.join(unknown)}")
    return "; ".join(parts)


def _without(
    holder: cst.TrailingWhitespace | cst.EmptyLine, text: str, directive: NoqaDirective, drop: set[str], line: int
) -> Replacement | None:
    """`holder` with the codes `drop` taken out of `directive`; the directive
    goes when no code is left, the comment when nothing else was in it. A
    comment line among the first two of the file leaves a blank line: the
    lines below keep their places (a coding declaration on line 3 does not
    move up to where Python reads it). None when the text after the directive
    would become another tool's directive (`# noqa: TL301 type: ignore` read by
    mypy as `# type: ignore` once the `noqa` goes)."""
    keep = [c for c in directive.codes if c not in drop]
    before, after = text[: directive.start].rstrip(), text[directive.end :].lstrip()
    if not keep and not after.startswith("#"):
        after = after.lstrip(",; ")  # `# noqa: TL301, legacy`: the separator goes with the code
        if _PRAGMA.match(after):
            return None
    if before and after and not keep and not after.startswith("#"):
        after = f"# {after}"  # the reason stays a comment of its own: `# type: ignore  # -- legacy`
    parts = (before, f"# noqa: {', '.join(keep)}" if keep else "", after)
    rest = "  ".join(part for part in parts if part)
    if rest and not rest.startswith("#"):
        rest = f"# {rest}"
    if rest:
        return holder.with_changes(comment=cst.Comment(rest))
    if type(holder) is cst.EmptyLine:
        return holder.with_changes(comment=None, whitespace=cst.SimpleWhitespace("")) if line <= 2 else cst.RemoveFromParent()
    return holder.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
