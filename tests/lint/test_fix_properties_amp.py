"""Properties of TL104's fix (add `S.update()` after `S.step(opt)`), over the
rule's bad examples and generated variations of them: the fixed file parses,
lints clean for TL104, fixing again changes nothing, and the only change is
one `S.update()` line right after the step statement."""

from __future__ import annotations

import ast
import difflib

import libcst as cst
from hypothesis import given, settings
from hypothesis import strategies as st

from trainlint.registry import by_code
from trainlint.testing import findings_of, fixed_source

RULE = by_code()["TL104"]

identifiers = st.sampled_from(["scaler", "grad_scaler", "amp_scaler", "s", "loss_scaler_"])
optimizers = st.sampled_from(["optimizer", "opt", "optim_g", "self_opt"])
indents = st.sampled_from(["    ", "  ", "\t"])
comments = st.lists(
    st.sampled_from(
        [
            "# scaler.update() is called below",
            "print('step done')",
            "lr = sched.get_last_lr()",
            "pass",
            "# TODO: log the loss scale",
        ]
    ),
    max_size=2,
)
imports = st.sampled_from(
    [
        ("import torch", "torch.amp.GradScaler('cuda')"),
        ("import torch as th", "th.cuda.amp.GradScaler()"),
        ("from torch.cuda.amp import GradScaler as GS", "GS()"),
        ("from torch import amp", "amp.GradScaler('cuda', init_scale=2.0 ** 14)"),
    ]
)


@st.composite
def training_scripts(draw: st.DrawFn) -> tuple[str, str, str]:
    """A script with one step-without-update, the scaler's name and the step line."""
    scaler, opt, ind = draw(identifiers), draw(optimizers), draw(indents)
    import_line, construction = draw(imports)
    in_function = draw(st.booleans())
    accumulate = draw(st.booleans())
    before, after = draw(comments), draw(comments)
    trailing = draw(st.sampled_from(["", "  # apply the update", "  # noqa: E501"]))
    base = ind if in_function else ""
    body = base + ind
    lines = [import_line]
    if in_function:
        lines.append(f"def train(model, loader, {opt}, criterion):")
    lines.append(f"{base}{scaler} = {construction}")
    lines.append(f"{base}for i, (x, y) in enumerate(loader):")
    lines.append(f"{body}{scaler}.scale(criterion(model(x), y)).backward()")
    step_indent = body
    if accumulate:
        lines.append(f"{body}if (i + 1) % 4 == 0:")
        step_indent = body + ind
    lines += [f"{step_indent}{line}" for line in before]
    step_line = f"{step_indent}{scaler}.step({opt}){trailing}"
    lines.append(step_line)
    lines += [f"{step_indent}{line}" for line in after]
    lines.append(f"{step_indent}{opt}.zero_grad()")
    return "\n".join(lines) + "\n", scaler, step_line


def check_fix(source: str) -> None:
    fixed = fixed_source(RULE, source)
    ast.parse(fixed)
    cst.parse_module(fixed)
    assert [f for f in findings_of(RULE, fixed) if f.fixable] == []
    assert fixed_source(RULE, fixed) == fixed
    steps = {f.line for f in findings_of(RULE, source) if f.fixable}
    old, new = source.splitlines(), fixed.splitlines()
    inserted_after: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        assert tag == "insert" and j2 - j1 == 1, (tag, old[i1:i2], new[j1:j2])
        added = new[j1]
        previous = old[i1 - 1]
        assert added.strip().endswith(".update()")
        assert added[: len(added) - len(added.lstrip())] == previous[: len(previous) - len(previous.lstrip())]
        inserted_after.add(i1)
    assert inserted_after == steps


@settings(max_examples=80, deadline=None)
@given(training_scripts())
def test_fix_of_generated_scripts(case: tuple[str, str, str]) -> None:
    source, scaler, step_line = case
    step_lineno = source.splitlines().index(step_line) + 1
    assert {(f.line, f.code) for f in findings_of(RULE, source)} == {(step_lineno, "TL104")}
    check_fix(source)
    fixed = fixed_source(RULE, source).splitlines()
    assert fixed[step_lineno].strip() == f"{scaler}.update()"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULE.bad_examples()), st.sampled_from(["", "# header\n", "import os\n\n"]))
def test_fix_of_bad_examples(example, prefix: str) -> None:
    check_fix(prefix + example.code)
