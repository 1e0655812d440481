"""Running the `trainlint` command in-process, for the CLI tests."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from trainlint.cli import main

REPO = Path(__file__).resolve().parents[2]

DP_BUG = "import torch.nn as nn\nmodel = nn.DataParallel(model)\n"
CLIP_BUG = (
    "import torch\n"
    "scaler = torch.amp.GradScaler('cuda')\n"
    "for x in loader:\n"
    "    opt.zero_grad()\n"
    "    scaler.scale(model(x)).backward()\n"
    "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "    scaler.step(opt)\n"
    "    scaler.update()\n"
)
# a training loop whose only finding (TL201) has an unsafe fix
UNSAFE_ONLY = (
    "import torch\n"
    "for b in loader:\n"
    "    loss = model(b)\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "    opt.zero_grad()\n"
    "    torch.cuda.empty_cache()\n"
)


def child_env() -> dict[str, str]:
    """The environment of a `python` subprocess: this checkout first on its path,
    ahead of the path the tests run with (where `trainlint` may be a link to this
    checkout's `lint/`), so that it runs the code the tests import."""
    paths = [str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def invoke(*args: str, cwd: Path, stdin: bytes | str | None = None) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `trainlint ARGS` run in `cwd`."""
    result = invoke_raw(*args, cwd=cwd, stdin=stdin)
    return result.exit_code, result.stdout, result.stderr


def invoke_raw(*args: str, cwd: Path, stdin: bytes | str | None = None) -> Result:
    """The whole result, with stdout as bytes (`stdout_bytes`)."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)
    finally:
        os.chdir(old)


_PROBE = """
import sys
from trainlint.cli import main
try:
    main(["check", "--exit-zero", "--format", "json", *sys.argv[1:], "."], prog_name="trainlint")
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m == "libcst" or m.startswith(("trainlint.rules.", "trainlint.engine")))
print("LOADED", loaded, file=sys.stderr)
"""


def modules_loaded(root: Path, *options: str) -> list[str]:
    """LibCST, the engine and the rule modules a `trainlint check [options] .`
    run in `root` imported, in a fresh process."""
    env = child_env()
    argv = [sys.executable, "-c", _PROBE, *options]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("LOADED "))
    return ast.literal_eval(line.removeprefix("LOADED "))
