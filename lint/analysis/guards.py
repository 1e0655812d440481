"""Code that only runs as a fallback: in an `except ImportError:` /
`except AttributeError:` handler, or on one side of a torch-version check; and
conditions that run code only now and then (`step % 100 == 0`), and those
that hold on every iteration of a GPU run (`torch.cuda.is_available()`)."""

from __future__ import annotations

import re

import libcst as cst

from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import dotted_name
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext

_FALLBACK_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
# `TORCH_1_13`, `torch2`, `IS_TORCH_2_4` are version flags too
_VERSION_WORDS = re.compile(r"version|hasattr|getattr|is_torch_|torch_(?:ge|gt|lt|le|older|newer|less|greater)|torch_?\d", re.IGNORECASE)


def in_fallback(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether `node` sits in a fallback reached only when a newer API is missing."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.ExceptHandler and child is ancestor.body and _catches_fallback(ancestor):
            return True
        if type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test and is_version_check(ancestor.test):
            return True
        if type(ancestor) in (cst.IndentedBlock, cst.Module) and _after_guarded_exit(ancestor, child):
            return True
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            return False
        child = ancestor
    return False


def _after_guarded_exit(block: cst.IndentedBlock | cst.Module, statement: cst.CSTNode) -> bool:
    """`if <version check>: return new_api()` followed by the old API: the
    statements after the `if` are the fallback."""
    for sibling in block.body:
        if sibling is statement:
            return False
        if (type(sibling) is cst.If and sibling.orelse is None and is_version_check(sibling.test)
                and type(sibling.body) is cst.IndentedBlock and ends_in_exit(sibling.body)):
            return True
    return False


def ends_in_exit(block: cst.IndentedBlock) -> bool:
    """The block's last statement returns or raises: what follows it never runs after it."""
    last = block.body[-1] if block.body else None
    return type(last) is cst.SimpleStatementLine and isinstance(last.body[-1], cst.Return | cst.Raise)


def _catches_fallback(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
    for element in types:
        value = element.value if type(element) is cst.Element else element
        name = dotted_name(value)  # type: ignore[arg-type]
        if name is not None and name.rsplit(".", 1)[-1] in _FALLBACK_ERRORS:
            return True
    return False


def is_version_check(test: cst.BaseExpression) -> bool:
    """`torch.__version__ < ...`, `version.parse(...)`, `TORCH_VERSION >= ...`,
    `hasattr(torch, "amp")` and the like."""
    for node in iter_nodes(test):
        if type(node) is cst.Name and _VERSION_WORDS.search(node.value):
            return True
    return False


def tests_a_remainder(test: cst.BaseExpression) -> bool:
    """A condition on a remainder (`step % eval_interval == 0`): true every N steps."""
    return any(type(node) is cst.BinaryOperation and type(node.operator) is cst.Modulo for node in iter_nodes(test))


# which accelerator a run has: the same answer on every iteration of one run
_DEVICE_QUERIES = frozenset({"torch.cuda.is_available", "torch.backends.mps.is_available", "torch.mps.is_available",
                             "torch.xpu.is_available", "torch.npu.is_available"})
_DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "npu"})
# the same queries as accelerate and transformers export them (`is_xpu_available()`,
# `is_torch_npu_available()`): llama-recipes' helper that empties whichever cache
_LIBRARY_DEVICE_QUERY = re.compile(r"^(accelerate|transformers)\.(.*\.)?is_(torch_)?(cuda|mps|xpu|npu|mlu|musa|hpu|xla)_available$")


def is_device_check(ctx: FileContext, test: cst.BaseExpression) -> bool:
    """`torch.cuda.is_available()` (or mps's, xpu's), `device.type == "cuda"`,
    `x.is_cuda` and their `and` / `or` / `not`: the same on every iteration of a
    run (a helper that empties whichever accelerator's cache, as trl's does)."""
    if type(test) is cst.BooleanOperation:
        return is_device_check(ctx, test.left) and is_device_check(ctx, test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return is_device_check(ctx, test.expression)
    if type(test) is cst.Call:
        name = ctx.call_name(test)
        return name in _DEVICE_QUERIES or bool(name and _LIBRARY_DEVICE_QUERY.match(name))
    if type(test) is cst.Attribute:
        return test.attr.value in ("is_cuda", "is_mps", "is_xpu")
    if type(test) is cst.Comparison:
        return (any(string_value(c.comparator) in _DEVICE_TYPES for c in test.comparisons)
                or string_value(test.left) in _DEVICE_TYPES)
    return False


def in_try(ctx: FileContext, node: cst.CSTNode, depth: int = 0) -> bool:
    """An exception raised at `node` may be caught and the run go on: it runs in a
    `try`, or in a `with` whose context manager swallows errors (`contextlib.suppress`,
    `pytest.raises`, `self.assertRaises`), in its own function, or in a function of
    the file called so, a few calls up."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.Try, cst.TryStar):
            return True
        if type(ancestor) is cst.With and any(_swallows(ctx, item.item) for item in ancestor.items):
            return True
        if type(ancestor) is cst.FunctionDef:
            return depth < _CALLERS_FOLLOWED and any(
                in_try(ctx, site, depth + 1) for site in ctx.call_sites(ancestor))
        if type(ancestor) in (cst.ClassDef, cst.Lambda):
            return False
    return False


_CALLERS_FOLLOWED = 3


# context managers whose purpose is to catch an exception raised in their block
_SWALLOWING = frozenset({"suppress", "raises", "assertRaises", "assertRaisesRegex", "assertWarns",
                         "assertWarnsRegex", "warns", "deprecated_call"})


def _swallows(ctx: FileContext, manager: cst.BaseExpression) -> bool:
    """`contextlib.suppress(...)`, `pytest.raises(...)`, `self.assertRaises(...)`,
    however imported: a `with` that may end its block's exception there. Other
    managers (`no_grad()`, `tqdm(...)`, `accelerator.accumulate(model)`) let it through."""
    called = manager.func if type(manager) is cst.Call else manager
    name = ctx.qualified_name(called) or dotted_name(called) or ""
    return name.rsplit(".", 1)[-1] in _SWALLOWING
