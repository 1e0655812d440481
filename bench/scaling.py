"""Lint time against file size: one file made of N copies of a training loop
(examples/train_fp16.py's `main`, renamed; every copy has its own scaler,
clip and findings), one of N `nn.DataParallel(...)` lines, one training
loop whose `try` body empties its list of losses N * 8 times after a call
that may raise (every reset is asked whether an earlier statement of the body
may skip it: TL202's one finding stays), and one of N classes each building
its own `self.sampler` and setting its epoch. A rule that
scans the whole file for each finding makes the time grow with the square of
the size; the bare LibCST parse of the same file is the floor.

    python bench/scaling.py [--sizes 25,50,100,200] [--other PATH ...]

`--other PATH`: also time the linter of another checkout (its repository root),
side by side in the same run (for a before/after figure).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def loops_file(copies: int) -> str:
    source = (REPO / "examples" / "train_fp16.py").read_text()
    head, main = source.split("def main() -> None:", 1)
    main = main.split('if __name__ == "__main__":', 1)[0]
    return head + "".join(f"def main_{i}() -> None:{main}" for i in range(copies))


def wrappers_file(copies: int) -> str:
    return "import torch.nn as nn\n" + "".join(f"m{i} = nn.DataParallel(net)\n" for i in range(copies * 100))


def resets_file(copies: int) -> str:
    head = (
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        try:\n"
        "            log(len(losses))\n"
    )
    return head + "            losses.clear()\n" * (copies * 8) + "        except OSError:\n            pass\n"


def sampler_classes_file(copies: int) -> str:
    """Classes in families of three (a base and two subclasses), each with its own
    sampler: TL302 asks of every sampler whether each `set_epoch` may reach it."""
    head = "from torch.utils.data import DataLoader, DistributedSampler\n"
    body = (
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit_{i}(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.sampler.set_epoch(epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
    )
    return head + "".join(f"class C{i}{'' if i % 3 == 0 else f'(C{i - 1})'}:\n" + body.format(i=i)
                          for i in range(copies))


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    return time.perf_counter() - started, len(re.findall(r":\d+:\d+: TL\d{3}", done.stdout))


def _linter(checkout: Path | None) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if checkout is not None:  # that checkout's `lint/` as the `trainlint` package
        package = Path(tempfile.mkdtemp()) / "trainlint"
        package.symlink_to(checkout / "lint")
        if not (checkout / "lint" / "rules").exists():
            raise SystemExit(f"{checkout}: link its rules/ as lint/rules first (as an installed copy has them)")
        env["PYTHONPATH"] = str(package.parent)
    return [sys.executable, "-m", "trainlint", "--no-cache", "--jobs", "1", "--select", "ALL", "-q"], env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="25,50,100,200")
    parser.add_argument("--other", action="append", default=[], type=Path)
    args = parser.parse_args(argv)
    linters = [("this checkout", *_linter(None))] + [(f"other {i}", *_linter(p)) for i, p in enumerate(args.other, 1)]
    for i, other in enumerate(args.other, 1):
        print(f"other {i}: {other}")
    print(f"{'file':<12}{'size':>6}{'lines':>8}{'parse s':>9}" + "".join(f"{name:>30}" for name, *_ in linters))
    with tempfile.TemporaryDirectory() as folder:
        for kind, build in (("loops", loops_file), ("wrappers", wrappers_file), ("resets", resets_file),
                            ("samplers", sampler_classes_file)):
            for size in (int(s) for s in args.sizes.split(",")):
                path = Path(folder) / f"{kind}_{size}.py"
                path.write_text(build(size))
                lines = path.read_text().count("\n")
                parse, _ = _timed([sys.executable, "-c", f"import libcst; libcst.parse_module(open({str(path)!r}).read())"],
                                  dict(os.environ))
                cells = []
                for _, command, env in linters:
                    seconds, found = _timed([*command, str(path)], env)
                    cells.append(f"{seconds:>8.2f} s {found:>6} findings")
                print(f"{kind:<12}{size:>6}{lines:>8}{parse:>9.2f}" + "".join(f"{c:>30}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
