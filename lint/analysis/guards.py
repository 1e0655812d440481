"""Code that only runs as a fallback: in an `except ImportError:` /
`except AttributeError:` handler, or on one side of a torch-version check; and
conditions that run code only now and then (`step % 100 == 0`), and those
that hold on every iteration of a GPU run (`torch.cuda.is_available()`)."""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from trainlint.analysis.literals import constant_text, string_value
from trainlint.analysis.dataflow import target_names, unpacked
from trainlint.analysis.flowgraph import FlowGraph, assigned_names
from trainlint.analysis.scopes import (
    and_operands, assigned_parts, assignment_targets, binding_scope, bound_arguments, dotted_name, head_name,
    named_parameters, receiver_method, receiver_name, Scope,
)
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.summaries import fails_for

_FALLBACK_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
# names of torch's version (`torch.__version__`, `TORCH_VERSION`, `TORCH_MAJOR`) and of flags
# made from it (`TORCH_1_13`, `torch2`, `is_torch_greater_or_equal_than_1_10`, `_TORCH_GE_2_0`);
# not `is_torch_tpu_available` nor a model's `version`
_VERSION_NAMES = re.compile(
    r"__version__|torch_?(?:version|ver(?![a-z])|major|minor)|torch_?\d"
    r"|torch_(?:(?:ge|gt|lt|le)(?![a-z])|older|newer|less|greater|at_?least|below)", re.IGNORECASE)
# AMP's old home, deprecated since torch 2.4 and present on every torch since 1.6
_OLD_AMP = ("torch.cuda.amp", "torch.cpu.amp")
# the modules that parse versions (`version.parse(...)`, `LooseVersion(...)`)
_VERSION_PARSERS = frozenset({"packaging", "distutils", "pkg_resources", "looseversion"})
# what a flag's name says of the torch it holds on (`..._GREATER_OR_EQUAL_...`, `..._LT_2_0`)
_NEWER_WORDS = re.compile(r"(?:^|_)(?:greater|ge|gt|newer|at_?least)(?:_|$|\d)", re.IGNORECASE)
_OLDER_WORDS = re.compile(r"(?:^|_)(?:less|lt|le|older|below)(?:_|$|\d)", re.IGNORECASE)


def in_fallback(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether `node` sits in a fallback reached only when a newer API is missing:
    not the side of a version check that runs on the newer torch. A function or
    class defined in a fallback is one too: it exists only there. A test that asks
    only whether torch has AMP's old home (`getattr(torch.cuda.amp, "autocast")`, or a
    flag set by one) makes no fallback: that holds on every torch since 1.6."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.ExceptHandler and child is ancestor.body and catches_fallback(ancestor):
            return True
        if (type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test
                and _tells_newer_api(ctx, ancestor.test) and not _needs_newer(ctx, ancestor, child)):
            return True
        if type(ancestor) in (cst.IndentedBlock, cst.Module):
            guard = _guarded_exit_before(ancestor, child, lambda test: _tells_newer_api(ctx, test))
            if guard is not None and _says_newer(ctx, guard.test) is not False:
                return True
        child = ancestor
    return False


def _tells_newer_api(ctx: FileContext, test: cst.BaseExpression) -> bool:
    """A version check that may tell a torch with a newer API from one without: not
    a test of whether torch has AMP's old home only (`hasattr(torch.cuda.amp,
    "GradScaler")`, `if has_native_amp:` of a flag set by such a test)."""
    return is_version_check(ctx, test) and ctx.shared(TorchVersionNames).beyond_old_amp(ctx, test)


def _asks_for_old_amp(ctx: FileContext, call: cst.Call) -> bool:
    """`hasattr(torch.cuda.amp, "autocast")`, `getattr(torch.cuda.amp, "GradScaler", None)`,
    `hasattr(torch.cuda, "amp")`: a test of an API every torch since 1.6 has."""
    if not _asks_torch_for_an_api(ctx, call) or len(call.args) < 2:
        return False
    attribute = string_value(call.args[1].value)
    if attribute is None:
        return False
    asked = f"{ctx.qualified_name(call.args[0].value)}.{attribute}"
    return any(asked == home or asked.startswith(home + ".") for home in _OLD_AMP)


def may_depend_on_version(ctx: FileContext, node: cst.CSTNode) -> bool:
    """Whether `node` runs, or is defined, only on one side of a test that may be
    of torch's version: a version check, or a test whose names say `version`
    (`version_lt("2.3")`, `sys.version_info`); also what follows `if <such a
    test>: return`. That side may run on a torch older than an API newer than
    the one it calls."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test and _may_test_version(ctx, ancestor.test):
            return True
        if type(ancestor) in (cst.IndentedBlock, cst.Module) and _guarded_exit_before(
                ancestor, child, lambda test: _may_test_version(ctx, test)) is not None:
            return True
        child = ancestor
    return False


def _may_test_version(ctx: FileContext, test: cst.BaseExpression) -> bool:
    """A version check, or a test whose names say `version` other than Python's
    (`sys.version_info`): `version_lt("2.3")`, `IS_HIGH_VERSION`, `args.model_version`."""
    return is_version_check(ctx, test) or any(
        type(node) is cst.Name and "version" in node.value.lower() and not _of_python(ctx, node)
        for node in iter_nodes(test))


def _of_python(ctx: FileContext, name: cst.Name) -> bool:
    """`sys.version_info`, `platform.python_version()`: Python's version, not torch's."""
    parent = ctx.parent(name)
    reference = parent if type(parent) is cst.Attribute and parent.attr is name else name
    return (ctx.qualified_name(reference) or "").split(".")[0] in ("sys", "platform")


def _needs_newer(ctx: FileContext, branch: cst.If | cst.IfExp, side: cst.CSTNode) -> bool:
    """`side` of `branch` runs only on the newer torch: its body, when the test
    holds only there; its `else`, when the test holds exactly on the older one."""
    if side is branch.body:
        return _holds_only_when_newer(ctx, branch.test)
    return _says_newer(ctx, branch.test) is False


def _holds_only_when_newer(ctx: FileContext, test: cst.BaseExpression) -> bool:
    """`torch.__version__ >= "1.10"`, also `and` another test of something else; not
    a range (`TORCH_VERSION >= (1, 6) and TORCH_VERSION < (2, 3)`): its body is
    the fallback of the versions in it."""
    operands = and_operands(test)
    return (any(_says_newer(ctx, operand) is True for operand in operands)
            and all(_says_newer(ctx, operand) is True or not is_version_check(ctx, operand) for operand in operands))


def _says_newer(ctx: FileContext, test: cst.BaseExpression, depth: int = 0) -> bool | None:
    """True when `test` holds exactly on a newer torch (`version.parse(torch.__version__)
    >= version.parse("1.10")`, `is_torch_greater_or_equal_than_1_10`, a flag assigned
    such a test), False when exactly on an older one (`TORCH_VERSION < (2, 0)`,
    `not TORCH_GE_2`); None when unclear (`TORCH_1_13`, `hasattr(torch, "amp")`: the
    test may be of an API newer than the replacement, which the newer side may then lack)."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        says = _says_newer(ctx, test.expression, depth)
        return None if says is None else not says
    if type(test) in (cst.Name, cst.Attribute):
        name = test.value if type(test) is cst.Name else test.attr.value  # type: ignore[union-attr]
        newer, older = bool(_NEWER_WORDS.search(name)), bool(_OLDER_WORDS.search(name))
        if newer != older and _VERSION_NAMES.search(name):
            return newer
        flag = ctx.shared(TorchVersionNames).flag_test(ctx, test) if type(test) is cst.Name else None
        return _says_newer(ctx, flag, depth + 1) if flag is not None and depth < _FLAGS_FOLLOWED else None
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    comparison = test.comparisons[0]
    operator = type(comparison.operator)
    if operator in (cst.GreaterThan, cst.GreaterThanEqual):
        greater = True
    elif operator in (cst.LessThan, cst.LessThanEqual):
        greater = False
    else:
        return None
    left, right = _reads_torch_version(ctx, test.left), _reads_torch_version(ctx, comparison.comparator)
    if left == right:
        return None
    return greater if left else not greater


_FLAGS_FOLLOWED = 3


def _reads_torch_version(ctx: FileContext, expr: cst.BaseExpression) -> bool:
    """`expr` reads the running torch's version (`torch.__version__`, `TORCH_VERSION`,
    `(major, minor)` assigned from it), unlike the threshold it is compared with
    (`version.parse("1.10")`, `(2, 0)`)."""
    return any(_names_torch_version(ctx, node) for node in iter_nodes(expr))


def _names_torch_version(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` is a name of torch's version or of a flag made from it: by its
    spelling (`TORCH_VERSION`, `is_torch_greater_or_equal_than_1_10`), or by what
    binds it (`from torch import __version__ as pt_version`, `IS_HIGH_VERSION =
    tuple(...torch.__version__...) >= (2, 3)`, `major, minor = ...`)."""
    if type(node) is not cst.Name:
        return False
    return bool(_VERSION_NAMES.search(node.value)) or ctx.shared(TorchVersionNames).reads_version(ctx, node)


class TorchVersionNames:
    """The variables of a file bound to torch's version or to what is made from it
    (`version = torch.__version__`, `major, minor = map(int, torch.__version__.split(".")[:2])`,
    `IS_HIGH_VERSION = PT_VERSION >= (2, 3)`), by the scope that binds them."""

    def __init__(self, ctx: FileContext) -> None:
        # (scope's node id, name) -> the values assigned to it (all of an unpacked value:
        # `major, minor = map(int, ...)`)
        assigned: dict[tuple[int, str], list[cst.BaseExpression]] = {}
        statements: dict[tuple[int, str], list[cst.CSTNode]] = {}
        for statement in ctx.nodes_of(cst.Assign, cst.AnnAssign):
            value = statement.value  # type: ignore[attr-defined]
            if value is None:
                continue
            targets = ([t.target for t in statement.targets] if type(statement) is cst.Assign  # type: ignore[attr-defined]
                       else [statement.target])  # type: ignore[attr-defined]
            scope = id(ctx.scope_of(statement).node)
            for target in targets:
                for part, given in assigned_parts(target, value):
                    for name in target_names(part):
                        assigned.setdefault((scope, name), []).append(given if given is not None else value)
                        statements.setdefault((scope, name), []).append(statement)
        self._assigned = assigned
        self._versions: set[tuple[int, str]] = set()
        changed = True
        # `PT_VERSION = ...torch.__version__...`, then `IS_HIGH = PT_VERSION >= (2, 3)`; and a
        # flag set on a side of a version test (`if version.parse(...) >= ...: HAS_AMP = True
        # else: HAS_AMP = False`), whose direction is then unclear: it has two values
        while changed:
            changed = False
            for key, values in assigned.items():
                if key not in self._versions and (any(self._reads(ctx, value) for value in values) or any(
                        self._set_by_version(ctx, statement) for statement in statements[key])):
                    self._versions.add(key)
                    changed = True
        # the flags tied to a version only through tests of whether torch has AMP's old home
        # (`if getattr(torch.cuda.amp, "autocast") is not None: has_native_amp = True`, then
        # `if has_native_amp: use_amp = "native"`): a key leaves when a value of it, or a test
        # it is set under, reads a version or asks torch for an API in any other way
        self._old_amp: set[tuple[int, str]] = set(self._versions)
        changed = True
        while changed:
            changed = False
            for key in list(self._old_amp):
                if any(self.beyond_old_amp(ctx, value) for value in assigned[key]) or any(
                        self.beyond_old_amp(ctx, test) for statement in statements[key]
                        for test in _tests_around(ctx, statement)):
                    self._old_amp.discard(key)
                    changed = True

    def _set_by_version(self, ctx: FileContext, statement: cst.CSTNode) -> bool:
        """`statement` runs on one side of a test of torch's version, in its scope."""
        return any(self._reads(ctx, test) or any(
            (type(node) is cst.Call and _asks_torch_for_an_api(ctx, node)) or (
                type(node) in (cst.Name, cst.Attribute) and (ctx.qualified_name(node) or "").split(".")[0] in _VERSION_PARSERS)
            for node in iter_nodes(test)) for test in _tests_around(ctx, statement))

    def beyond_old_amp(self, ctx: FileContext, expr: cst.BaseExpression) -> bool:
        """`expr` reads torch's version, or asks torch for an API, other than by asking
        whether torch has AMP's old home or reading a flag set only by such tests."""
        for node in iter_nodes(expr):
            if type(node) is cst.Name and (_VERSION_NAMES.search(node.value) or (
                    ctx.qualified_name(node) == "torch.__version__"
                    or (key := self._binding(ctx, node)) in self._versions and key not in self._old_amp)):
                return True
            if type(node) is cst.Call and _asks_torch_for_an_api(ctx, node) and not _asks_for_old_amp(ctx, node):
                return True
            if type(node) in (cst.Name, cst.Attribute) and (ctx.qualified_name(node) or "").split(".")[0] in _VERSION_PARSERS:
                return True
        return False

    def _reads(self, ctx: FileContext, value: cst.BaseExpression) -> bool:
        """`value` reads torch's version (`torch.__version__` by its name `__version__`)."""
        return any(type(node) is cst.Name and (_VERSION_NAMES.search(node.value) or self.reads_version(ctx, node))
                   for node in iter_nodes(value))

    def reads_version(self, ctx: FileContext, name: cst.Name) -> bool:
        return ctx.qualified_name(name) == "torch.__version__" or self._binding(ctx, name) in self._versions

    def flag_test(self, ctx: FileContext, name: cst.Name) -> cst.BaseExpression | None:
        """The test a version flag was assigned (`IS_HIGH_VERSION = ... >= (2, 3)`), when it
        was assigned one value only."""
        key = self._binding(ctx, name)
        values = self._assigned.get(key) if key in self._versions else None  # type: ignore[arg-type]
        return values[0] if values is not None and len(values) == 1 else None

    @staticmethod
    def _binding(ctx: FileContext, name: cst.Name) -> tuple[int, str] | None:
        """The scope whose binding of `name` a read of it sees (class bodies are not
        visible from the functions inside them)."""
        scope: Scope | None = ctx.scope_of(name)
        first = True
        while scope is not None:
            if not (scope.is_class and not first) and (
                    name.value in scope.imports or name.value in scope.aliases or name.value in scope.locals):
                return id(scope.node), name.value
            first = False
            scope = scope.parent
        return None


def _tests_around(ctx: FileContext, statement: cst.CSTNode) -> list[cst.BaseExpression]:
    """The tests of the `if`s that `statement` runs on a side of, in its scope."""
    tests: list[cst.BaseExpression] = []
    child = statement
    for ancestor in ctx.ancestors(statement):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if type(ancestor) is cst.If and child is not ancestor.test:
            tests.append(ancestor.test)
        child = ancestor
    return tests


def _guarded_exit_before(block: cst.IndentedBlock | cst.Module, statement: cst.CSTNode,
                         is_check: Callable[[cst.BaseExpression], bool]) -> cst.If | None:
    """The check (`is_check`) before `statement` in `block` whose body ends in a return or
    a raise: `if <version check>: return new_api()`. The statements after it run
    only when the check fails: the fallback, unless the check holds on the older
    torch (`if TORCH_VERSION < (1, 10): return old_api()`)."""
    for sibling in block.body:
        if sibling is statement:
            return None
        if (type(sibling) is cst.If and sibling.orelse is None and is_check(sibling.test)
                and type(sibling.body) is cst.IndentedBlock and ends_in_exit(sibling.body)):
            return sibling
    return None


def ends_in_exit(block: cst.IndentedBlock) -> bool:
    """The block's last statement returns or raises: what follows it never runs after it."""
    last = block.body[-1] if block.body else None
    return type(last) is cst.SimpleStatementLine and isinstance(last.body[-1], cst.Return | cst.Raise)


def catches_fallback(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
    for element in types:
        value = element.value if type(element) is cst.Element else element
        name = dotted_name(value)  # type: ignore[arg-type]
        if name is not None and name.rsplit(".", 1)[-1] in _FALLBACK_ERRORS:
            return True
    return False


def is_version_check(ctx: FileContext, test: cst.BaseExpression) -> bool:
    """A test of torch's version (`torch.__version__ < ...`, `version.parse(...)`,
    `TORCH_VERSION >= ...`, `is_torch_greater_or_equal_than_1_10`, `TORCH_1_13`) or
    of whether torch has an API (`hasattr(torch, "amp")`, `getattr(torch.amp,
    "GradScaler", None)`); not of a device (`is_torch_tpu_available()`), of a
    model's version (`args.model_version == 2`) nor of another object's attribute
    (`getattr(args, "amp", False)`, `hasattr(model, "half_forward")`)."""
    for node in iter_nodes(test):
        if _names_torch_version(ctx, node):
            return True
        if type(node) is cst.Call and _asks_torch_for_an_api(ctx, node):
            return True
        if type(node) in (cst.Name, cst.Attribute) and (ctx.qualified_name(node) or "").split(".")[0] in _VERSION_PARSERS:
            return True
    return False


def _asks_torch_for_an_api(ctx: FileContext, call: cst.Call) -> bool:
    """`hasattr(torch.amp, "GradScaler")`, `getattr(torch, "autocast", None)`."""
    func = call.func
    if type(func) is not cst.Name or func.value not in ("hasattr", "getattr") or not call.args:
        return False
    owner = ctx.qualified_name(call.args[0].value)
    return owner is not None and owner.split(".")[0] == "torch"


def tests_a_remainder(test: cst.BaseExpression) -> bool:
    """A condition on a remainder (`step % eval_interval == 0`): true every N steps."""
    return any(type(node) is cst.BinaryOperation and type(node.operator) is cst.Modulo for node in iter_nodes(test))


def skipped_at_first(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` runs under an `if` of its function that a value which may change from one
    iteration to the next must have passed a bound for (`if current_iter > 1:`, `if epoch
    >= 1 and ...:`, basicsr's guard; also `... if epoch > 0 else ...`, `epoch > 0 and ...`,
    see `passed_test`): the first iterations may skip it, so what it steps
    may follow their optimizer steps. A bound on a value that is the same on every
    iteration (`if args.warmup > 0:`, a constant of the module, a helper's parameter every
    call leaves to its default) holds on all of them or on none: it skips no first
    iteration, unless it is known to hold on none (`if epoch > 0:` with `epoch=0` left to
    its default, or 0 given, by every call of the file, see `_never_true`): then `node`
    never runs, and is skipped too."""
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return False
        test = passed_test(ancestor, child)
        if test is not None and (any(may_change(ctx, ancestor, value) for value in _bounded_values(test))
                                 or _never_true(ctx, ancestor, test)):
            return True
        child = ancestor
    return False


def passed_test(branch: cst.CSTNode, child: cst.CSTNode) -> cst.BaseExpression | None:
    """The test `child` of `branch` runs only after passing: that of `if test:` or of
    `child if test else ...` for their body, the left operand of `test and child`."""
    if type(branch) in (cst.If, cst.IfExp) and child is branch.body:  # type: ignore[attr-defined]
        return branch.test  # type: ignore[attr-defined]
    if type(branch) is cst.BooleanOperation and type(branch.operator) is cst.And and child is branch.right:
        return branch.left
    return None


def _never_true(ctx: FileContext, branch: cst.CSTNode, test: cst.BaseExpression) -> bool:
    """A parameter that `test` of `branch` bounds is given, by every call of the file, a
    number (or None) that fails the bound: written in the call (`step_schedule(sched, 0)`),
    left to the default (`epoch=0` of `if epoch > 0:`), or handed on from a caller's own
    such value (`def warm(sched, e=0): step_schedule(sched, e)`): the branch never runs."""
    function = ctx.enclosing_function(branch)
    if function is None:
        return False
    for value in _bounded_values(test):
        if not _a_parameter_of(ctx, value, function):
            continue
        constants = reaching_constants(ctx, branch, value)
        tests = bound_tests(test, value.value)  # type: ignore[attr-defined]
        if constants and all(fails_for(tests, constant) for constant in constants):
            return True
    return False


def reaching_constants(ctx: FileContext, at: cst.CSTNode, value: cst.BaseExpression,
                       depth: int = 0) -> list[str] | None:
    """The numbers (or None), as `constant_text` writes them, that `value` read at `at`
    may hold: the literal itself, or for a parameter of the function around `at`, never
    rebound there, what every call of the function in the file gives it (its default
    when the call leaves it out), followed a few callers up. None when one is not
    such a literal, or the function has no call in the file."""
    text = constant_text(value)
    if text is not None:
        return [text]
    function = ctx.enclosing_function(at)
    if type(value) is not cst.Name or function is None or depth > _CALLERS_FOLLOWED:
        return None
    if not _a_parameter_of(ctx, value, function):
        return None
    sites = ctx.call_sites(function)
    found: list[str] = []
    for call in sites:
        given = given_argument(ctx, call, function, value.value)
        reached = reaching_constants(ctx, call, given, depth + 1) if given is not None else None
        if reached is None:
            return None
        found += reached
    return found or None


def parameter_default(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The default value of `function`'s parameter `name`, if it has one."""
    params = function.params
    return next((param.default for param in (*params.posonly_params, *params.params, *params.kwonly_params)
                 if param.name.value == name), None)


def given_argument(ctx: FileContext, call: cst.Call, function: cst.FunctionDef, name: str
                   ) -> cst.BaseExpression | None:
    """What `call` gives `function`'s parameter `name`: its argument, or the parameter's
    default when the call leaves it out (and unpacks no `*args` / `**kwargs` that may hold
    it); None when not known."""
    pairs, complete = bound_arguments(ctx, call, function)
    argument = next((value for param, value in pairs if param == name), None)
    return argument if argument is not None or not complete else parameter_default(function, name)


def fails_with(test: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool:
    """`test` cannot hold while the name `name` holds the literal `value`: an operand of
    its `and` chain bounds the name and is false for it (`epoch > 0` with 0), or the value
    is None (`None > 0` raises; `epoch is not None` fails)."""
    text = constant_text(value)
    return text is not None and fails_for(bound_tests(test, name), text)


def bound_tests(test: cst.BaseExpression, name: str) -> tuple[tuple[str, str], ...]:
    """The comparisons of the name `name` in the `and` chain `test` that `fails_for` can
    judge: (operator, what it is compared with, as `constant_text` writes it, else "")
    of `name > 0`, `name >= 1`, `name is not None`."""
    found: list[tuple[str, str]] = []
    for operand in and_operands(test):
        if type(operand) is not cst.Comparison or len(operand.comparisons) != 1:
            continue
        left, comparison = operand.left, operand.comparisons[0]
        operator = _BOUND_OPERATORS.get(type(comparison.operator))
        if type(left) is cst.Name and left.value == name and operator is not None:
            found.append((operator, constant_text(comparison.comparator) or ""))
    return tuple(found)


_BOUND_OPERATORS = {cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.IsNot: "is not"}


def guard_tests(ctx: FileContext, node: cst.CSTNode, name: str) -> tuple[tuple[str, str], ...]:
    """`bound_tests` of each test of its function that `node` runs only after passing
    (`passed_test`: an `if`, an arm of `... if ... else ...`, the right operand of `and`)."""
    found: list[tuple[str, str]] = []
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if (test := passed_test(ancestor, child)) is not None:
            found += bound_tests(test, name)
        child = ancestor
    return tuple(dict.fromkeys(found))


def passes_by_default(ctx: FileContext, node: cst.CSTNode, name: str) -> bool:
    """The `if`s of its function that hold `node` may all pass when the parameter `name`
    (the one `caller_bound` gives) is left to its default: a call that leaves it out runs
    `node` on every call or on none, and not known to be none."""
    function = ctx.enclosing_function(node)
    default = parameter_default(function, name) if function is not None else None
    if default is None:
        return False
    text = constant_text(default)
    return text is None or not fails_for(guard_tests(ctx, node, name), text)


def caller_bound(ctx: FileContext, node: cst.CSTNode) -> str | None:
    """The parameter of `node`'s function that a test of the function (`passed_test`)
    holds `node` to a bound on, when that alone may skip it and only a caller can tell whether its value
    changes between iterations, or whether it passes: a helper another module's loop
    calls (`step_schedule(scheduler, cfg.start)`), running no loop of its own around
    `node` and never rebinding the parameter; what the calls of its own file give it
    does not say what another module's give. None when `node` is not bounded so, is
    skipped for a reason of its own (a bound on an attribute, on a counter), or
    bounded on several parameters."""
    function = ctx.enclosing_function(node)
    if function is None or _outermost_loop(ctx, node, function) is not None:
        return None
    bounds: set[str] = set()
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if (test := passed_test(ancestor, child)) is not None:
            for value in _bounded_values(test):
                if _a_parameter_of(ctx, value, function):
                    bounds.add(value.value)  # type: ignore[attr-defined]
                elif may_change(ctx, ancestor, value):
                    return None
        child = ancestor
    return next(iter(bounds)) if len(bounds) == 1 else None


def _a_parameter_of(ctx: FileContext, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """`value` is a parameter of `function` (not the instance or class a method runs on,
    whatever it calls it) as it was given: never rebound in the function, nor declared
    `global` / `nonlocal` anywhere in the file."""
    if (type(value) is not cst.Name or value.value == receiver_name(ctx, function, classes=True)
            or value.value not in named_parameters(function)):
        return False
    scope = binding_scope(value.value, ctx.scope_of(value))
    return (scope is not None and scope.node is function and value.value not in _declared_outer_anywhere(ctx)
            and not _rebinds(ctx, function.body, value.value))


def _bounded_values(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What `test` holds to a lower bound: `x` of `x > 0`, `self.step` of `self.step >=
    warmup` (any bound), alone or joined by `and`."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return _bounded_values(test.left) + _bounded_values(test.right)
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return []
    operator = type(test.comparisons[0].operator)
    if operator in (cst.GreaterThan, cst.GreaterThanEqual) and type(test.left) in (cst.Name, cst.Attribute):
        return [test.left]
    return []


def may_change(ctx: FileContext, at: cst.CSTNode, value: cst.BaseExpression, depth: int = 0) -> bool:
    """`value` (as read at `at`) may hold another value on a later iteration of the loop
    that runs `at`: a name that loop assigns (its counter), an attribute the file assigns
    anywhere (`self.iter += 1`) or of `self` itself, or of an object the loop hands to
    code not followed; where no loop of its function runs `at` (a helper the loop calls),
    a parameter or a local of the function, unless every call of the function in the
    file gives it a value that cannot change (its default included, when the call leaves
    it out). Not: a name or attribute the loop leaves
    alone (`args.warmup`, a constant of the module, a parameter of the loop's function),
    nor a literal."""
    if type(value) in (cst.Integer, cst.Float):
        return False
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        return may_change(ctx, at, value.expression, depth)
    path = dotted_name(value) if type(value) in (cst.Name, cst.Attribute) else None
    if path is None or depth > 3:
        return True  # a call's result, a subscript: not known
    parts = path.split(".")
    root = parts[0]
    if len(parts) > 1 and (parts[-1] in _assigned_attributes(ctx) or (
            len(parts) == 2 and receiver_method(ctx, head_name(value), classes=True) is not None)):  # type: ignore[arg-type]
        return True
    if root in _declared_outer_anywhere(ctx):
        return True
    function = ctx.enclosing_function(at)
    loop = _outermost_loop(ctx, at, function)
    if loop is not None:
        return _rebinds(ctx, loop, root) or (len(parts) > 1 and _handed_in(ctx, loop, root))
    scope = binding_scope(root, ctx.scope_of(value)) if type(value) is cst.Name else _root_scope(ctx, value)
    if scope is None or type(scope.node) is cst.Module:
        module_loops = [node for node in ctx.loops() if ctx.enclosing_function(node) is None]
        return any(_rebinds(ctx, outer, root) for outer in module_loops)
    if (function is None or scope.node is not function or root not in named_parameters(function)
            or root == receiver_name(ctx, function, classes=True)):
        return True  # a local of the helper, a closure's variable, `self.cfg.x`: not known
    # a parameter: what each call of the helper in the file gives it, or its default
    sites = ctx.call_sites(function)
    given = [given_argument(ctx, call, function, root) for call in sites]
    if not sites or any(argument is None for argument in given):
        return True
    rest = parts[1:]
    return any(may_change(ctx, call, _with_attributes(argument, rest), depth + 1)
               for call, argument in zip(sites, given))


def _with_attributes(value: cst.BaseExpression, attributes: list[str]) -> cst.BaseExpression:
    for attribute in attributes:
        value = cst.Attribute(value=value, attr=cst.Name(attribute))  # type: ignore[arg-type]
    return value


def _root_scope(ctx: FileContext, value: cst.BaseExpression) -> Scope | None:
    root = value
    while type(root) is cst.Attribute:
        root = root.value  # type: ignore[attr-defined]
    return binding_scope(root.value, ctx.scope_of(root)) if type(root) is cst.Name else None  # type: ignore[attr-defined]


def _outermost_loop(ctx: FileContext, node: cst.CSTNode, function: cst.FunctionDef | None) -> cst.CSTNode | None:
    outermost = None
    for ancestor in ctx.ancestors(node):
        if ancestor is function or type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            break
        if type(ancestor) in (cst.For, cst.While):
            outermost = ancestor
    return outermost


def _rebinds(ctx: FileContext, node: cst.CSTNode, name: str) -> bool:
    """`node` (a loop, a function's body) may bind `name` anew: its counter, `step += 1`,
    `x := ...`, or anything under a `global`, `nonlocal` or `del` there."""
    bound = ctx.shared(FlowGraph).assigned(node) if type(node) in (cst.For, cst.While) else assigned_names(ctx, node)
    return name in bound or "*" in bound


def _handed_in(ctx: FileContext, loop: cst.CSTNode, root: str) -> bool:
    """The loop hands the object named `root` to a call of code out of sight, or calls a
    method of it (`train_step(state, batch)`, `state.advance()`): its attributes may change."""
    for node in ctx.subtree(loop):
        if type(node) is not cst.Call:
            continue
        func = node.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and dotted_name(func.value) == root and func.attr.value != "get":
            return True
        if ctx.local_callee(node) is None and any(
                type(arg.value) is cst.Name and arg.value.value == root for arg in node.args):  # type: ignore[attr-defined]
            return True
    return False


def _assigned_attributes(ctx: FileContext) -> frozenset[str]:
    """The attribute names the file assigns (`self.iter += 1`, `state.step = ...`,
    `setattr(cfg, "warmup", ...)`)."""
    return ctx.shared(_collect_assigned_attributes)


def _collect_assigned_attributes(ctx: FileContext) -> frozenset[str]:
    names: set[str] = set()
    for node in ctx.nodes_of(cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.Call):
        if type(node) is cst.Call:
            if type(node.func) is cst.Name and node.func.value == "setattr" and len(node.args) > 1:  # type: ignore[attr-defined]
                names.add(string_value(node.args[1].value) or "")  # type: ignore[attr-defined]
            continue
        targets = assignment_targets(node)
        for target in targets:
            names |= {part.attr.value for part in unpacked(target) if type(part) is cst.Attribute}
    return frozenset(names)


def _declared_outer_anywhere(ctx: FileContext) -> frozenset[str]:
    """Names some function of the file declares `global` / `nonlocal`: it may rebind them."""
    return ctx.shared(_collect_declared_outer)


def _collect_declared_outer(ctx: FileContext) -> frozenset[str]:
    return frozenset(name.name.value for node in ctx.nodes_of(cst.Global, cst.Nonlocal)
                     for name in node.names)  # type: ignore[attr-defined]


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
