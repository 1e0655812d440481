"""The benchmark corpora, copied into a scratch directory.

- `quick` / `full`: the installed torch package's own sources (library code:
  the trigger pre-filter skips most of it).
- `training`: real training scripts, where every rule runs: the `examples/`
  folder of huggingface/diffusers at a pinned commit (about 300 files,
  260,000 lines), read from a local git mirror with

      git --git-dir $TRAINLINT_MIRROR/huggingface+diffusers/repo archive <commit> examples

  (the layout the `fetch` tool and `git clone --mirror` give; TRAINLINT_MIRROR
  defaults to /work/.mirror). Make the mirror with
  `git clone --mirror https://github.com/huggingface/diffusers <mirror>/huggingface+diffusers/repo`.
- `project`: every `.py` of the same commit of diffusers (about 2,100 files,
  the library and its tests as well as the examples): a project whose files
  call each other, for incremental runs (bench/project_bench.py).
"""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

QUICK_FOLDERS = ("nn", "optim", "utils/data", "amp", "cuda")
TRAINING_REPO = "huggingface/diffusers"
TRAINING_COMMIT = "58eb52c0803ea9af3abec60841c2a093bdf1f951"
TRAINING_FOLDER = "examples"
MIRROR = Path(os.environ.get("TRAINLINT_MIRROR", "/work/.mirror"))


def copy_corpus(destination: Path, kind: str) -> Path:
    """Copy the .py files of corpus `kind` under `destination`; returns the
    directory to lint."""
    if kind == "training":
        return _copy_training(destination) / TRAINING_FOLDER
    if kind == "project":
        return _copy_training(destination, whole=True)
    return _copy_torch(destination, full=kind == "full")


def torch_source_dir() -> Path:
    """Where the installed torch package lives, found without importing it."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bench: torch is not installed; the corpus is its source")
    return Path(list(spec.submodule_search_locations)[0])


def _copy_torch(destination: Path, full: bool) -> Path:
    source = torch_source_dir()
    target = destination / "torch"

    def ignore(directory: str, names: list[str]) -> list[str]:
        return [
            name for name in names
            if name == "__pycache__" or (not name.endswith(".py") and not os.path.isdir(os.path.join(directory, name)))
        ]

    for folder in [""] if full else list(QUICK_FOLDERS):
        shutil.copytree(source / folder, target / folder, ignore=ignore, dirs_exist_ok=True)
    return target


def _copy_training(destination: Path, whole: bool = False) -> Path:
    """The `.py` files of the pinned commit (of its examples folder unless
    `whole`), under `destination/diffusers`."""
    repo = MIRROR / TRAINING_REPO.replace("/", "+") / "repo"
    folders = [] if whole else [TRAINING_FOLDER]
    archive = subprocess.run(
        ["git", "--git-dir", str(repo), "archive", TRAINING_COMMIT, *folders], capture_output=True
    )
    if archive.returncode != 0:
        raise SystemExit(
            f"bench: cannot read {TRAINING_REPO}@{TRAINING_COMMIT[:12]} from {repo} "
            f"({archive.stderr.decode(errors='replace').strip()}); make the mirror with\n"
            f"  git clone --mirror https://github.com/{TRAINING_REPO} {repo}"
        )
    target = destination / "diffusers"
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".py")]
        tar.extractall(target, members=members, filter="data")
    return target
