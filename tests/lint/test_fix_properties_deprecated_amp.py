"""Properties of TL102's fix (deprecated `torch.cuda.amp` / `torch.cpu.amp`
calls rewritten to `torch.amp`), over generated scripts: every comment
survives, the fixed file compiles, relints clean for TL102 and is a fixed
point; a trailing comma stays; a function-local import stays local; where
`torch` names something else no fix is offered."""

from __future__ import annotations

import ast
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.registry import by_name_or_code
from trainlint.testing import comment_tokens, findings_of, fixed_source

TL102 = by_name_or_code("TL102")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# (import line, how the old API is spelled after it)
SPELLINGS = (
    ("import torch", "torch.cuda.amp.{api}"),
    ("from torch.cuda.amp import {api}", "{api}"),
    ("from torch.cuda.amp import {api} as old_{api}", "old_{api}"),
    ("from torch.cuda import amp", "amp.{api}"),
)
ARGUMENTS = {
    "autocast": (["enabled=use_amp", "dtype=torch.float16"], ["True", "torch.float16"]),
    "GradScaler": (["init_scale=2.0**16", "growth_interval=2000"], ["2.0**16"]),
}
TRAILING_COMMA = re.compile(r",([ \t]*#[^\n]*)?\n[ \t]*\)")
ARG_COMMENTS = ("", "  # from the config", "  # keep")


@st.composite
def calls(draw: st.DrawFn, callee: str, api: str) -> str:
    """`callee(...)` on one line or one argument per line, with or without a
    trailing comma and comments after arguments."""
    keywords, positional = ARGUMENTS[api]
    args = draw(st.sampled_from([keywords, positional, keywords[:1], []]))
    if not args:
        return f"{callee}()"
    if not draw(st.booleans()):
        return f"{callee}({', '.join(args)})"
    trailing = draw(st.booleans())
    lines = []
    for i, arg in enumerate(args):
        comma = "," if i < len(args) - 1 or trailing else ""
        lines.append(f"        {arg}{comma}{draw(st.sampled_from(ARG_COMMENTS))}\n")
    return f"{callee}(\n{''.join(lines)}    )"


@st.composite
def scripts(draw: st.DrawFn) -> tuple[str, bool]:
    """A training function using the old API; True when its import is local."""
    api = draw(st.sampled_from(sorted(ARGUMENTS)))
    import_line, spelling = draw(st.sampled_from(SPELLINGS))
    import_line = import_line.format(api=api)
    callee = spelling.format(api=api)
    local = draw(st.booleans()) and import_line != "import torch"
    import_comment = draw(st.sampled_from(["", "  # old AMP, kept for 1.x"]))
    call = draw(calls(callee, api))
    header = ["import torch"] if "torch." in call and import_line != "import torch" else []
    lines = [*header]
    if not local:
        lines.append(import_line + import_comment)
    lines.append("def train(model, x, use_amp=True):")
    if local:
        lines.append("    " + import_line + import_comment)
    if api == "autocast":
        lines += [f"    with {call}:", "        return model(x)"]
    else:
        lines += [f"    scaler = {call}", "    return scaler"]
    return "\n".join(lines) + "\n", local and not header


def _module_level_imports(source: str) -> list[str]:
    return [ast.unparse(n) for n in ast.parse(source).body if isinstance(n, ast.Import | ast.ImportFrom)]


@SETTINGS
@given(scripts())
def test_fix_keeps_comments_and_commas_and_converges(case: tuple[str, bool]) -> None:
    source, local_only = case
    assert findings_of(TL102, source), source
    fixed = fixed_source(TL102, source)
    compile(fixed, "<fixed>", "exec")
    assert comment_tokens(fixed) == comment_tokens(source), "a fix keeps every comment"
    assert findings_of(TL102, fixed) == []
    assert fixed_source(TL102, fixed) == fixed, "fixing twice must change nothing"
    assert TRAILING_COMMA.findall(fixed) == TRAILING_COMMA.findall(source), "trailing commas stay"
    if local_only:
        assert "import torch" not in _module_level_imports(fixed), "a local import is never moved to the top"
        assert "    import torch\n" in fixed


SHADOWING = (
    # a parameter named torch
    "import torch\nfrom torch.cuda.amp import autocast\n"
    "def run(torch, model, x):\n    with autocast():\n        return model(x)\n",
    # torch = None when torch is missing
    "try:\n    import torch\n    from torch.cuda.amp import GradScaler\nexcept ImportError:\n    torch = None\n"
    "def make():\n    return GradScaler()\n",
    # a local variable named torch
    "from torch.cuda.amp import autocast\n"
    "def run(model, x):\n    torch = load_backend()\n    with autocast():\n        return model(x)\n",
)


@settings(max_examples=len(SHADOWING), deadline=None)
@given(st.sampled_from(SHADOWING))
def test_no_fix_where_torch_is_shadowed(source: str) -> None:
    findings = findings_of(TL102, source)
    assert findings and not any(f.fixable for f in findings)
    assert fixed_source(TL102, source) == source
