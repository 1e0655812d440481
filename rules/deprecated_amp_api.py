from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from lint.analysis import names
from lint.analysis.guards import in_fallback
from lint.analysis.scopes import Scope, dotted_name
from lint.context import FileContext
from lint.rule import Example, Fix, Rule


@dataclass(frozen=True)
class _Replacement:
    device: str
    new: str  # attribute of torch.amp
    decorator: bool  # takes device_type= instead of a leading device argument
    positional: tuple[str, ...] = ()  # old positional parameters to turn into keywords


_AUTOCAST_ARGS = ("enabled", "dtype", "cache_enabled")
DEPRECATED: dict[str, _Replacement] = {
    "torch.cuda.amp.autocast": _Replacement("cuda", "autocast", False, _AUTOCAST_ARGS),
    "torch.cpu.amp.autocast": _Replacement("cpu", "autocast", False, _AUTOCAST_ARGS),
    "torch.cuda.amp.GradScaler": _Replacement("cuda", "GradScaler", False),
    "torch.cpu.amp.GradScaler": _Replacement("cpu", "GradScaler", False),
    "torch.cuda.amp.custom_fwd": _Replacement("cuda", "custom_fwd", True),
    "torch.cuda.amp.custom_bwd": _Replacement("cuda", "custom_bwd", True),
}
_TYPE_CHECKS = ("isinstance", "issubclass")


class DeprecatedAmpApi(Rule):
    """
    ## What it does
    Flags each use of the device-specific AMP API deprecated since PyTorch 2.4:
    `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`,
    `torch.cpu.amp.autocast`, `torch.cpu.amp.GradScaler`,
    `torch.cuda.amp.custom_fwd` and `custom_bwd`, however they were imported
    (`from torch.cuda.amp import autocast as ac`, `from torch.cuda import amp`).

    ## Why is this bad?
    They emit a `FutureWarning` on every call (once per autocast region, in
    every step) and will be removed. `torch.amp` takes the device type as an
    argument and is the one API for CUDA, CPU and other devices.

    ## Fix safety
    Safe: the call becomes `torch.amp.autocast("cuda", ...)`,
    `torch.amp.GradScaler("cuda", ...)` or
    `torch.amp.custom_fwd(device_type="cuda", ...)` with every argument kept
    (positional autocast arguments become keywords, since the new signature
    orders them differently); `import torch` is added if needed, and the old
    import is removed once nothing uses it.

    ## Limitations
    A fallback used only when the new API is missing (in an
    `except AttributeError:` / `except ImportError:` handler, or on one side
    of a torch version check) is not flagged, nor is a name imported on both
    sides of such a fallback. `isinstance` checks are not uses. A variable
    assigned the deprecated API (`ac = torch.cuda.amp.autocast`) is reported
    once, where the API is used; calls through that variable are not
    reported again and get no fix.
    """

    code = "TL102"
    name = "deprecated-amp-api"
    severity = "warning"
    message = "deprecated AMP API"
    fix_safety = "safe"
    triggers = ("autocast", "GradScaler", "custom_fwd", "custom_bwd")
    bad = (
        Example(
            "import torch\n"
            "with torch.cuda.amp.autocast():  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch\n"
            "with torch.amp.autocast(\"cuda\"):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        Example(
            "from torch.cuda.amp import autocast, GradScaler\n"
            "scaler = GradScaler(init_scale=1024)  # expect: TL102\n"
            "with autocast(True, torch_dtype):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler(\"cuda\", init_scale=1024)  # expect: TL102\n"
            "with torch.amp.autocast(\"cuda\", enabled=True, dtype=torch_dtype):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        Example(
            "import torch.cuda.amp as amp\n"
            "import torch as th\n"
            "with amp.autocast(dtype=th.bfloat16):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch as th\n"
            "with th.amp.autocast(\"cuda\", dtype=th.bfloat16):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        Example(
            "from torch.cuda import amp\n"
            "class Fn(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    @amp.custom_fwd  # expect: TL102\n"
            "    def forward(ctx, x):\n"
            "        return x\n"
            "\n"
            "    @staticmethod\n"
            "    @amp.custom_bwd  # expect: TL102\n"
            "    def backward(ctx, g):\n"
            "        return g\n",
            fixed="import torch\n"
            "class Fn(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    @torch.amp.custom_fwd(device_type=\"cuda\")  # expect: TL102\n"
            "    def forward(ctx, x):\n"
            "        return x\n"
            "\n"
            "    @staticmethod\n"
            "    @torch.amp.custom_bwd(device_type=\"cuda\")  # expect: TL102\n"
            "    def backward(ctx, g):\n"
            "        return g\n",
        ),
        Example(
            "from torch.cuda.amp import autocast as ac\n"
            "def run(model, x):\n"
            "    with ac(enabled=True):  # expect: TL102\n"
            "        return model(x)\n",
            fixed="import torch\n"
            "def run(model, x):\n"
            "    with torch.amp.autocast(\"cuda\", enabled=True):  # expect: TL102\n"
            "        return model(x)\n",
        ),
        "import torch\n"
        "scaler_cls = torch.cpu.amp.GradScaler  # expect: TL102\n",
    )
    good = (
        "import torch\n"
        "with torch.amp.autocast('cuda', dtype=torch.bfloat16):\n"
        "    out = model(x)\n"
        "scaler = torch.amp.GradScaler('cuda')\n",
        # a version-guarded fallback
        "import torch\n"
        "try:\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "except AttributeError:\n"
        "    scaler = torch.cuda.amp.GradScaler()\n",
        "import torch\n"
        "from packaging import version\n"
        "if version.parse(torch.__version__) >= version.parse('2.4'):\n"
        "    ctx = torch.amp.autocast('cuda')\n"
        "else:\n"
        "    ctx = torch.cuda.amp.autocast()\n",
        "try:\n"
        "    from torch.amp import GradScaler\n"
        "except ImportError:\n"
        "    from torch.cuda.amp import GradScaler\n"
        "scaler = GradScaler()\n",
        # a local function that only shares the name
        "def autocast():\n"
        "    pass\n"
        "with autocast():\n"
        "    pass\n",
        "import torch\n"
        "if isinstance(scaler, torch.cuda.amp.GradScaler):\n"
        "    pass\n"
        "# with torch.cuda.amp.autocast():\n"
        "print('torch.cuda.amp.autocast is deprecated')\n",
        "from torch import autocast\n"
        "with autocast(device_type='cuda'):\n"
        "    pass\n",
    )

    def visit_Name(self, node: cst.Name) -> None:
        self._check(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._check(node)

    def _check(self, node: cst.Name | cst.Attribute) -> None:
        parent = self.ctx.parent(node)
        if not _is_reference(node, parent) or _through_alias_variable(self.ctx, node):
            return
        qualified = self.ctx.qualified_name(node)
        if qualified not in DEPRECATED or in_fallback(self.ctx, node):
            return
        replacement = DEPRECATED[qualified]
        new_name = f"torch.amp.{replacement.new}"
        if isinstance(parent, cst.Call) and parent.func is node:
            if self._is_type_check_argument(parent):
                return
            fix = self._fix_call(parent, node, replacement)
            self.report(parent, f"`{qualified}(...)` is deprecated; use `{_usage(replacement)}`", fix)
        elif isinstance(parent, cst.Decorator):
            fix = self._fix_decorator(parent, node, replacement)
            self.report(parent, f"`@{qualified}` is deprecated; use `@{_usage(replacement)}`", fix)
        elif not self._is_type_check_argument(node):
            self.report(node, f"`{qualified}` is deprecated; use `{new_name}`")

    def _is_type_check_argument(self, node: cst.CSTNode) -> bool:
        for ancestor in self.ctx.ancestors(node):
            if isinstance(ancestor, cst.Call):
                return isinstance(ancestor.func, cst.Name) and ancestor.func.value in _TYPE_CHECKS
            if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement):
                return False
        return False

    # -- fixes ---------------------------------------------------------------
    def _torch_prefix(self, at: cst.CSTNode) -> tuple[str, tuple[str, ...]] | None:
        """How to spell the torch module at `at`, and the import it needs."""
        local = self.ctx.local_name_for("torch", at)
        if local is not None:
            return local, ()
        if names.lookup("torch", self.ctx.scope_of(at)):
            return None  # `torch` means something else here
        return "torch", ("torch",)

    def _fix_call(self, call: cst.Call, func: cst.BaseExpression, rep: _Replacement) -> Fix | None:
        prefix = self._torch_prefix(call)
        if prefix is None or any(arg.star for arg in call.args):
            return None
        if any(arg.keyword is not None and arg.keyword.value in ("device", "device_type") for arg in call.args):
            return None
        device = cst.SimpleString(f'"{rep.device}"')
        args = list(call.args)
        if rep.decorator:
            positional = [a for a in args if a.keyword is None]
            keywords = [a for a in args if a.keyword is not None]
            args = [*positional, _keyword("device_type", device), *keywords]
        else:
            if rep.positional:
                if len([a for a in args if a.keyword is None]) > len(rep.positional):
                    return None
                args = [
                    _keyword(rep.positional[i], a.value, a.comma) if a.keyword is None else a
                    for i, a in enumerate(args)
                ]
            args = [cst.Arg(device), *args]
        args = _with_commas(args)
        new_func = cst.parse_expression(f"{prefix[0]}.amp.{rep.new}")
        return Fix(
            {call: call.with_changes(func=new_func, args=args)},
            imports=prefix[1],
            unused_imports=self._imports_behind(func),
        )

    def _fix_decorator(self, decorator: cst.Decorator, func: cst.BaseExpression, rep: _Replacement) -> Fix | None:
        prefix = self._torch_prefix(decorator)
        if prefix is None:
            return None
        new = cst.parse_expression(f'{prefix[0]}.amp.{rep.new}(device_type="{rep.device}")')
        return Fix(
            {decorator: decorator.with_changes(decorator=new)},
            imports=prefix[1],
            unused_imports=self._imports_behind(func),
        )

    def _imports_behind(self, func: cst.BaseExpression) -> tuple[str, ...]:
        """The imports the rewritten reference went through, as written."""
        dotted = dotted_name(func)
        if dotted is None:
            return ()
        head = dotted.split(".")[0]
        return tuple(t for t in names.lookup(head, self.ctx.scope_of(func)) if t != "torch")


def _usage(rep: _Replacement) -> str:
    if rep.decorator:
        return f'torch.amp.{rep.new}(device_type="{rep.device}")'
    return f'torch.amp.{rep.new}("{rep.device}", ...)'


def _keyword(name: str, value: cst.BaseExpression, comma: object = cst.MaybeSentinel.DEFAULT) -> cst.Arg:
    tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value, keyword=cst.Name(name), equal=tight, comma=comma)  # type: ignore[arg-type]


def _with_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    out = []
    for i, arg in enumerate(args):
        last = i == len(args) - 1
        if last:
            out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        elif arg.comma is cst.MaybeSentinel.DEFAULT:
            out.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        else:
            out.append(arg)
    return out


def _is_reference(node: cst.Name | cst.Attribute, parent: cst.CSTNode | None) -> bool:
    """Whether `node` reads a value (and is not a keyword, a definition's
    name, part of an import, or the attribute part of `x.name`)."""
    if isinstance(parent, cst.Attribute):
        return False  # either `node.attr` (the longer chain is checked) or its attr
    if isinstance(parent, cst.Import | cst.ImportFrom | cst.ImportAlias | cst.AsName):
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return False
    if isinstance(parent, cst.AssignTarget | cst.AugAssign | cst.AnnAssign) and parent.target is node:
        return False
    if isinstance(parent, cst.FunctionDef | cst.ClassDef | cst.Param):
        return parent.name is not node  # type: ignore[union-attr]
    return True


def _through_alias_variable(ctx: FileContext, node: cst.Name | cst.Attribute) -> bool:
    """`ac()` after `ac = torch.cuda.amp.autocast`: the deprecated API was
    used (and reported) where the variable was assigned, not again here."""
    head: cst.BaseExpression = node
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name):
        return False
    scope: Scope | None = ctx.scope_of(head)
    first = True
    while scope is not None:
        if not (scope.is_class and not first):
            if head.value in scope.imports:
                return False
            if head.value in scope.aliases:
                return True
            if head.value in scope.locals:
                return False
        first = False
        scope = scope.parent
    return False
