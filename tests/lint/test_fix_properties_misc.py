"""Property tests for the fixes of TL202 (loss-accumulated-with-graph) and
TL304 (sampler-with-shuffle), over their bad examples and generated
variations: the fixed file parses, lints clean for the rule, fixing twice
changes nothing more, every comment is kept, and only the flagged
statements change."""

from __future__ import annotations

import ast
import difflib
import keyword

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.analysis.scopes import ScopeTable
from trainlint.registry import by_name_or_code
from trainlint.rule import Rule, expected_marks
from trainlint.testing import comment_tokens, findings_of, fixed_source

TL202 = by_name_or_code("TL202")
TL304 = by_name_or_code("TL304")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- variations -------------------------------------------------------------------
class _Rename(cst.CSTTransformer):
    """Renames variables, never attribute names, keywords or imports."""

    def __init__(self, mapping: dict[str, str]) -> None:
        super().__init__()
        self.mapping = mapping

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(value=original.value.visit(self))

    def visit_Arg(self, node: cst.Arg) -> bool:
        return True

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.mapping.get(updated.value, updated.value))


def renameable(source: str) -> list[str]:
    table = ScopeTable(cst.parse_module(source))
    names: set[str] = set()
    for scope in table.scopes():
        names |= scope.locals | set(scope.aliases)
        names -= set(scope.imports)
    return sorted(names - {"self"})


def rename(source: str, mapping: dict[str, str]) -> str:
    return cst.parse_module(source).visit(_Rename(mapping)).code


def statement_lines(source: str) -> list[tuple[int, int]]:
    """(line, column) where each statement starts, of those that start their line
    (not `opt.step()` of `loss.backward(); opt.step()`: a line inserted before it
    would take its column as indentation)."""
    lines = source.splitlines()
    return [(n.lineno, n.col_offset) for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.stmt) and not lines[n.lineno - 1][:n.col_offset].strip()]


def insert_extras(source: str, picks: list[int], comments: bool) -> str:
    """An extra statement (or a comment line) before some statements."""
    lines = source.splitlines(keepends=True)
    starts = statement_lines(source)
    chosen = sorted({starts[p % len(starts)] for p in picks}, reverse=True)
    for number, (line, column) in enumerate(chosen):
        extra = f"# note {number}\n" if comments else f"_extra_{number} = {number}\n"
        lines.insert(line - 1, " " * column + extra)
    return "".join(lines)


def reindent(source: str, unit: int, wrap: bool) -> str:
    out = []
    for line in source.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        out.append(" " * (depth * unit) + stripped if stripped.strip() else line)
    text = "".join(out)
    if wrap:
        text = "def _wrapper():\n" + "".join(
            " " * unit + line if line.strip() else line for line in text.splitlines(keepends=True)
        )
    return text


identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))


@st.composite
def variations(draw: st.DrawFn, examples: list[str]) -> str:
    source = draw(st.sampled_from(examples))
    names = renameable(source)
    if names and draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
        mapping = {name: f"v{index}_{draw(identifiers)}" for index, name in enumerate(chosen)}
        source = rename(source, mapping)
    picks = draw(st.lists(st.integers(0, 50), max_size=4))
    source = insert_extras(source, picks, comments=draw(st.booleans()))
    return reindent(source, draw(st.sampled_from([2, 3, 4, 8])), draw(st.booleans()))


# -- generated TL202 and TL304 cases ------------------------------------------------
@st.composite
def accumulations(draw: st.DrawFn) -> str:
    loss, total = draw(identifiers.map(lambda s: "l_" + s)), draw(identifiers.map(lambda s: "t_" + s))
    source = draw(st.sampled_from([
        "import torch.nn.functional as F\n{loss} = F.cross_entropy(model(x), y)\n",
        "from torch import nn\ncrit = nn.MSELoss()\n{loss} = crit(model(x), y)\n",
        "{loss} = model(x).loss\n{loss}.backward()\n",
    ]))
    form, init = draw(st.sampled_from([
        ("{total} += {loss}", "0.0"),
        ("{total} = {total} + {loss}", "0"),
        ("{total} += {loss} * x.size(0)", "0.0"),
        ("{total}.append({loss})", "[]"),
    ]))
    head, body = source.split("\n", 1) if source.startswith(("import", "from")) else ("", source)
    lines = [head] if head else []
    if "crit =" in body:
        first, body = body.split("\n", 1)
        lines.append(first)
    lines.append(f"{total} = {init}")
    lines.append("for x, y in loader:")
    for line in body.strip().splitlines():
        lines.append("    " + line)
    lines.append("    " + form + "  # expect: TL202")
    lines.append("    optimizer.step()")
    return "\n".join(lines).format(loss=loss, total=total) + "\n"


# uses after the loop that may need the tensor or its graph: no safe fix then
GRAPH_NEEDING_USES = (
    "return {total}",
    "return {{'loss': {total}}}",
    "consume({total})",
    "self.saved = {total}",
    "history = [{total}]",
    "result = {total}\n    return result",
)


@st.composite
def accumulations_used_later(draw: st.DrawFn) -> str:
    """An accumulation in a function whose total is then used in a way that
    may need the tensor: the finding stays (the loss is back-propagated each
    step, so the total is a log), the fix must not be offered."""
    body = draw(accumulations().filter(lambda source: ".backward()" in source))
    use = draw(st.sampled_from(GRAPH_NEEDING_USES))
    total = next(line.split(" ")[0] for line in body.splitlines() if line.startswith("t_"))
    head, rest = [], []
    for line in body.splitlines():
        (head if line.startswith(("import", "from", "crit =")) else rest).append(line)
    lines = [*head, "def run(self, model, loader, optimizer):", *("    " + line for line in rest)]
    lines.append("    " + use.format(total=total))
    return "\n".join(lines) + "\n"


# uses after the loop that need a tensor, not a number: `.item()` would break them
TENSOR_NEEDING_USES = (
    "print({total}.item())",
    "avg = {total} / len(loader)\nprint(avg.item())",
    "print(({total} / 3).cpu())",
    "print(torch.exp({total} / len(loader)))",
    "ok = torch.isfinite({total})",
)
# uses that a number serves as well as a tensor: the fix stays
NUMBER_USES = (
    "print(math.exp({total} / len(loader)))",
    "print(np.exp({total} / 3), f\"{{{total}:.3f}}\")",
    "mean = {total} / 3\nprint(mean * 2, round(mean, 3))",
    "print(torch.tensor({total}))",
)


@st.composite
def sums_read_later(draw: st.DrawFn, uses: tuple[str, ...]) -> str:
    """A running sum of losses (not a list: appends are fixed with `.detach()`, which
    keeps a tensor), read after the loop by one of `uses`."""
    body = draw(accumulations().filter(lambda source: ".append(" not in source))
    total = next(line.split(" ")[0] for line in body.splitlines() if line.startswith("t_"))
    use = draw(st.sampled_from(uses)).format(total=total)
    return "import math\nimport numpy as np\nimport torch\n" + body + use + "\n"


@st.composite
def loader_calls(draw: st.DrawFn) -> str:
    conflict = draw(st.sampled_from([("sampler=sampler", "shuffle=True"), ("batch_sampler=bs", "shuffle=True")]))
    others = draw(st.lists(st.sampled_from(["num_workers=4", "pin_memory=True", "drop_last=False"]), unique=True))
    args = ["dataset", *others, *conflict]
    args = draw(st.permutations(args[1:]))
    args = ["dataset", *args]
    multiline, trailing = draw(st.booleans()), draw(st.booleans())
    # a comment at the end of an argument's line (`shuffle=True` among them) or on a line of its own
    notes = draw(st.lists(st.sampled_from(["", "  # note", "\n    # own line"]), min_size=len(args), max_size=len(args)))
    if multiline:
        body = "".join(
            f"    {a}{',' if i < len(args) - 1 or trailing else ''}{note}\n" for i, (a, note) in enumerate(zip(args, notes))
        )
        call = f"loader = DataLoader(  # expect: TL304\n{body})\n"
    else:
        listed = ", ".join(args) + ("," if trailing else "")
        call = f"loader = DataLoader({listed})  # expect: TL304\n"
        if notes[args.index("shuffle=True")] == "  # note":  # the line breaks after the commented argument
            head, _, tail = listed.partition("shuffle=True")
            tail = tail.removeprefix(",").lstrip()
            call = f"loader = DataLoader({head}shuffle=True,  # note  # expect: TL304\n    {tail})\n"
    samplers = "sampler = DistributedSampler(dataset)\nbs = BatchSampler(RandomSampler(dataset), 32, False)\n"
    return ("from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, RandomSampler\n" + samplers
            + call + "for batch in loader:\n    step(batch)\n")


# -- the properties ---------------------------------------------------------------------
def check_fix(rule: type[Rule], source: str) -> None:
    findings = findings_of(rule, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    assert any(f.fixable for f in findings)
    fixed = fixed_source(rule, source)
    compile(fixed, "<fixed>", "exec")
    assert comment_tokens(fixed) == comment_tokens(source), "a fix keeps every comment"
    assert not [f for f in findings_of(rule, fixed) if f.fixable], "the fixed code must not be fixable again"
    assert {f.line for f in findings_of(rule, fixed)} <= {f.line for f in findings if not f.fixable}
    assert fixed_source(rule, fixed) == fixed, "fixing twice must change nothing"
    allowed = set()
    for finding in findings:
        if finding.fixable:
            allowed |= set(range(finding.line, finding.end_line + 1))
    before, after = source.splitlines(), fixed.splitlines()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag != "equal":
            changed = set(range(i1 + 1, i2 + 1)) or {i1}
            assert changed <= allowed, f"lines {sorted(changed)} changed outside the fixed statements"


def _fixable_examples(rule: type[Rule]) -> list[str]:
    return [ex.code for ex in rule.bad_examples() if ex.fixed is not None]


@SETTINGS
@given(variations(_fixable_examples(TL202)))
def test_tl202_fix_on_example_variations(source: str) -> None:
    check_fix(TL202, source)


@SETTINGS
@given(variations(_fixable_examples(TL304)))
def test_tl304_fix_on_example_variations(source: str) -> None:
    check_fix(TL304, source)


@SETTINGS
@given(accumulations())
def test_tl202_fix_on_generated_accumulations(source: str) -> None:
    check_fix(TL202, source)


@SETTINGS
@given(loader_calls())
def test_tl304_fix_on_generated_loaders(source: str) -> None:
    check_fix(TL304, source)


@SETTINGS
@given(accumulations_used_later())
def test_tl202_no_fix_when_a_later_use_may_need_the_graph(source: str) -> None:
    findings = findings_of(TL202, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    assert not any(f.fixable for f in findings)
    assert fixed_source(TL202, source) == source



@SETTINGS
@given(sums_read_later(TENSOR_NEEDING_USES))
def test_tl202_no_item_fix_when_the_total_is_read_as_a_tensor(source: str) -> None:
    findings = findings_of(TL202, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    assert not any(f.fixable for f in findings)
    assert fixed_source(TL202, source) == source


@SETTINGS
@given(sums_read_later(NUMBER_USES))
def test_tl202_item_fix_when_the_total_is_read_as_a_number(source: str) -> None:
    check_fix(TL202, source)


def test_tl304_fixes_only_a_sampler_that_cannot_be_none() -> None:
    """A sampler the caller passes may be None on some path (the single-process
    one), where `shuffle=True` is what shuffles: flagged, never fixed. One set to
    None across an `if` is not flagged; one built here is fixed."""
    passed = ("import torch.utils.data as tud\n"
              "def make_loader(ds, sampler):\n"
              "    return tud.DataLoader(ds, 64, sampler=sampler, shuffle=True)\n")
    assert [(f.line, f.fixable) for f in findings_of(TL304, passed)] == [(3, False)]
    built = passed.replace("def make_loader(ds, sampler):\n", "def make_loader(ds):\n"
                           "    sampler = tud.DistributedSampler(ds) if True else tud.RandomSampler(ds)\n")
    assert [(f.line, f.fixable) for f in findings_of(TL304, built)] == [(4, True)]
    maybe = built.replace("if True else tud.RandomSampler(ds)", "\n    if not ddp:\n        sampler = None")
    assert findings_of(TL304, maybe) == []


def test_tl202_offers_nothing_for_the_named_tuple_of_adaptive_softmax() -> None:
    """`nn.AdaptiveLogSoftmaxWithLoss` returns a named tuple (output, loss), not a
    loss tensor: it has no `.detach()` to add."""
    source = ("import torch\n"
              "from torch import nn\n"
              "asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])\n"
              "history = []\n"
              "for x, y in batches:\n"
              "    opt.zero_grad()\n"
              "    result = asm(x, y)\n"
              "    result.loss.backward()\n"
              "    opt.step()\n"
              "    history.append(result)\n")
    assert not any(f.fixable for f in findings_of(TL202, source))
    assert fixed_source(TL202, source) == source
