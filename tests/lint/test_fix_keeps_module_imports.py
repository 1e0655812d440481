"""A safe fix never removes a module-level import: the name is also an attribute
of the module, and another module may import it from there (`from a import
autocast`). Only a function's own import goes once unused; `--unsafe-fixes`
removes module-level ones too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cli_runner import invoke

PROVIDER = (
    "import torch\n"
    "from torch.cuda.amp import autocast\n"
    "\n"
    "def forward(model, x):\n"
    "    with autocast():\n"
    "        return model(x)\n"
)
USER = (
    "from provider import autocast\n"
    "\n"
    "def evaluate(model, x):\n"
    "    with autocast(enabled=False):\n"
    "        return model(x)\n"
)
LOCAL = (
    "def forward(model, x):\n"
    "    from torch.cuda.amp import autocast\n"
    "    with autocast():\n"
    "        return model(x)\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "provider.py").write_text(PROVIDER)
    (tmp_path / "user.py").write_text(USER)
    (tmp_path / "local.py").write_text(LOCAL)
    return tmp_path


def _names_of(path: Path) -> set[str]:
    """The names the module's top-level imports bind."""
    return {alias.asname or alias.name for statement in ast.parse(path.read_text()).body
            if isinstance(statement, (ast.Import, ast.ImportFrom)) for alias in statement.names}


def test_safe_fix_rewrites_the_call_and_keeps_the_module_level_import(project: Path) -> None:
    code, _, err = invoke(".", "--select", "TL102", "--fix", cwd=project)
    assert code == 0, err
    provider = (project / "provider.py").read_text()
    assert 'with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):' in provider
    assert "autocast" in _names_of(project / "provider.py"), "user.py imports it from provider"
    # the other module's own use, through the re-export, is rewritten too; its import
    # of the name from provider.py still resolves
    assert (project / "user.py").read_text() == "import torch\n" + USER.replace(
        "autocast(enabled=False)", 'torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True, enabled=False)')
    assert (project / "local.py").read_text() == (
        "def forward(model, x):\n"
        "    import torch\n"
        '    with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n'
        "        return model(x)\n"
    )


def test_unsafe_fixes_also_remove_the_module_level_import(project: Path) -> None:
    code, _, err = invoke(".", "--select", "TL102", "--fix", "--unsafe-fixes", cwd=project)
    assert code == 0, err
    assert "autocast" not in _names_of(project / "provider.py")


def test_a_function_importing_the_reexport_keeps_the_import_of_the_project_module(project: Path) -> None:
    """Importing a module of the project runs it (it may set a default dtype): only an
    import of torch's own module goes once unused."""
    (project / "lazy.py").write_text(
        "def evaluate(model, x):\n"
        "    from provider import autocast\n"
        "    with autocast(enabled=False):\n"
        "        return model(x)\n")
    code, _, err = invoke("lazy.py", "--select", "TL102", "--fix", cwd=project)
    assert code == 0, err
    assert (project / "lazy.py").read_text() == (
        "def evaluate(model, x):\n"
        "    import torch\n"
        "    from provider import autocast\n"
        '    with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True, enabled=False):\n'
        "        return model(x)\n")


def test_torch_is_imported_where_the_module_loaded_it_when_code_runs_before(project: Path) -> None:
    """`OMP_NUM_THREADS` set before the line that first loads torch (through a module
    of the project): `import torch` goes on that line, not above the setting."""
    source = ('"""Evaluation."""\n'
              "import os\n"
              'os.environ["OMP_NUM_THREADS"] = "1"\n'
              "from provider import autocast\n"
              "\n"
              "with autocast(enabled=False):\n"
              "    pass\n")
    (project / "script.py").write_text(source)
    code, _, err = invoke("script.py", "--select", "TL102", "--fix", cwd=project)
    assert code == 0, err
    assert (project / "script.py").read_text() == source.replace(
        "from provider", "import torch\nfrom provider").replace(
        "autocast(enabled=False)", 'torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True, enabled=False)')


def test_a_function_no_fix_changed_keeps_its_import(project: Path) -> None:
    """Only the function whose call was rewritten loses its unused import; another
    function's import of the same name (read through `locals()`, or unused) stays."""
    source = ("def a():\n"
              "    from torch.cuda.amp import autocast\n"
              "    with autocast(enabled=False):\n"
              "        return 1\n"
              "\n"
              "def b():\n"
              "    from torch.cuda.amp import autocast\n"
              "    return 'autocast' in locals()\n")
    (project / "two.py").write_text(source)
    code, _, err = invoke("two.py", "--select", "TL102", "--fix", cwd=project)
    assert code == 0, err
    assert (project / "two.py").read_text() == source.replace(
        "    from torch.cuda.amp import autocast\n    with autocast(enabled=False):",
        '    import torch\n    with torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True, enabled=False):')
