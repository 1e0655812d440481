"""TL102's fix spells the new API through `torch` and builds a `torch.amp`
object: where either would change what the program does, the finding stays and
no fix is offered; beside them, the fixes that stay, exactly as written.

Each case was offered a "safe" fix that made the program raise or run
differently: `torch` imported after the call, only under `if TYPE_CHECKING:`,
rebound by a lambda parameter, a comprehension, a walrus, `global`, `del`; an
`isinstance` check of the deprecated class the new object is no instance of."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_runner import invoke
from trainlint.registry import by_code
from trainlint.rule import expected_marks
from trainlint.testing import findings_of, fixed_source

TL102 = by_code()["TL102"]
PROJECTS = Path(__file__).parent / "projects"

_CALL = "scaler = GradScaler(enabled=False)  # expect: TL102\n"

REFUSED = [
    # the enabled flag given twice: a call that raises when it runs; as keywords the
    # whole file would stop compiling
    "import torch\n"
    "def debug_region():\n"
    "    with torch.cuda.amp.autocast(True, enabled=False):  # expect: TL102\n"
    "        pass\n",
    # an `import torch` added in the function would make `torch` local to all of it:
    # the read before it would raise (the module's own import is conditional)
    "try:\n"
    "    import torch\n"
    "except ImportError:\n"
    "    pass\n"
    "def f():\n"
    "    y = torch.ones(2)\n"
    "    from torch.cuda.amp import autocast\n"
    "    with autocast(enabled=False):  # expect: TL102\n"
    "        return y * 2\n",
    # the new object is no instance of the deprecated class the file tests for
    "import torch\n"
    "scaler = torch.cpu.amp.GradScaler(enabled=False)  # expect: TL102\n"
    "if isinstance(scaler, torch.cpu.amp.GradScaler):\n"
    "    print('legacy scaler path')\n",
    "from torch.cuda.amp import GradScaler\n"
    + _CALL
    + "assert type(scaler) is GradScaler  # expect: TL102\n",
    "import torch\n"
    "class Scaler(torch.cuda.amp.GradScaler):  # expect: TL102\n"
    "    pass\n"
    "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
    "import torch\n"
    "def train(scaler: torch.cuda.amp.GradScaler):\n"
    "    pass\n"
    "train(torch.cuda.amp.GradScaler())  # expect: TL102\n",
    "import torch\n"
    "ctx = torch.cuda.amp.autocast()  # expect: TL102\n"
    "assert issubclass(type(ctx), torch.cuda.amp.autocast)\n",
    # the file replaces the old API, or its module, at run time (a port to another
    # device): the old spelling calls the replacement, the new one would not
    "import torch\n"
    "if use_xpu:\n"
    "    torch.cuda.amp = torch.xpu.amp\n"
    "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
    "import torch\n"
    "import torch.cuda.amp as amp\n"
    "amp.autocast = device_autocast\n"
    "with amp.autocast():  # expect: TL102\n"
    "    pass\n",
    "import torch\n"
    "setattr(torch.cuda.amp, 'GradScaler', DeviceScaler)\n"
    "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
    # ... or the new API: a patch that takes the old arguments, not `device_type=`
    "import torch\n"
    "torch.amp.custom_fwd = legacy_custom_fwd\n"
    "class Fn(torch.autograd.Function):\n"
    "    @staticmethod\n"
    "    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)  # expect: TL102\n"
    "    def forward(ctx, x):\n"
    "        return x\n",
    # `import torch` later in the function makes `torch` local to all of it; the old
    # API comes from the module, so there is no line of the function to import it on
    "from torch.cpu.amp import autocast\n"
    "def run():\n"
    "    with autocast():  # expect: TL102\n"
    "        x = 1\n"
    "    import torch\n"
    "    return torch.ones(1) * x\n",
    # torch imported only where it may not run, and the module can load without torch:
    # an `import torch` at the top would make torch required
    "try:\n"
    "    import torch\n"
    "except ImportError:\n"
    "    pass\n"
    "def make():\n"
    "    return torch.cuda.amp.GradScaler()  # expect: TL102\n",
    # `torch` bound to something else somewhere in the file
    "from torch.cpu.amp import GradScaler\n"
    "make = lambda torch: GradScaler(enabled=torch)  # expect: TL102\n",
    "from torch.cpu.amp import GradScaler\n"
    "scalers = [GradScaler(enabled=torch) for torch in (False,)]  # expect: TL102\n",
    "from torch.cpu.amp import GradScaler\n"
    "if (torch := False) is False:\n"
    "    s = GradScaler(enabled=torch)  # expect: TL102\n",
    "import torch\n"
    "from torch.cpu.amp import GradScaler\n"
    "def f():\n"
    "    global torch\n"
    "    torch = None\n"
    "def g():\n"
    "    return GradScaler(enabled=False)  # expect: TL102\n",
    "import torch\n"
    "from torch.cpu.amp import GradScaler\n"
    "del torch\n"
    + _CALL,
    # a star import may bind any name, `torch` included
    "import torch\n"
    "from torch.cpu.amp import GradScaler\n"
    "from backend import *\n"
    + _CALL,
]
# one statement that binds `torch` in a function the call is not in
BINDINGS = [
    "for torch in range(2): pass",
    "with open(path) as torch: pass",
    "try:\n        pass\n    except ValueError as torch:\n        pass",
    "torch: int = 1",
    "a, *torch = values",
    "def torch(): pass",
    "class torch: pass",
    "import numpy as torch",
    "import torch.cuda as torch",
    "from backend import torch",
    "match value:\n        case [torch]:\n            pass",
]
REFUSED += [
    "import torch\n"
    "from torch.cuda.amp import GradScaler\n"
    f"def other(path, values, value):\n    {binding}\n"
    + _CALL
    for binding in BINDINGS
]

FIXED = [
    # `import torch` after the call: one is added at the top
    ("from torch.cpu.amp import GradScaler\n"
     "\n"
     "scaler = GradScaler(enabled=False)  # expect: TL102\n"
     "\n"
     "import torch\n",
     "import torch\n"
     "from torch.cpu.amp import GradScaler\n"
     "\n"
     'scaler = torch.amp.GradScaler("cpu", enabled=False)  # expect: TL102\n'
     "\n"
     "import torch\n"),
    # a function used before the module imports torch
    ("from torch.cuda.amp import GradScaler\n"
     "def make():\n"
     "    return GradScaler()  # expect: TL102\n"
     "scaler = make()\n"
     "import torch\n",
     "import torch\n"
     "from torch.cuda.amp import GradScaler\n"
     "def make():\n"
     '    return torch.amp.GradScaler("cuda")  # expect: TL102\n'
     "scaler = make()\n"
     "import torch\n"),
    # `import torch` later in the function: the local import goes where the old one was
    ("def run():\n"
     "    from torch.cpu.amp import autocast\n"
     "    with autocast():  # expect: TL102\n"
     "        x = 1\n"
     "    import torch\n"
     "    return torch.ones(1) * x\n",
     "def run():\n"
     "    import torch\n"
     '    with torch.amp.autocast("cpu", dtype=torch.bfloat16, cache_enabled=True):  # expect: TL102\n'
     "        x = 1\n"
     "    import torch\n"
     "    return torch.ones(1) * x\n"),
    # torch imported for the type checker only
    ("from typing import TYPE_CHECKING\n"
     "from torch.cpu.amp import GradScaler\n"
     "if TYPE_CHECKING:\n"
     "    import torch\n"
     "def make_scaler() -> 'torch.amp.GradScaler':\n"
     "    return GradScaler(enabled=False)  # expect: TL102\n",
     "from typing import TYPE_CHECKING\n"
     "import torch\n"
     "from torch.cpu.amp import GradScaler\n"
     "if TYPE_CHECKING:\n"
     "    import torch\n"
     "def make_scaler() -> 'torch.amp.GradScaler':\n"
     '    return torch.amp.GradScaler("cpu", enabled=False)  # expect: TL102\n'),
    # an alias of torch imported after the call is not used; `torch` is imported
    ("from torch.cuda.amp import GradScaler\n"
     "scaler = GradScaler()  # expect: TL102\n"
     "import torch as th\n",
     "import torch\n"
     "from torch.cuda.amp import GradScaler\n"
     'scaler = torch.amp.GradScaler("cuda")  # expect: TL102\n'
     "import torch as th\n"),
    # `import torch as torch` is torch
    ("import torch as torch\n"
     "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
     "import torch as torch\n"
     'scaler = torch.amp.GradScaler("cuda")  # expect: TL102\n'),
    # the inserted import goes after a `from __future__` line, whatever shares it
    ("from __future__ import annotations; import os\n"
     "from torch.cpu.amp import GradScaler\n"
     "s = GradScaler(enabled=False)  # expect: TL102\n",
     "from __future__ import annotations; import os\n"
     "import torch\n"
     "from torch.cpu.amp import GradScaler\n"
     's = torch.amp.GradScaler("cpu", enabled=False)  # expect: TL102\n'),
    # the deprecated autocast used its own dtype, not the enclosing region's
    ("import torch\n"
     "@torch.cuda.amp.autocast()  # expect: TL102\n"
     "def forward(x):\n"
     "    return x\n",
     "import torch\n"
     '@torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True)  # expect: TL102\n'
     "def forward(x):\n"
     "    return x\n"),
    # a comment after `(` or above the first argument stays once, where it was
    ("import torch\n"
     "scaler = torch.cpu.amp.GradScaler(  # scaler for the fp16 run  # expect: TL102\n"
     "    init_scale=1024.0,\n"
     ")\n"
     "with torch.cpu.amp.autocast(  # expect: TL102\n"
     "    # bf16 on CPU\n"
     "    enabled=False,\n"
     "):\n"
     "    pass\n",
     "import torch\n"
     "scaler = torch.amp.GradScaler(  # scaler for the fp16 run  # expect: TL102\n"
     '    "cpu",\n'
     "    init_scale=1024.0,\n"
     ")\n"
     "with torch.amp.autocast(  # expect: TL102\n"
     '    "cpu",\n'
     "    dtype=torch.bfloat16,\n"
     "    cache_enabled=True,\n"
     "    # bf16 on CPU\n"
     "    enabled=False,\n"
     "):\n"
     "    pass\n"),
    # `del` of the old name is no use of the class beyond calls
    ("import torch\n"
     "from torch.cuda.amp import autocast\n"
     "with autocast():  # expect: TL102\n"
     "    pass\n"
     "del autocast\n",
     "import torch\n"
     "from torch.cuda.amp import autocast\n"
     'with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):  # expect: TL102\n'
     "    pass\n"
     "del autocast\n"),
    # other attributes of torch assigned, a patch beside AMP's, an attribute of the
    # program's own holding the old API: nothing the fixed call reads is replaced
    ("import torch\n"
     "torch.backends.cudnn.benchmark = True\n"
     "torch.cuda.amp.common.amp_definitely_not_available = lambda: False\n"
     "model.autocast = make_autocast\n"
     "scaler = torch.cuda.amp.GradScaler()  # expect: TL102\n",
     "import torch\n"
     "torch.backends.cudnn.benchmark = True\n"
     "torch.cuda.amp.common.amp_definitely_not_available = lambda: False\n"
     "model.autocast = make_autocast\n"
     'scaler = torch.amp.GradScaler("cuda")  # expect: TL102\n'),
    # inside a double-quoted f-string (before Python 3.12) the device is single-quoted
    ("import torch\n"
     'print(f"scaler: {torch.cuda.amp.GradScaler(enabled=False).is_enabled()}")  # expect: TL102\n',
     "import torch\n"
     "print(f\"scaler: {torch.amp.GradScaler('cuda', enabled=False).is_enabled()}\")  # expect: TL102\n"),
]


@pytest.mark.parametrize("source", REFUSED)
def test_no_fix_where_it_would_change_the_program(source: str) -> None:
    findings = findings_of(TL102, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    assert not any(f.fixable for f in findings)
    assert fixed_source(TL102, source, unsafe=True) == source


@pytest.mark.parametrize(("source", "fixed"), FIXED)
def test_the_fix_keeps_the_program(source: str, fixed: str) -> None:
    assert {(f.line, f.code) for f in findings_of(TL102, source)} == expected_marks(source)
    assert fixed_source(TL102, source) == fixed
    compile(fixed, "fixed.py", "exec")
    assert findings_of(TL102, fixed) == []
    assert fixed_source(TL102, fixed) == fixed, "fixing twice must change nothing"


@pytest.mark.parametrize("named", [".", "train.py"])
def test_a_star_import_of_a_package_that_imports_torch_is_fixed_through_it(tmp_path: Path, named: str) -> None:
    """`from models import *` where the package's modules bind `torch` by `import torch`
    alone: the fix is offered, over the whole project and with the file named alone;
    after `from backend import *`, which assigns `torch`, it is not. The fixed text
    compiles and a second `--fix` changes nothing."""
    project = tmp_path / "star_torch_layout"
    shutil.copytree(PROJECTS / "star_torch_layout", project)
    (project / "pyproject.toml").write_text("[tool.trainlint]\n")
    backend = (project / "train_backend.py").read_text()
    code, _, err = invoke(named, "--select", "TL102", "--fix", "--no-cache", cwd=project)
    assert code == (1 if named == "." else 0), err  # train_backend.py's findings stay
    fixed = (project / "train.py").read_text()
    assert 'scaler = torch.amp.GradScaler("cuda")' in fixed
    assert 'with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):' in fixed
    compile(fixed, "train.py", "exec")
    assert (project / "train_backend.py").read_text() == backend
    invoke(named, "--select", "TL102", "--fix", "--no-cache", cwd=project)
    assert (project / "train.py").read_text() == fixed, "fixing twice must change nothing"
