from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import is_constant
from trainlint.context import FileContext
from trainlint.rule import Rule

BENCHMARK = "torch.backends.cudnn.benchmark"
DETERMINISTIC = "torch.backends.cudnn.deterministic"


class BenchmarkWithDeterministic(Rule):
    """
    ## What it does
    Flags a file that sets both `torch.backends.cudnn.benchmark = True` and
    `torch.backends.cudnn.deterministic = True` (under any alias, e.g.
    `import torch.backends.cudnn as cudnn`). The finding points at the later
    of the two assignments; a file gets one finding, at the last assignment
    that completes such a pair.

    ## Why is this bad?
    `benchmark = True` lets cuDNN time several convolution algorithms and pick
    the fastest, which may differ from run to run; `deterministic = True`
    asks for reproducible algorithms. Together, the intent is contradictory:
    either the run is meant to be reproducible (set `benchmark = False`, as a
    seeding function should) or fast (drop `deterministic`).

    ## Example
    ```python
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True
    ```

    ## Use instead
    ```python
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    ```

    ## Fix safety
    No fix: only the author knows whether speed or reproducibility matters.

    ## Limitations
    Only the literal `True` counts (`cudnn.benchmark = args.benchmark` is not
    judged), and two assignments in opposite branches of one `if` / `else`
    never both run, so they are not flagged.
    """

    code = "TL501"
    name = "benchmark-with-deterministic"
    severity = "warning"
    message = "cuDNN `benchmark = True` contradicts `deterministic = True` set in the same file"
    triggers = ("cudnn",)
    bad = (
        "import torch\n"
        "torch.backends.cudnn.deterministic = True\n"
        "torch.backends.cudnn.benchmark = True  # expect: TL501\n",
        "import torch.backends.cudnn as cudnn\n"
        "def set_seed(seed):\n"
        "    cudnn.deterministic = True\n"
        "def main():\n"
        "    set_seed(0)\n"
        "cudnn.benchmark = True  # expect: TL501\n",
        "from torch.backends import cudnn\n"
        "import random\n"
        "def main_worker(args):\n"
        "    if args.seed is not None:\n"
        "        random.seed(args.seed)\n"
        "        cudnn.deterministic = True\n"
        "    model = build(args)\n"
        "    cudnn.benchmark = True  # expect: TL501\n",
        "import torch as th\n"
        "class Config:\n"
        "    def apply(self):\n"
        "        th.backends.cudnn.benchmark = True\n"
        "        th.backends.cudnn.deterministic = True  # expect: TL501\n",
    )
    good = (
        # the chapter's set_seed: deterministic on, benchmark off
        "import torch\n"
        "def set_seed(seed=42):\n"
        "    torch.manual_seed(seed)\n"
        "    torch.backends.cudnn.deterministic = True\n"
        "    torch.backends.cudnn.benchmark = False\n",
        # either one or the other
        "import torch.backends.cudnn as cudnn\n"
        "if args.deterministic:\n"
        "    cudnn.deterministic = True\n"
        "else:\n"
        "    cudnn.benchmark = True\n",
        "import torch\n"
        "torch.backends.cudnn.benchmark = not args.deterministic\n"
        "torch.backends.cudnn.deterministic = args.deterministic\n",
        "import torch\n"
        "torch.backends.cudnn.benchmark = True\n"
        "torch.backends.cudnn.deterministic = False\n",
        # a local object that only shares the attribute names
        "class cudnn:\n"
        "    pass\n"
        "cudnn.benchmark = True\n"
        "cudnn.deterministic = True\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._assignments: list[tuple[str, cst.Assign]] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if not is_constant(node.value, "True"):
            return
        for target in node.targets:
            if type(target.target) is cst.Attribute and target.target.attr.value in ("benchmark", "deterministic"):
                self._assignments.append((target.target.attr.value, node))

    def finish(self) -> None:
        flags = [(self.ctx.qualified_name(n.targets[0].target), n) for _, n in self._assignments]
        benchmarks = [n for name, n in flags if name == BENCHMARK]
        deterministics = [n for name, n in flags if name == DETERMINISTIC]
        # pre-order position: which assignment is written later
        order = {node: self.ctx.order_index(node) for node in self.ctx.nodes_of(cst.Assign)}
        completing = [
            later
            for later in benchmarks + deterministics
            if any(
                order[other] < order[later] and not self._exclusive(other, later)
                for other in (deterministics if later in benchmarks else benchmarks)
            )
        ]
        if completing:  # one finding per file: the last assignment that completes a pair
            self.report(max(completing, key=order.__getitem__))

    def _exclusive(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """`a` and `b` sit in different branches of one `if` statement."""
        branch_a = self._branches(a)
        branch_b = self._branches(b)
        return any(stmt in branch_b and branch_b[stmt] != side for stmt, side in branch_a.items())

    def _branches(self, node: cst.CSTNode) -> dict[cst.If, int]:
        out: dict[cst.If, int] = {}
        child = node
        for ancestor in self.ctx.ancestors(node):
            if type(ancestor) is cst.If:
                out[ancestor] = 0 if child is ancestor.body else 1
            child = ancestor
        return out
