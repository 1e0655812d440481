"""The wheel installs the linter as `trainlint` (from lint/) and
`trainlint.rules` (from rules/), and the sanitizer as `sanitizer`: no
top-level `rules` package that another distribution could also install
(django-rules installs `rules`), and a top-level `lint` (from alias/lint) that
holds nothing but `python -m lint`, the command the interface contract names."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"lint": "trainlint", "rules": "trainlint.rules", "sanitizer": "sanitizer", "alias/lint": "lint"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _packages_in_tree() -> set[str]:
    found = set()
    for folder, name in FOLDERS.items():
        root = ROOT / folder
        for directory in [root, *root.rglob("*")]:
            if directory.is_dir() and directory.name != "__pycache__" and any(directory.glob("*.py")):
                found.add(".".join((name, *directory.relative_to(root).parts)))
    return found


def test_every_folder_of_the_tree_is_installed_under_its_mapped_name() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]
    assert setuptools["package-dir"] == {name: folder for folder, name in FOLDERS.items()}
    assert set(setuptools["packages"]) == _packages_in_tree(), (
        "a folder with Python files is missing from (or stale in) [tool.setuptools] packages"
    )


def test_the_console_script_runs_the_installed_package() -> None:
    assert _pyproject()["project"]["scripts"] == {"trainlint": "trainlint.cli:main"}


def test_the_tests_import_this_checkout() -> None:
    import trainlint

    where = Path(trainlint.__file__).resolve().parent
    assert where == ROOT / "lint", f"trainlint is imported from {where}: run `pip install -e .` in {ROOT}"


def _can_build_wheels() -> bool:
    """setuptools builds wheels by itself from 70.1 on, with `wheel` before."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    return any(importlib.util.find_spec(name) is not None for name in ("setuptools.command.bdist_wheel", "wheel"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of this checkout's packaged files."""
    if not _can_build_wheels():
        pytest.skip("needs setuptools>=70.1 (the [test] extra) or wheel")
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
         "--wheel-dir", str(tmp_path / "dist"), str(source)],
        check=True, capture_output=True, timeout=300,
    )
    (built,) = (tmp_path / "dist").glob("trainlint-*.whl")
    return built


def test_the_wheel_has_no_top_level_rules_and_a_lint_that_only_starts_the_command(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"trainlint", "sanitizer", "lint"}
    assert sorted(name for name in names if name.startswith("lint/")) == ["lint/__init__.py", "lint/__main__.py"]
    rule = next(p.name for p in (ROOT / "rules").glob("*.py") if p.name != "__init__.py")
    assert {"trainlint/__main__.py", "trainlint/rules/__init__.py", f"trainlint/rules/{rule}",
            "sanitizer/__main__.py"} <= set(names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "trainlint = trainlint.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_python_dash_m_lint_runs_an_installed_trainlint(wheel: Path, tmp_path: Path) -> None:
    """Installed (not in a checkout), `python -m lint` is `trainlint`, as the contract says."""
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    (tmp_path / "t.py").write_text("import torch.nn as nn\nm = nn.DataParallel(m)\n")
    env = {**os.environ, "PYTHONPATH": str(target)}  # ahead of any other trainlint installed
    for module in ("lint", "trainlint"):
        done = subprocess.run([sys.executable, "-m", module, "t.py", "--no-cache"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1 and "t.py:2:5: TL301 " in done.stdout, (module, done.stderr)
    probe = "import lint, trainlint; print(lint.__file__, trainlint.__file__)"
    where = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert where.stdout.split() == [str(target / "lint" / "__init__.py"), str(target / "trainlint" / "__init__.py")]


def test_python_dash_m_lint_in_a_checkout_runs_the_lint_folder() -> None:
    done = subprocess.run([sys.executable, "-m", "lint", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("trainlint, version"), done.stderr
