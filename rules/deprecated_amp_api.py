from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst

from trainlint.analysis import names
from trainlint.analysis.guards import catches_fallback, in_fallback, may_depend_on_version
from trainlint.analysis.literals import is_docstring, string_value
from trainlint.analysis.partials import partial_parts
from trainlint.analysis.runtime_patches import TARGET_HOLDERS, dynamic_patches, patched_by_imports, torch_names_patched
from trainlint.analysis.torch_binding import NAMED_DEFINITIONS, binds, binds_only_torch
from trainlint.analysis.walk import iter_nodes
from trainlint.analysis.scopes import Scope, dotted_name, head_name, import_from_module
from trainlint.analysis.training import ancestors_within, opposite_branches
from trainlint.context import FileContext
from trainlint.project import member_of
from trainlint.summaries import OTHER, TORCH_EXPORT
from trainlint.fixes import RequiredImport
from trainlint.rule import Example, Fix, Replacement, Rule


@dataclass(frozen=True)
class _Replacement:
    device: str
    new: str  # attribute of torch.amp
    decorator: bool  # takes device_type= instead of a leading device argument
    positional: tuple[str, ...] = ()  # old positional parameters to turn into keywords
    # the dtype the old autocast always passed (an attribute of torch); the new one
    # defaults to the enclosing region's, or the global setting
    dtype: str | None = None
    # the old autocast always passed `cache_enabled=True`; the new one defaults to the
    # global setting, which `torch.jit.trace` and `set_autocast_cache_enabled` turn off
    cache_enabled: bool = False


@dataclass(frozen=True)
class _Spelling:
    """The name that reaches torch at a fix, with what makes it bound there."""

    name: str
    imports: tuple[str, ...] = ()  # module-level `import X` to add
    edits: dict[cst.CSTNode, Replacement] = field(default_factory=dict)


_AUTOCAST_ARGS = ("enabled", "dtype", "cache_enabled")
DEPRECATED: dict[str, _Replacement] = {
    "torch.cuda.amp.autocast": _Replacement("cuda", "autocast", False, _AUTOCAST_ARGS, "float16", True),
    "torch.cpu.amp.autocast": _Replacement("cpu", "autocast", False, _AUTOCAST_ARGS, "bfloat16", True),
    "torch.cuda.amp.GradScaler": _Replacement("cuda", "GradScaler", False),
    "torch.cpu.amp.GradScaler": _Replacement("cpu", "GradScaler", False),
    "torch.cuda.amp.custom_fwd": _Replacement("cuda", "custom_fwd", True),
    "torch.cuda.amp.custom_bwd": _Replacement("cuda", "custom_bwd", True),
}
_TYPE_CHECKS = ("isinstance", "issubclass")
_TYPE_ASSERTIONS = ("assertIsInstance", "assertNotIsInstance")  # unittest's, `self.assertIsInstance(s, cls)`
# replacements that are classes: the new object is no instance of the deprecated one
_CLASSES = ("autocast", "GradScaler")
# what a call of the new API may be spelled as, per replacement
_NEW_NAMES = {"autocast": ("torch.amp.autocast", "torch.autocast", "torch.amp.autocast_mode.autocast"),
              "GradScaler": ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"),
              "custom_fwd": ("torch.amp.custom_fwd",), "custom_bwd": ("torch.amp.custom_bwd",)}


class DeprecatedAmpApi(Rule):
    """
    ## What it does
    Flags each use of the device-specific AMP API deprecated since PyTorch 2.4:
    `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`,
    `torch.cpu.amp.autocast`, `torch.cpu.amp.GradScaler`,
    `torch.cuda.amp.custom_fwd` and `custom_bwd`, however they were imported
    (`from torch.cuda.amp import autocast as ac`, `from torch.cuda import amp`),
    also through a module of the project that imports them for the others
    (`from amp_utils import autocast`, where amp_utils.py imports it from
    `torch.cuda.amp`; a name it imports on both sides of a fallback, or
    defines itself, is not followed).

    ## Why is this bad?
    They emit a `FutureWarning` on every call (once per autocast region, in
    every step) and will be removed. `torch.amp` takes the device type as an
    argument and is the one API for CUDA, CPU and other devices.

    ## Fix safety
    Safe: the call becomes `torch.amp.autocast("cuda", ...)`,
    `torch.amp.GradScaler("cuda", ...)` or
    `torch.amp.custom_fwd(device_type="cuda", ...)` with every argument kept
    (positional autocast arguments become keywords, since the new signature
    orders them differently). An autocast call that gives no dtype gets the
    one the old API always used, `dtype=torch.float16` (CPU:
    `torch.bfloat16`): the new one would take the dtype of an enclosing
    autocast region or of `torch.set_autocast_dtype`; likewise
    `cache_enabled=True`, which the new one would take from the global
    setting (off while `make_fx` or the ONNX exporter traces). The old
    import of torch's module is removed once nothing uses it when it sits in
    a function (an import of a module of the project that re-exports the API
    stays: importing it may do more); at
    module level it stays (another module may import the name from this one:
    `from train import autocast`), and goes only with `--unsafe-fixes`.
    Formatting survives: comments
    inside the call and on a removed import line are kept, as are a
    trailing comma and one-argument-per-line layout.

    The fix spells torch through a name an unconditional `import torch` (or
    `import torch as th`) binds before the statement that holds the call, in
    the scope the name is read from. Otherwise it adds `import torch`: on the
    line before a function-local `from torch.cuda.amp import autocast` that
    the call reads (never at the top of the module, which would defeat a lazy
    import), else at the top of the module, after its docstring and
    `from __future__` imports, also where the module imports torch only under
    an `if` (`if TYPE_CHECKING:`), in a `try`, or after the call. Where code
    runs before the module's own line that imports the old API (an
    `os.environ[...]` setting torch reads when it loads), `import torch` goes
    on the line before that one: torch loads where it loaded before.

    No fix is offered where:
    - the name `torch` is bound anywhere in the file by anything but
      `import torch` / `import torch.x` / `import torch as torch`: a
      parameter (lambdas included), an assignment, a `for`, `with` or
      `except` target, a comprehension variable, a walrus, `del torch`,
      `global torch` / `nonlocal torch`, a function or class named `torch`,
      `import numpy as torch`, `from backend import torch`, or a star import
      of a module outside torch (`from backend import *`) that may bind it
      otherwise. A module of the project that binds `torch` by `import torch`
      alone, or not at all, or leaves it out of a literal `__all__` (and so
      do the modules it star-imports in turn) keeps the fix (`from models
      import *` of a package of models, `from utils import *` of helper
      functions or settings); so does one that neither names torch nor
      star-imports nor writes its globals by name (`LR = 0.1`). A module
      outside the project, or of it but not linted (its text is not read),
      withholds the fix, as do a package whose submodule `torch`
      (`models/torch.py`) is loaded as its member by the package or by the
      modules the file's imports run (`from .torch import f`, `import
      models.torch`; one that nothing imports so is no `torch` of the
      package), a module that defines a module-level
      `__getattr__` or names `"torch"` in `__all__` without `import torch`,
      a chain of more than four star imports, and a cycle;
    - the file, or a module it star-imports, writes its globals by name:
      it calls `globals()` (`globals()["torch"] = ...`, `.update(...)`),
      `vars()` or `exec`, or sets an attribute of `sys.modules[...]`;
    - a function imports torch after the call (the name is local to all of
      the function) and the old API is not imported on a line of that
      function before the call, or an inner scope imports it;
    - `import torch` would have to go at the top of a module that loads
      without torch now: the old API's name is not imported by a line of the
      module's own block (only in an `if`, a `try` or a function);
    - the file refers to the deprecated class other than by calling it
      (`isinstance(s, torch.cuda.amp.GradScaler)`, `type(s) is ...`, a base
      class, an annotation, a variable holding the class, an attribute of
      it): the new object is no instance of the deprecated class;
    - the file, or a module of the project it imports (`import
      ports.npu`), directly or through the modules of the project those
      import in turn (`import launch`, which imports `ports.npu`; up to
      eight imports away, a cycle read once), replaces the old API, the new
      one or a module holding them at run time (`torch.cuda.amp =
      torch.xpu.amp`, `amp.autocast = npu_autocast`,
      `setattr(torch.cuda.amp, "GradScaler", ...)`, a port to another
      device): the old spelling calls the replacement, the new one would not
      (a module imported only by another file is not seen);
    - the call unpacks arguments (`*args`, `**kwargs`), names a device
      already, or passes autocast more than its three positional arguments;
    - the API is a bare decorator that builds an object (`@autocast`);
    - the call, the function or class it is in, or the import of the name
      it calls, is on a side of a test that may be of torch's version: the
      newer side of a version check (`if is_torch_greater_or_equal_than_1_10:`,
      the `else` of `if TORCH_VERSION < (1, 10):`, what follows `if
      TORCH_VERSION < (1, 10): return`), where the replacement may be newer
      than the version tested (`torch.amp.GradScaler` came in 2.3) and that
      side runs on the versions in between; or either side of a test whose
      names say `version` (`version_lt("2.3")`, `args.model_version`), which
      may be of torch's. Python's version (`sys.version_info`) is not.

    ## Limitations
    A fallback used only when the new API is missing (in an
    `except AttributeError:` / `except ImportError:` handler, on the older
    side of a torch version check, or on either side of one whose direction
    is not clear: a flag named for a version only (`TORCH_1_13`), a test of
    whether torch has an API (`hasattr(torch.amp, "GradScaler")`); or in a
    branch whose other side calls the replacement for the same device, or for
    a device chosen at run time, however its condition is named:
    `torch.amp.GradScaler("cuda") if NEW_AMP else torch.cuda.amp.GradScaler()`,
    also bound for later calls: `partial(torch.amp.custom_fwd, device_type="cuda")`)
    is not flagged (a test of whether torch has AMP's old home itself,
    `getattr(torch.cuda.amp, "autocast")` or `hasattr(torch.cuda, "amp")`, or
    of a flag only such tests set, `if has_native_amp:`, holds on every torch
    since 1.6 and makes no fallback: what it guards is flagged, with no fix), nor is a name imported on both sides of such a fallback,
    unless the `try` imports the old API and its `except ImportError:` the
    new one (`torch.amp.autocast`): that `try` imports the old API on every
    torch that has it. That import is reported (not the name's uses), with
    no fix: the calls would need the new signature too.
    A name imported from the old API in a `try` whose handlers only give it a
    placeholder (`except ImportError: class GradScaler: ...`, `= None`: a
    dummy for a torch without AMP) is the old API wherever torch has it: its
    uses are flagged, with no fix (the placeholder's torch has no `torch.amp`
    either). A handler that imports the name, or assigns it another module's
    object, may be a fallback of the new API: then its uses are not flagged.
    A version check reads torch's version (`torch.__version__`,
    `TORCH_VERSION`, a `packaging.version` parse, a flag such as
    `is_torch_greater_or_equal_than_1_10`, a variable of the file bound to
    any of these: `from torch import __version__ as pt_version`, `major,
    minor = map(int, torch.__version__.split(".")[:2])`, `IS_HIGH_VERSION =
    PT_VERSION >= (2, 3)`) or asks torch for an API; its newer side (a `>=` /
    `>` comparison, a flag named `greater`, `ge`, `at_least`, `newer` or
    assigned such a comparison, the `else` of their opposites, an `and` of
    such a test with tests of something else) runs on every current torch and
    is flagged. A range (`TORCH_VERSION >= (1, 6) and TORCH_VERSION < (2,
    3)`) is a fallback. A test of a device (`is_torch_tpu_available()`), of
    an option (`getattr(args, "amp", False)`) or of a model
    (`args.model_version == 2`, `hasattr(model, ...)`) is no version check.
    A flag set on a side of a version check (`if version.parse(...) >=
    version.parse("1.6"): HAS_AMP = True else: HAS_AMP = False`) is a version
    flag whose direction is not clear: either side of a test of it is a
    fallback.
    `isinstance` checks (unittest's `assertIsInstance` too) and type
    annotations are not uses (they do keep calls of the class from being
    fixed, see above). A variable assigned the deprecated API (`ac = torch.cuda.amp.autocast`) is reported
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
            "with torch.amp.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        Example(
            "from torch.cuda.amp import autocast, GradScaler\n"
            "scaler = GradScaler(init_scale=1024)  # expect: TL102\n"
            "with autocast(True, torch_dtype):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch\n"
            "from torch.cuda.amp import autocast, GradScaler\n"
            "scaler = torch.amp.GradScaler(\"cuda\", init_scale=1024)  # expect: TL102\n"
            "with torch.amp.autocast(\"cuda\", cache_enabled=True, enabled=True, dtype=torch_dtype):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        Example(
            "import torch.cuda.amp as amp\n"
            "import torch as th\n"
            "with amp.autocast(dtype=th.bfloat16):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch.cuda.amp as amp\n"
            "import torch as th\n"
            "with th.amp.autocast(\"cuda\", cache_enabled=True, dtype=th.bfloat16):  # expect: TL102\n"
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
            "from torch.cuda import amp\n"
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
            "def run(model, x):\n"
            "    from torch.cuda.amp import autocast as ac\n"
            "    with ac(enabled=True):  # expect: TL102\n"
            "        return model(x)\n",
            fixed="def run(model, x):\n"
            "    import torch\n"
            "    with torch.amp.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True, enabled=True):  # expect: TL102\n"
            "        return model(x)\n",
        ),
        "import torch\n"
        "scaler_cls = torch.cpu.amp.GradScaler  # expect: TL102\n",
        # the other side of the branch is for another device: not a fallback
        Example(
            "import torch\n"
            "ctx = torch.amp.autocast('cpu') if on_cpu else torch.cuda.amp.autocast()  # expect: TL102\n",
            fixed="import torch\n"
            "ctx = torch.amp.autocast('cpu') if on_cpu else torch.amp.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True)  # expect: TL102\n",
        ),
        # the old autocast always ran in float16 (CPU: bfloat16); the new one takes the
        # dtype of the region around it, so the fix writes the old dtype out
        Example(
            "import torch as th\n"
            "with th.cpu.amp.autocast(enabled=True):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch as th\n"
            "with th.amp.autocast(\"cpu\", dtype=th.bfloat16, cache_enabled=True, enabled=True):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        # the new scaler is no instance of the deprecated class: no fix
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n"
        "if isinstance(scaler, torch.cuda.amp.GradScaler):\n"
        "    pass\n",
        # torch imported for the type checker only: an `import torch` that runs is added
        Example(
            "from typing import TYPE_CHECKING\n"
            "from torch.cuda.amp import GradScaler\n"
            "if TYPE_CHECKING:\n"
            "    import torch\n"
            "scaler = GradScaler()  # expect: TL102\n",
            fixed="from typing import TYPE_CHECKING\n"
            "import torch\n"
            "from torch.cuda.amp import GradScaler\n"
            "if TYPE_CHECKING:\n"
            "    import torch\n"
            "scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n",
        ),
        # the `import torch` a fix needs goes with the first import of torch: what
        # the module does before it (the environment torch reads at import) still does
        Example(
            "import os\n"
            "os.environ[\"OMP_NUM_THREADS\"] = \"1\"\n"
            "\n"
            "# mixed precision\n"
            "from torch.cuda.amp import GradScaler\n"
            "scaler = GradScaler()  # expect: TL102\n",
            fixed="import os\n"
            "os.environ[\"OMP_NUM_THREADS\"] = \"1\"\n"
            "\n"
            "# mixed precision\n"
            "import torch\n"
            "from torch.cuda.amp import GradScaler\n"
            "scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n",
        ),
        # tests of something else than torch: an option, a model's attribute, a device
        Example(
            "import torch\n"
            "def build(args, model):\n"
            "    if getattr(args, 'amp', False):\n"
            "        scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n"
            "    if hasattr(model, 'half_forward'):\n"
            "        ctx = torch.cuda.amp.autocast(dtype=torch.bfloat16)  # expect: TL102\n"
            "    return scaler, ctx\n",
            fixed="import torch\n"
            "def build(args, model):\n"
            "    if getattr(args, 'amp', False):\n"
            "        scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n"
            "    if hasattr(model, 'half_forward'):\n"
            "        ctx = torch.amp.autocast(\"cuda\", cache_enabled=True, dtype=torch.bfloat16)  # expect: TL102\n"
            "    return scaler, ctx\n",
        ),
        Example(
            "import torch\n"
            "from transformers.utils import is_torch_tpu_available\n"
            "def make_scaler():\n"
            "    if is_torch_tpu_available():\n"
            "        from torch_xla.amp import GradScaler\n"
            "        return GradScaler()\n"
            "    return torch.cuda.amp.GradScaler()  # expect: TL102\n",
            fixed="import torch\n"
            "from transformers.utils import is_torch_tpu_available\n"
            "def make_scaler():\n"
            "    if is_torch_tpu_available():\n"
            "        from torch_xla.amp import GradScaler\n"
            "        return GradScaler()\n"
            "    return torch.amp.GradScaler(\"cuda\")  # expect: TL102\n",
        ),
        # the newer side of a version check runs on every current torch; the older side is
        # the fallback. No fix: the replacement may be newer than the version tested
        "import torch\n"
        "from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_10\n"
        "def autocast_ctx(dtype):\n"
        "    if is_torch_greater_or_equal_than_1_10:\n"
        "        return torch.cuda.amp.autocast(dtype=dtype)  # expect: TL102\n"
        "    return torch.cuda.amp.autocast()\n",
        "import torch\n"
        "from packaging import version\n"
        "def make_scaler(enabled):\n"
        "    if version.parse(torch.__version__) < version.parse('1.10'):\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    return torch.cuda.amp.GradScaler(enabled=enabled)  # expect: TL102\n"
        "def autocast_ctx(dtype):\n"
        "    return torch.cuda.amp.autocast() if TORCH_VERSION < (1, 10) else torch.cuda.amp.autocast(dtype=dtype)  # expect: TL102\n",
        # a version check through a name that does not say torch: an import alias, a flag assigned a test
        "import torch\n"
        "from torch import __version__ as pt_version\n"
        "IS_HIGH_VERSION = tuple(int(v) for v in torch.__version__.split('.')[:2]) >= (1, 10)\n"
        "def make_scaler():\n"
        "    if pt_version >= '1.6':\n"
        "        return torch.cuda.amp.GradScaler()  # expect: TL102\n"
        "def autocast_ctx(dtype):\n"
        "    if IS_HIGH_VERSION and dtype is not None:\n"
        "        return torch.cuda.amp.autocast(dtype=dtype)  # expect: TL102\n"
        "    return torch.cuda.amp.autocast()\n",
        # tests that may be of torch's version: of a model's version, by a helper of the project
        "import torch\n"
        "from utils import version_lt\n"
        "def build(args):\n"
        "    if args.model_version == 2:\n"
        "        return torch.cuda.amp.autocast()  # expect: TL102\n"
        "def make_scaler():\n"
        "    if version_lt('2.3'):\n"
        "        return torch.cuda.amp.GradScaler()  # expect: TL102\n"
        "    return torch.amp.GradScaler('cuda')\n",
        # a function defined, a name imported, on the newer side only
        "import torch\n"
        "from packaging import version\n"
        "if version.parse(torch.__version__) >= version.parse('1.6'):\n"
        "    from torch.cuda.amp import GradScaler\n"
        "    def autocast_ctx():\n"
        "        return torch.cuda.amp.autocast()  # expect: TL102\n"
        "def make_scaler():\n"
        "    return GradScaler()  # expect: TL102\n",
        # a check of Python's version says nothing of torch's
        Example(
            "import sys\n"
            "import torch\n"
            "if sys.version_info < (3, 8):\n"
            "    raise RuntimeError('Python 3.8 or newer is needed')\n"
            "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
            fixed="import sys\n"
            "import torch\n"
            "if sys.version_info < (3, 8):\n"
            "    raise RuntimeError('Python 3.8 or newer is needed')\n"
            "scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n",
        ),
        # an attribute given torch's version makes no version name of its object
        Example(
            "import torch\n"
            "cfg = load_config()\n"
            "cfg.version = torch.__version__\n"
            "if cfg.amp:\n"
            "    scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
            fixed="import torch\n"
            "cfg = load_config()\n"
            "cfg.version = torch.__version__\n"
            "if cfg.amp:\n"
            "    scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n",
        ),
        # the deprecated API is what runs; the handler's dummy is for a torch without AMP,
        # which the fix would break (it has no torch.amp either): no fix
        "import torch\n"
        "try:\n"
        "    from torch.cuda.amp import GradScaler\n"
        "except ImportError:\n"
        "    class GradScaler:  # dummy for PyTorch < 1.6\n"
        "        def __init__(self, enabled=False):\n"
        "            pass\n"
        "try:\n"
        "    autocast = torch.cuda.amp.autocast  # expect: TL102\n"
        "except AttributeError:\n"
        "    autocast = None\n"
        "def train(args):\n"
        "    scaler = GradScaler(enabled=args.amp)  # expect: TL102\n"
        "    with autocast(enabled=args.amp):\n"
        "        pass\n"
        "def build(GradScaler):  # a parameter of the name: neither the import nor its placeholder\n"
        "    return GradScaler()\n",
        # a test of the import beside the real use: only the use (and a choice of it by or) is flagged
        "try:\n"
        "    from torch.cuda.amp import GradScaler\n"
        "except ImportError:\n"
        "    GradScaler = None\n"
        "def make(enabled):\n"
        "    if GradScaler is None or not enabled:\n"
        "        return None\n"
        "    return GradScaler()  # expect: TL102\n"
        "scaler_class = GradScaler or object  # expect: TL102\n",
        # the old API tried first, the new one as the fallback: on every torch that has the
        # old one the `try` imports it (no fix: its calls need the new signature too)
        "import torch\n"
        "try:\n"
        "    from torch.cuda.amp import GradScaler, autocast  # expect: TL102\n"
        "except ImportError:\n"
        "    from torch.amp import GradScaler, autocast\n"
        "scaler = GradScaler()\n"
        "with autocast(dtype=torch.float16):\n"
        "    out = model(x)\n",
        # a block's first line is the import that goes: the blank line below it goes too
        Example(
            "import torch\n"
            "def build(scaler):\n"
            "    if scaler is None:\n"
            "        from torch.cuda.amp import GradScaler\n"
            "\n"
            "        scaler = GradScaler()  # expect: TL102\n"
            "    return scaler\n",
            fixed="import torch\n"
            "def build(scaler):\n"
            "    if scaler is None:\n"
            "        scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n"
            "    return scaler\n",
        ),
        # a test of whether torch has AMP's old home holds on every torch since 1.6, also
        # through the flags it sets: no fallback (InternVL's classification/main.py); a
        # call there keeps no fix, as on a side of a version check
        Example(
            "import torch\n"
            "from contextlib import suppress\n"
            "has_native_amp = False\n"
            "try:\n"
            "    if getattr(torch.cuda.amp, 'autocast') is not None:\n"
            "        has_native_amp = True\n"
            "except AttributeError:\n"
            "    pass\n"
            "def build(opt_level):\n"
            "    amp_autocast, scaler, use_amp = suppress, None, None\n"
            "    if opt_level != 'O0' and has_native_amp:\n"
            "        use_amp = 'native'\n"
            "    if use_amp == 'native':\n"
            "        amp_autocast = torch.cuda.amp.autocast  # expect: TL102\n"
            "        scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n"
            "    if hasattr(torch.cuda, 'amp'):\n"
            "        scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n"
            "    return amp_autocast, scaler\n",
        ),
        # the other side binds another device's replacement, or a function of the project
        Example(
            "import torch\n"
            "from functools import partial\n"
            "from .utils import is_torch_min_version, fwd_hook\n"
            "if is_torch_min_version('2.4.0a0'):\n"
            "    custom_fwd = partial(torch.amp.custom_fwd, device_type='cpu')\n"
            "    custom_bwd = partial(fwd_hook, device_type='cuda')\n"
            "else:\n"
            "    custom_fwd = torch.cuda.amp.custom_fwd  # expect: TL102\n"
            "    custom_bwd = torch.cuda.amp.custom_bwd  # expect: TL102\n",
        ),
        # the file rebinds its globals by name: `torch` may be the NPU's module here
        Example(
            "import torch\n"
            "globals()['torch'] = npu_backend\n"
            "with torch.cuda.amp.autocast():  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        # `vars(args)` reads the options' attributes, not the module's globals: fixed
        Example(
            "import torch\n"
            "options = vars(args)\n"
            "with torch.cuda.amp.autocast():  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch\n"
            "options = vars(args)\n"
            "with torch.amp.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
        # names bound by a star import of the module, and read through it imported under an alias
        Example(
            "import torch\n"
            "from torch.cuda.amp import *\n"
            "from torch.cuda import amp as A\n"
            "scaler = GradScaler()  # expect: TL102\n"
            "with autocast():  # expect: TL102\n"
            "    out = model(x)\n"
            "with A.autocast(dtype=torch.bfloat16):  # expect: TL102\n"
            "    out = model(x)\n",
            fixed="import torch\n"
            "from torch.cuda.amp import *\n"
            "from torch.cuda import amp as A\n"
            "scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL102\n"
            "with torch.amp.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True):  # expect: TL102\n"
            "    out = model(x)\n"
            "with torch.amp.autocast(\"cuda\", cache_enabled=True, dtype=torch.bfloat16):  # expect: TL102\n"
            "    out = model(x)\n",
        ),
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
        # annotations name the type; nothing is built
        "from typing import Optional\n"
        "import torch\n"
        "def train(model, scaler: Optional[torch.cuda.amp.GradScaler] = None) -> torch.cuda.amp.GradScaler:\n"
        "    best: torch.cuda.amp.GradScaler = scaler\n"
        "    return best\n",
        "import torch\n"
        "if isinstance(scaler, torch.cuda.amp.GradScaler):\n"
        "    pass\n"
        "# with torch.cuda.amp.autocast():\n"
        "print('torch.cuda.amp.autocast is deprecated')\n",
        "from torch import autocast\n"
        "with autocast(device_type='cuda'):\n"
        "    pass\n",
        # a version flag of any name: the other side calls the replacement for the same
        # device, or for a device chosen at run time
        "import torch\n"
        "from packaging import version\n"
        "TORCH_2_4 = version.parse(torch.__version__) >= version.parse('2.4')\n"
        "HAS_AMP_SCALER = hasattr(torch.amp, 'GradScaler')\n"
        "def make_scaler(device_type):\n"
        "    return torch.amp.GradScaler(device_type) if HAS_AMP_SCALER else torch.cuda.amp.GradScaler()\n"
        "def make_autocast():\n"
        "    if TORCH_2_4:\n"
        "        return torch.amp.autocast('cpu')\n"
        "    else:\n"
        "        return torch.cuda.amp.autocast()\n",
        "import torch\n"
        "from utils import NEW_AMP\n"
        "scaler = torch.amp.GradScaler('cuda', enabled=amp) if NEW_AMP else torch.cuda.amp.GradScaler(enabled=amp)\n"
        "def amp_context(enabled):\n"
        "    if NEW_AMP:\n"
        "        return torch.amp.autocast(device_type='cuda', enabled=enabled)\n"
        "    elif enabled:\n"
        "        return torch.cuda.amp.autocast(enabled=enabled)\n"
        "    return None\n",
        # a test of the type a wrapper built, unittest's way
        "import unittest\n"
        "from torch.cuda.amp import GradScaler\n"
        "class TestWrapper(unittest.TestCase):\n"
        "    def test_scaler(self):\n"
        "        self.assertIsInstance(build_wrapper().loss_scaler, GradScaler)\n",
        # the older side of a version check, and either side of one whose direction is not
        # clear (a flag named for a version only; whether torch has an API)
        "import torch\n"
        "from packaging import version\n"
        "def make_scaler(enabled):\n"
        "    if version.parse(torch.__version__) < version.parse('2.3'):\n"
        "        return torch.cuda.amp.GradScaler(enabled=enabled)\n"
        "    return None\n"
        "def make_autocast():\n"
        "    if TORCH_1_13:\n"
        "        return torch.cuda.amp.autocast()\n"
        "    return None\n"
        "def old_scaler():\n"
        "    if not hasattr(torch.amp, 'GradScaler'):\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    if hasattr(torch, 'amp'):\n"
        "        return torch.cuda.amp.GradScaler()\n",
        # the range of versions before the replacement
        "import torch\n"
        "TORCH_VERSION = tuple(int(x) for x in torch.__version__.split('+')[0].split('.')[:2])\n"
        "def make_scaler():\n"
        "    if TORCH_VERSION >= (1, 6) and TORCH_VERSION < (2, 3):\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    if TORCH_VERSION >= (2, 3):\n"
        "        return torch.amp.GradScaler('cuda')\n"
        "    return None\n",
        # the older side of version checks through names that do not say torch
        "import torch\n"
        "from torch import __version__ as pt_version\n"
        "major, minor = (int(x) for x in torch.__version__.split('.')[:2])\n"
        "IS_HIGH_VERSION = (major, minor) >= (2, 3)\n"
        "version = torch.__version__\n"
        "def make_scaler():\n"
        "    if pt_version >= '2.3':\n"
        "        return torch.amp.GradScaler('cuda')\n"
        "    return torch.cuda.amp.GradScaler()\n"
        "def old_scaler():\n"
        "    if not IS_HIGH_VERSION:\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    if (major, minor) < (2, 3):\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    return None\n"
        "def make_autocast():\n"
        "    v = torch.__version__\n"
        "    if v < '2.4':\n"
        "        return torch.cuda.amp.autocast()\n"
        "    return None\n"
        "if version < '2.3':\n"
        "    scaler = torch.cuda.amp.GradScaler()\n",
        # a function defined on the older side only
        "import torch\n"
        "from packaging import version\n"
        "if version.parse(torch.__version__) < version.parse('2.3'):\n"
        "    def make_scaler():\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "else:\n"
        "    def make_scaler():\n"
        "        return torch.amp.GradScaler('cuda')\n",
        # a flag set on each side of a version check: which side the call is on, the flag does not say (the replacement may be newer than 1.6)
        "import torch\n"
        "from packaging import version\n"
        "\n"
        "if version.parse(torch.__version__) >= version.parse(\"1.6\"):\n"
        "    HAS_AMP = True\n"
        "else:\n"
        "    HAS_AMP = False\n"
        "\n"
        "\n"
        "def make_scaler():\n"
        "    if HAS_AMP:\n"
        "        return torch.cuda.amp.GradScaler()\n"
        "    return None\n",
        # a test of whether the old API's import succeeded uses nothing of it
        "try:\n"
        "    from torch.cuda.amp import autocast\n"
        "except ImportError:\n"
        "    autocast = None\n"
        "HAS_AMP = autocast is not None\n"
        "def forward(model, x, enabled):\n"
        "    if not autocast or not enabled:\n"
        "        return model(x)\n"
        "    return model(x)\n",
        # the new API tried first, the old one as the fallback; the old one first with a
        # fallback of the project's own (which may be anything)
        "import torch\n"
        "try:\n"
        "    from torch.amp import autocast\n"
        "except ImportError:\n"
        "    from torch.cuda.amp import autocast\n"
        "try:\n"
        "    from torch.cuda.amp import custom_fwd\n"
        "except ImportError:\n"
        "    from .amp_compat import custom_fwd\n"
        "with autocast('cuda'):\n"
        "    out = model(x)\n",
        # the same flags set by a test of the new API: the old one is its fallback
        "import torch\n"
        "has_new_amp = False\n"
        "try:\n"
        "    if getattr(torch.amp, 'GradScaler') is not None:\n"
        "        has_new_amp = True\n"
        "except AttributeError:\n"
        "    pass\n"
        "def build(opt_level):\n"
        "    use_new = None\n"
        "    if opt_level != 'O0' and has_new_amp:\n"
        "        use_new = 'yes'\n"
        "    if use_new == 'yes':\n"
        "        return torch.amp.GradScaler('cuda')\n"
        "    return torch.cuda.amp.GradScaler()\n",
        # the other side binds the replacement's arguments for the decorators (Megatron-LM)
        "import torch\n"
        "from functools import partial\n"
        "from .utils import is_torch_min_version\n"
        "if is_torch_min_version('2.4.0a0'):\n"
        "    custom_fwd = partial(torch.amp.custom_fwd, device_type='cuda')\n"
        "    custom_bwd = partial(torch.amp.custom_bwd, device_type='cuda')\n"
        "else:\n"
        "    custom_fwd = torch.cuda.amp.custom_fwd\n"
        "    custom_bwd = torch.cuda.amp.custom_bwd\n",
        # the same names from `torch.amp`, star-imported or aliased
        "import torch\n"
        "from torch.amp import *\n"
        "import torch.amp as A\n"
        "scaler = GradScaler('cuda')\n"
        "with autocast('cuda'):\n"
        "    out = model(x)\n"
        "with A.autocast('cuda', dtype=torch.bfloat16):\n"
        "    out = model(x)\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._only_torch: dict[str, bool] = {}  # name -> bound by nothing but imports of torch
        self._classes_beyond_calls: set[str] | None = None
        self._patched_names: frozenset[str] | None = None  # see `_patched`

    def visit_Name(self, node: cst.Name) -> None:
        self._check(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._check(node)

    def _check(self, node: cst.Name | cst.Attribute) -> None:
        if not self.ctx.may_be_imported(node):  # most names: nothing to resolve, nothing else to check
            return
        parent = self.ctx.parent(node)
        if not _is_reference(node, parent) or _through_alias_variable(self.ctx, node):
            return
        qualified = self.ctx.qualified_name(node)
        with_placeholder = qualified is None
        if with_placeholder:
            qualified = self._import_before_placeholders(node)
        if qualified not in DEPRECATED or in_fallback(self.ctx, node) or self._in_annotation(node):
            return
        replacement = DEPRECATED[qualified]
        if self._beside_replacement(node, replacement):
            return
        new_name = f"torch.amp.{replacement.new}"
        # either side of a test that may be of torch's version may run on a torch older than
        # the replacement (`if is_torch_greater_or_equal_than_1_10:`, torch.amp.GradScaler came in
        # 2.3); so does a placeholder's side of a `try` (a torch without AMP)
        fixable = not with_placeholder and not may_depend_on_version(self.ctx, node) and not any(
            may_depend_on_version(self.ctx, line) for line in self._import_lines(node)) and not (
            self._patched(qualified) or self._patched(new_name))
        if type(parent) is cst.Call and parent.func is node:
            if self._is_type_check_argument(parent):
                return
            fix = self._fix_call(parent, node, replacement, qualified) if fixable else None
            self.report(parent, f"`{qualified}(...)` is deprecated; use `{_usage(replacement)}`", fix)
        elif type(parent) is cst.Decorator:
            fix = self._fix_decorator(parent, node, replacement) if fixable else None
            self.report(parent, f"`@{qualified}` is deprecated; use `@{_usage(replacement)}`", fix)
        elif not self._is_type_check_argument(node) and not self._presence_test(node):
            self.report(node, f"`{qualified}` is deprecated; use `{new_name}`")

    def visit_Try(self, node: cst.Try) -> None:
        """`try: from torch.cuda.amp import autocast` / `except ImportError: from
        torch.amp import autocast`: the old API is tried first, and on every torch
        that has it (all current ones) the `try` imports it and the fallback never
        runs. Reported at the import; the name's uses, bound on both sides, are not."""
        if in_fallback(self.ctx, node):
            return
        fallback = {local: qualified for handler in node.handlers if catches_fallback(handler)
                    for local, qualified, _ in _from_imports(handler.body)}
        for local, qualified, alias in _from_imports(node.body):
            replacement = DEPRECATED.get(qualified)
            if replacement is not None and fallback.get(local) in _NEW_NAMES[replacement.new]:
                self.report(alias, f"`{qualified}` is deprecated, and imported before its replacement: on "
                                   f"every torch that has it the `try` imports it; import `torch.amp."
                                   f"{replacement.new}` first and use `{_usage(replacement)}`")

    def _import_lines(self, reference: cst.BaseExpression) -> list[cst.CSTNode]:
        """The imports that bind the name `reference` starts with, in the scope it is read from."""
        head = head_name(reference)
        if head is None:
            return []
        scope = _binding_scope(head.value, self.ctx.scope_of(head))
        if scope is None or head.value not in scope.imports:
            return []
        return [line for line in self.ctx.nodes_of(cst.Import, cst.ImportFrom)
                if head.value in _imported_names(line) and self.ctx.scope_of(line) is scope]  # type: ignore[arg-type]

    def _import_before_placeholders(self, reference: cst.Name | cst.Attribute) -> str | None:
        """What `reference` names when the name it starts with is imported in a `try`
        and otherwise bound only by placeholders in that `try`'s fallback handlers:
        `try: from torch.cuda.amp import GradScaler / except ImportError: class
        GradScaler: ...` (a dummy for a torch without AMP). The import is what runs on
        every torch that has it. None when a handler imports the name or gives it
        another module's object (a fallback of an API, which may be the new one)."""
        head = head_name(reference)
        dotted = dotted_name(reference)
        if head is None or dotted is None:
            return None
        scope = _binding_scope(head.value, self.ctx.scope_of(head))
        if scope is None or len(scope.imports.get(head.value, ())) != 1 or (
                head.value not in scope.locals and head.value not in scope.aliases):
            return None
        if any(names.resolve_all(value, scope) for value in scope.aliases.get(head.value, ())):
            return None
        tries = {id(statement) for line in self._import_lines(reference)
                 if type(statement := self.ctx.parent(self.ctx.parent(self.ctx.parent(line)))) is cst.Try}
        for binding in self.ctx.nodes_of(cst.Name):
            if (binding.value != head.value or not binds(self.ctx, binding) or self.ctx.scope_of(binding) is not scope  # type: ignore[attr-defined]
                    or type(self.ctx.parent(binding)) is cst.Param):  # a parameter is its function's
                continue
            handler = next((a for a in self.ctx.ancestors(binding) if type(a) is cst.ExceptHandler), None)
            if handler is None or id(self.ctx.parent(handler)) not in tries or not catches_fallback(handler):
                return None
        (target,) = scope.imports[head.value]
        return names.canonical(target + dotted[len(head.value):])

    def _beside_replacement(self, node: cst.CSTNode, rep: _Replacement) -> bool:
        """`new if FLAG else old`, `if FLAG: new ... else: old`: the other side of a
        branch calls the replacement for the same device, so the deprecated call is
        the fallback for a torch without it, however the condition is spelled."""
        return any(other is not None and self._calls_replacement(other, rep)
                   for other, _ in opposite_branches(self.ctx, node))

    def _calls_replacement(self, tree: cst.CSTNode, rep: _Replacement) -> bool:
        """`tree` calls the replacement, or binds its arguments for a later call
        (`functools.partial(torch.amp.custom_fwd, device_type="cuda")`, Megatron-LM's)."""
        keyword = "device_type" if rep.decorator or rep.new == "autocast" else "device"
        for call in iter_nodes(tree):
            if type(call) is not cst.Call:
                continue
            func, args = partial_parts(self.ctx, call) or (call.func, list(call.args))
            if self.ctx.qualified_name(func) not in _NEW_NAMES[rep.new]:
                continue
            device = next((arg.value for arg in args if arg.keyword is not None
                           and arg.keyword.value == keyword), None)
            if device is None and args and args[0].keyword is None and not rep.decorator:
                device = args[0].value
            if device is None and rep.new == "GradScaler":
                return True  # `torch.amp.GradScaler()` is CUDA's
            # the same device, or one chosen at run time (`GradScaler(device_type)`); another
            # device's replacement does not make this call a fallback
            if device is not None and string_value(device) in (rep.device, None):
                return True
        return False

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        """`scaler: Optional[torch.cuda.amp.GradScaler]`: a type, never called."""
        for ancestor in self.ctx.ancestors(node):
            if type(ancestor) is cst.Annotation:
                return True
            if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement | cst.Param):
                return False
        return False

    def _presence_test(self, node: cst.CSTNode) -> bool:
        """`GradScaler is not None`, `if GradScaler:`, `not autocast`: a test of whether
        the import succeeded uses nothing of the API."""
        parent = self.ctx.parent(node)
        if type(parent) is cst.Comparison:
            return (parent.left is node and len(parent.comparisons) == 1
                    and type(parent.comparisons[0].operator) in (cst.Is, cst.IsNot)
                    and type(parent.comparisons[0].comparator) is cst.Name
                    and parent.comparisons[0].comparator.value == "None")
        return self._truth_tested(node)

    def _truth_tested(self, node: cst.CSTNode) -> bool:
        """Only `node`'s truth is used: the test of an `if`, a `while` or an `x if _ else y`,
        under `not`, or an operand of `and` / `or` used so (`GradScaler or Dummy` picks one)."""
        parent = self.ctx.parent(node)
        if type(parent) is cst.UnaryOperation:
            return type(parent.operator) is cst.Not
        if type(parent) is cst.BooleanOperation:
            return self._truth_tested(parent)
        return type(parent) in (cst.If, cst.While, cst.IfExp) and getattr(parent, "test", None) is node

    def _is_type_check_argument(self, node: cst.CSTNode) -> bool:
        for ancestor in self.ctx.ancestors(node):
            if type(ancestor) is cst.Call:
                func = ancestor.func
                return ((type(func) is cst.Name and func.value in _TYPE_CHECKS)
                        or (type(func) is cst.Attribute and func.attr.value in _TYPE_ASSERTIONS))
            if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement):
                return False
        return False

    # -- fixes ---------------------------------------------------------------
    def _torch_spelling(self, at: cst.CSTNode, reference: cst.BaseExpression) -> _Spelling | None:
        """How to spell the torch module at `at`, and the import it needs: a
        name certainly bound to torch when `at` runs; else `torch`, imported on
        the line of the function-local import `reference` reads (lazy imports
        stay lazy) or at the top of the module. None when `torch` is bound to
        anything else anywhere in the file, or when no import can make it torch
        at `at`."""
        alias = self.ctx.local_name_for("torch", at)
        if alias is not None and alias != "torch" and self._torch_before(alias, at):
            return _Spelling(alias)
        if not self._only_torch_binds("torch"):
            return None
        if self._torch_before("torch", at):
            return _Spelling("torch")
        binding = _binding_scope("torch", self.ctx.scope_of(at))
        line = self._local_import_line(reference, at)
        here = self.ctx.scope_of(line) if line is not None else None
        if (line is not None and here is not None and (binding is None or _encloses(binding, here))
                and (binding is here or not self._reads_name(here.node, "torch"))):
            import_torch = cst.SimpleStatementLine(
                body=[cst.Import([cst.ImportAlias(cst.Name("torch"))])], leading_lines=line.leading_lines
            )
            new = cst.FlattenSentinel([import_torch, line.with_changes(leading_lines=())])
            return _Spelling("torch", edits={line: new})
        # an `import torch` at the top: unless a local `torch` would hide it, or the
        # module loads without torch now (only the old API's function needs it)
        if binding not in (None, self.ctx.scopes.module_scope) or not self._module_imports(reference):
            return None
        line = self._first_module_import(reference)
        if line is not None and not _only_imports_before(self.ctx.module, line):
            # code runs before the line that loads torch now (`os.environ["OMP_NUM_THREADS"]
            # = "1"`, read when torch loads): torch is imported where it was
            import_torch = cst.SimpleStatementLine(
                body=[cst.Import([cst.ImportAlias(cst.Name("torch"))])], leading_lines=line.leading_lines)
            return _Spelling("torch", edits={line: cst.FlattenSentinel([import_torch, line.with_changes(leading_lines=())])})
        return _Spelling("torch", imports=(RequiredImport("torch"),))

    def _first_module_import(self, reference: cst.BaseExpression) -> cst.SimpleStatementLine | None:
        """The first line of the module's own block that imports the name `reference` starts with."""
        head = head_name(reference)
        if head is None:
            return None
        return next((line for line in self.ctx.scopes.module_scope.node.body
                     if type(line) is cst.SimpleStatementLine
                     and any(head.value in _imported_names(s) for s in line.body)), None)

    def _reads_name(self, function: cst.CSTNode, name: str) -> bool:
        """Whether `name` appears in `function`: an `import` of it added there makes
        it local to the whole function, and a read before that line would raise."""
        return any(type(node) is cst.Name and node.value == name  # type: ignore[attr-defined]
                   and not any(type(a) in (cst.Import, cst.ImportFrom) for a in ancestors_within(self.ctx, node, function))
                   for node in self.ctx.subtree(function))

    def _only_torch_binds(self, name: str) -> bool:
        """Whether nothing in the file binds `name` but `import torch` (`torch.x`,
        `torch as name`; see `binds_only_torch`), nor a star import of a module outside
        torch, unless the project says that module binds `torch` only so, or not at all."""
        if name not in self._only_torch:
            self._only_torch[name] = binds_only_torch(self.ctx, name) and all(
                self._star_keeps(name, module) for scope in self.ctx.scopes.scopes() for module in scope.star_imports)
        return self._only_torch[name]

    def _star_keeps(self, name: str, module: str) -> bool:
        """Whether `from module import *` leaves `name` torch or unbound: a module of
        torch, or, for `torch`, one the project reads (see `Project.torch_exported`)."""
        if module.split(".")[0] == "torch":
            return True
        told = self.ctx.external.get(member_of(module, TORCH_EXPORT))
        return name == "torch" and told is not None and told.torch_export != OTHER

    def _torch_before(self, name: str, at: cst.CSTNode) -> bool:
        """Whether `name` is torch whenever `at` runs: only imports of torch bind
        it, and one of them sits, unconditionally, in the block of the scope the
        name is read from, before the statement that holds `at`."""
        scope = _binding_scope(name, self.ctx.scope_of(at))
        if scope is None or not self._only_torch_binds(name):
            return False
        if scope.is_class and any(type(a) in _OWN_SCOPES for a in ancestors_within(self.ctx, at, scope.node)):
            return False  # a lambda or comprehension in a class body does not see the class's names
        return self._imported_before(name, scope, at) is not None

    def _imported_before(self, name: str, scope: Scope, at: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The first line of `scope`'s own block (not nested in an `if` or `try`)
        that imports `name`, when it comes before the statement holding `at`."""
        block = scope.node if type(scope.node) is cst.Module else scope.node.body  # type: ignore[union-attr]
        if type(block) not in (cst.Module, cst.IndentedBlock):
            return None
        holder = next((n for n in (at, *self.ctx.ancestors(at)) if self.ctx.parent(n) is block), None)
        if holder is None:
            return None
        for statement in block.body:  # type: ignore[union-attr]
            if statement is holder:
                return None
            if type(statement) is cst.SimpleStatementLine and any(name in _imported_names(s) for s in statement.body):
                return statement
        return None

    def _module_imports(self, reference: cst.BaseExpression) -> bool:
        """Whether the module cannot load without the old API: the name
        `reference` starts with is imported by a line of the module's own block
        (not in an `if` or `try`), so an `import torch` at its top adds no need."""
        head = head_name(reference)
        if head is None:
            return False
        module = self.ctx.scopes.module_scope
        if _binding_scope(head.value, self.ctx.scope_of(head)) is not module:
            return False
        return any(type(line) is cst.SimpleStatementLine and any(head.value in _imported_names(s) for s in line.body)
                   for line in module.node.body)

    def _local_import_line(self, reference: cst.BaseExpression, at: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The line of the function-local import that `reference` reads, when it
        sits in the function's own block before the statement holding `at`."""
        head = head_name(reference)
        if head is None:
            return None
        scope = _binding_scope(head.value, self.ctx.scope_of(head))
        if scope is None or not scope.is_function or head.value not in scope.imports:
            return None
        return self._imported_before(head.value, scope, at)

    def _fix_call(self, call: cst.Call, func: cst.BaseExpression, rep: _Replacement, qualified: str) -> Fix | None:
        if any(arg.star for arg in call.args):
            return None
        if any(arg.keyword is not None and arg.keyword.value in ("device", "device_type") for arg in call.args):
            return None
        if rep.new in _CLASSES and qualified in self._classes_used_beyond_calls():
            return None
        spelling = self._torch_spelling(call, func)
        if spelling is None:
            return None
        quote = self._free_quote(call)
        if quote is None:
            return None
        device = cst.SimpleString(f"{quote}{rep.device}{quote}")
        args = list(call.args)
        front: list[cst.Arg] = []  # arguments added before the call's own
        if rep.decorator:
            positional = [a for a in args if a.keyword is None]
            keywords = [a for a in args if a.keyword is not None]
            args = [*positional, _keyword("device_type", device), *keywords]
        else:
            if rep.positional:
                given = [a for a in args if a.keyword is None]
                if len(given) > len(rep.positional):
                    return None
                if any(a.keyword is not None and a.keyword.value in rep.positional[:len(given)] for a in args):
                    return None  # `autocast(True, enabled=False)` raises; as keywords it would not even compile
                args = [
                    _as_keyword(a, rep.positional[i]) if a.keyword is None else a
                    for i, a in enumerate(args)
                ]
            front = [cst.Arg(device)]
            if rep.dtype is not None and not any(a.keyword is not None and a.keyword.value == "dtype" for a in args):
                front.append(_keyword("dtype", cst.parse_expression(f"{spelling.name}.{rep.dtype}")))
            if rep.cache_enabled and not any(a.keyword is not None and a.keyword.value == "cache_enabled" for a in args):
                front.append(_keyword("cache_enabled", cst.Name("True")))
            args = [*front, *args]
        args = _with_commas(args, call.args)
        new_func = cst.parse_expression(f"{spelling.name}.amp.{rep.new}")
        return Fix(
            {call: _front_on_own_lines(call.with_changes(func=new_func, args=args), call, len(front)), **spelling.edits},
            imports=spelling.imports,
            unused_imports=self._imports_behind(func),
        )

    def _free_quote(self, node: cst.CSTNode) -> str | None:
        """The quote a string written at `node` can use: inside an f-string, one
        that does not end it (before Python 3.12, none of its own quotes may appear
        in its replacement fields)."""
        used = {ancestor.quote[0] for ancestor in self.ctx.ancestors(node)  # type: ignore[attr-defined]
                if type(ancestor) is cst.FormattedString}
        return next((quote for quote in ('"', "'") if quote not in used), None)

    def _fix_decorator(self, decorator: cst.Decorator, func: cst.BaseExpression, rep: _Replacement) -> Fix | None:
        if not rep.decorator:
            return None  # `@autocast` / `@GradScaler` builds an object from the function: not a rewrite
        spelling = self._torch_spelling(decorator, func)
        if spelling is None:
            return None
        new = cst.parse_expression(f'{spelling.name}.amp.{rep.new}(device_type="{rep.device}")')
        return Fix(
            {decorator: decorator.with_changes(decorator=new), **spelling.edits},
            imports=spelling.imports,
            unused_imports=self._imports_behind(func),
        )

    def _patched(self, qualified: str) -> bool:
        """Whether the file replaces `qualified`, or a module it is in, at run
        time (`torch.cuda.amp = torch.xpu.amp`, `amp.autocast = npu_autocast`,
        `setattr(torch.cuda.amp, "GradScaler", ...)`): the old spelling calls
        the patch, the new one would not (or would call a patch that takes the
        old arguments). A module loaded by name (`importlib.import_module(name)`)
        may replace any of them."""
        if self._patched_names is None:
            qualify = self.ctx.qualified_name
            self._patched_names = (torch_names_patched(self.ctx, qualify) | dynamic_patches(self.ctx, qualify)
                                   | patched_by_imports(self.ctx.external))
        return any(qualified == name or qualified.startswith(name + ".") for name in self._patched_names)

    def _classes_used_beyond_calls(self) -> set[str]:
        """The deprecated classes the file refers to other than by calling them
        (`isinstance`, `type(x) is`, a base class, an annotation, a variable or
        an attribute of the class): an object of the new class is no instance of
        them, so a call of theirs is not rewritten."""
        if self._classes_beyond_calls is None:
            ctx = self.ctx
            found: set[str] = set()
            for node in ctx.nodes_of(cst.Name, cst.Attribute):
                if not ctx.may_be_imported(node):  # type: ignore[arg-type]
                    continue
                parent = ctx.parent(node)
                if type(parent) is cst.Attribute:
                    used = parent.value is node  # `cls.attr`; else the tail of a longer name
                else:
                    used = _is_reference(node, parent) and not (type(parent) is cst.Call and parent.func is node)  # type: ignore[arg-type, union-attr]
                qualified = ctx.qualified_name(node) if used else None  # type: ignore[arg-type]
                if qualified in DEPRECATED and DEPRECATED[qualified].new in _CLASSES:
                    found.add(qualified)  # type: ignore[arg-type]
            self._classes_beyond_calls = found
        return self._classes_beyond_calls

    def _imports_behind(self, func: cst.BaseExpression) -> tuple[str, ...]:
        """The imports the rewritten reference went through, as written: torch's own
        (`from torch.cuda.amp import autocast`). An import of a module of the project
        that re-exports the API stays: importing it may do more (set a default dtype,
        read the environment)."""
        dotted = dotted_name(func)
        if dotted is None:
            return ()
        head = dotted.split(".")[0]
        return tuple(t for t in names.lookup(head, self.ctx.scope_of(func)) if t.startswith("torch."))


def _only_imports_before(module: cst.Module, line: cst.CSTNode) -> bool:
    """Whether the statements of `module` before `line` only import (or are its docstring)."""
    for statement in module.body:
        if statement is line:
            return True
        if type(statement) is not cst.SimpleStatementLine or not all(
                type(part) in (cst.Import, cst.ImportFrom) or is_docstring(part) for part in statement.body):
            return False
    return True


def _from_imports(block: cst.BaseSuite) -> list[tuple[str, str, cst.ImportAlias]]:
    """The names a block's own `from m import name [as local]` lines bind: (local,
    what it names, the alias)."""
    found = []
    for statement in block.body if type(block) is cst.IndentedBlock else ():  # type: ignore[attr-defined]
        for small in statement.body if type(statement) is cst.SimpleStatementLine else ():
            if type(small) is not cst.ImportFrom or small.relative or type(small.names) is cst.ImportStar:
                continue
            module = import_from_module(small)
            for alias in small.names:  # type: ignore[union-attr]
                name = dotted_name(alias.name)
                local = alias.asname.name.value if alias.asname is not None else name  # type: ignore[attr-defined]
                found.append((local, names.canonical(f"{module}.{name}"), alias))
    return found


def _usage(rep: _Replacement) -> str:
    if rep.decorator:
        return f'torch.amp.{rep.new}(device_type="{rep.device}")'
    return f'torch.amp.{rep.new}("{rep.device}", ...)'


def _front_on_own_lines(new: cst.Call, old: cst.Call, added: int) -> cst.Call:
    """When the original call broke the line before its first argument
    (`f(\n    a,\n    b,\n)`), each of the `added` arguments put in front gets
    a line of its own. A comment after `(` stays there, and comment lines
    above the first argument stay above it (moved, not copied)."""
    before = old.whitespace_before_args
    if not added or not old.args or type(before) is not cst.ParenthesizedWhitespace:
        return new
    plain = before.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    args = list(new.args)
    for i in range(added):
        comma = args[i].comma
        if type(comma) is not cst.Comma:
            return new
        after = plain if i < added - 1 else before.with_changes(first_line=cst.TrailingWhitespace())
        args[i] = args[i].with_changes(comma=comma.with_changes(whitespace_after=after))
    return new.with_changes(args=args, whitespace_before_args=before.with_changes(empty_lines=()))


def _as_keyword(arg: cst.Arg, name: str) -> cst.Arg:
    """`name=value` for a positional argument, with its comma and the
    whitespace (and comments) around it kept."""
    return arg.with_changes(keyword=cst.Name(name), equal=_keyword(name, arg.value).equal)


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    tight = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value, keyword=cst.Name(name), equal=tight)


def _with_commas(args: list[cst.Arg], original: Sequence[cst.Arg]) -> list[cst.Arg]:
    """Commas between the rewritten arguments. The last one keeps the comma
    the original last argument had (a trailing comma stays, with any comment
    or line break after it); an argument added in front gets a comma
    followed by the same break the first original argument had, so a call
    written one argument per line stays so."""
    trailing = original[-1].comma if original else cst.MaybeSentinel.DEFAULT
    out = []
    for i, arg in enumerate(args):
        if i == len(args) - 1:
            out.append(arg.with_changes(comma=trailing))
        elif arg.comma is cst.MaybeSentinel.DEFAULT:
            out.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        else:
            out.append(arg)
    return out


_IMPORT_PARTS = frozenset({cst.Import, cst.ImportFrom, cst.ImportAlias, cst.AsName})


def _is_reference(node: cst.Name | cst.Attribute, parent: cst.CSTNode | None) -> bool:
    """Whether `node` reads a value (and is not a keyword, a definition's
    name, part of an import, or the attribute part of `x.name`). Asked of
    every name: type checks, not isinstance() on LibCST's slow ABCs."""
    kind = type(parent)
    if kind is cst.Attribute:
        return False  # either `node.attr` (the longer chain is checked) or its attr
    if kind in _IMPORT_PARTS:
        return False
    if kind is cst.Arg:
        return parent.keyword is not node  # type: ignore[union-attr]
    if kind in TARGET_HOLDERS:
        return parent.target is not node  # type: ignore[union-attr]
    if kind in NAMED_DEFINITIONS:
        return parent.name is not node  # type: ignore[union-attr]
    return True


def _binding_scope(name: str, scope: Scope | None) -> Scope | None:
    """The scope whose binding of `name` a read in `scope` sees (class
    bodies are not visible from the functions inside them)."""
    first = True
    while scope is not None:
        if not (scope.is_class and not first) and (
            name in scope.imports or name in scope.aliases or name in scope.locals
        ):
            return scope
        first = False
        scope = scope.parent
    return None


def _encloses(outer: Scope, scope: Scope | None) -> bool:
    """Whether `outer` is `scope` or one of the scopes around it."""
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False


# expressions with a scope of their own, which a class body's names do not reach
_OWN_SCOPES = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
def _imported_names(small: cst.BaseSmallStatement) -> set[str]:
    """Local names an import statement binds."""
    if type(small) not in (cst.Import, cst.ImportFrom) or type(small.names) is cst.ImportStar:
        return set()
    out = set()
    for alias in small.names:
        if alias.asname is not None and type(alias.asname.name) is cst.Name:
            out.add(alias.asname.name.value)
        else:
            out.add((dotted_name(alias.name) or "").split(".")[0])
    return out


def _through_alias_variable(ctx: FileContext, node: cst.Name | cst.Attribute) -> bool:
    """`ac()` after `ac = torch.cuda.amp.autocast`: the deprecated API was
    used (and reported) where the variable was assigned, not again here."""
    head = head_name(node)
    if head is None:
        return False
    scope = _binding_scope(head.value, ctx.scope_of(head))
    return scope is not None and head.value in scope.aliases and head.value not in scope.imports
