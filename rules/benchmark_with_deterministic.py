from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import is_constant
from trainlint.analysis.guards import ends_in_exit
from trainlint.analysis.training import statements_before
from trainlint.context import FileContext
from trainlint.rule import Rule

BENCHMARK = "torch.backends.cudnn.benchmark"
DETERMINISTIC = "torch.backends.cudnn.deterministic"
ALGORITHMS = "torch.use_deterministic_algorithms"


class BenchmarkWithDeterministic(Rule):
    """
    ## What it does
    Flags a file that sets both `torch.backends.cudnn.benchmark = True` and
    `torch.backends.cudnn.deterministic = True` (under any alias, e.g.
    `import torch.backends.cudnn as cudnn`), or `benchmark = True` and
    `torch.use_deterministic_algorithms(True)`, which asks for deterministic
    convolutions too. The finding points at the later of the two; a file gets
    one finding, at the last one that completes such a pair.

    ## Why is this bad?
    `benchmark = True` lets cuDNN time several convolution algorithms and pick
    the fastest, which may differ from run to run; `deterministic = True`
    asks for reproducible algorithms. Together, the intent is contradictory:
    either the run is meant to be reproducible (set `benchmark = False`, as a
    seeding function should) or fast (drop `deterministic`).

    ## Example
    ```python
    import torch
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
    judged). Two assignments that never hold together are not flagged: in
    opposite branches of one `if` / `else`; one in a branch that returns or
    raises before the other runs; or one set again (`benchmark = False`) before
    the other, by a statement that always runs first in the same function.
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
        # switched off only on one path: on the other both are on
        "import torch\n"
        "torch.backends.cudnn.benchmark = True\n"
        "if args.strict:\n"
        "    torch.backends.cudnn.benchmark = False\n"
        "torch.backends.cudnn.deterministic = True  # expect: TL501\n",
        # the branch that returns holds both
        "import torch\n"
        "def main(args):\n"
        "    if args.eval_only:\n"
        "        torch.backends.cudnn.benchmark = True\n"
        "        torch.backends.cudnn.deterministic = True  # expect: TL501\n"
        "        return evaluate()\n"
        "    train()\n",
        # a seeding function that asks for deterministic algorithms
        "import torch\n"
        "\n"
        "def set_seed(seed):\n"
        "    torch.manual_seed(seed)\n"
        "    torch.use_deterministic_algorithms(True)\n"
        "\n"
        "def main():\n"
        "    set_seed(0)\n"
        "    torch.backends.cudnn.benchmark = True  # expect: TL501\n",
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
        # benchmark is switched off before deterministic is switched on
        "import torch\n"
        "def main(args):\n"
        "    if args.deterministic:\n"
        "        torch.backends.cudnn.benchmark = False\n"
        "    else:\n"
        "        torch.backends.cudnn.benchmark = True\n"
        "    if args.test_only:\n"
        "        torch.backends.cudnn.benchmark = False\n"
        "        torch.backends.cudnn.deterministic = True\n"
        "        evaluate()\n"
        "        return\n"
        "    train()\n",
        "import torch\n"
        "torch.backends.cudnn.benchmark = True\n"
        "torch.backends.cudnn.benchmark = False\n"
        "torch.backends.cudnn.deterministic = True\n",
        # the deterministic branch returns before benchmark is switched on
        "import torch\n"
        "def main(args):\n"
        "    if args.eval_only:\n"
        "        torch.backends.cudnn.deterministic = True\n"
        "        return evaluate()\n"
        "    torch.backends.cudnn.benchmark = True\n"
        "    train()\n",
        # a local object that only shares the attribute names
        "class cudnn:\n"
        "    pass\n"
        "cudnn.benchmark = True\n"
        "cudnn.deterministic = True\n",
        # deterministic algorithms switched off again before benchmark is switched on
        "import torch\n"
        "torch.use_deterministic_algorithms(True)\n"
        "torch.use_deterministic_algorithms(False)\n"
        "torch.backends.cudnn.benchmark = True\n",
        "import torch\n"
        "if args.deterministic:\n"
        "    torch.use_deterministic_algorithms(True)\n"
        "else:\n"
        "    torch.backends.cudnn.benchmark = True\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._assignments: list[cst.Assign] = []
        self._algorithm_switches: list[cst.Call] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if type(target.target) is cst.Attribute and target.target.attr.value in ("benchmark", "deterministic"):
                self._assignments.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        if last == "use_deterministic_algorithms" and self.ctx.call_name(node) == ALGORITHMS:
            self._algorithm_switches.append(node)

    def finish(self) -> None:
        flags = [(self.ctx.qualified_name(n.targets[0].target), n) for n in self._assignments]
        on = [(name, n) for name, n in flags if name in (BENCHMARK, DETERMINISTIC) and is_constant(n.value, "True")]
        self._resets = {n: name for name, n in flags if name in (BENCHMARK, DETERMINISTIC) and (name, n) not in on}
        # `torch.use_deterministic_algorithms(True)` asks for deterministic convolutions as well
        switched = [(call, _mode(call)) for call in self._algorithm_switches]
        self._resets.update({call: DETERMINISTIC for call, mode in switched if mode == "False"})
        benchmarks = [n for name, n in on if name == BENCHMARK]
        deterministics: list[cst.CSTNode] = [n for name, n in on if name == DETERMINISTIC]
        deterministics += [call for call, mode in switched if mode == "True"]
        # pre-order position: which assignment is written later
        order = {node: self.ctx.order_index(node) for node in [*self.ctx.nodes_of(cst.Assign), *self._algorithm_switches]}
        completing = [
            later
            for later in benchmarks + deterministics
            if any(
                order[other] < order[later] and not self._exclusive(other, later)
                and not self._exits_between(other, later) and not self._reset_between(other, later, order)
                for other in (deterministics if later in benchmarks else benchmarks)
            )
        ]
        if completing:  # one finding per file: the last assignment that completes a pair
            last = max(completing, key=order.__getitem__)
            pairs = [other for other in (deterministics if last in benchmarks else benchmarks)
                     if order[other] < order[last]]
            if any(type(node) is cst.Call for node in [last, *pairs]):
                self.report(last, "cuDNN `benchmark = True` contradicts `torch.use_deterministic_algorithms(True)` "
                                  "set in the same file: the fastest algorithm cuDNN times may differ from run to run")
            else:
                self.report(last)

    def _reset_between(self, other: cst.Assign, later: cst.Assign, order: dict[cst.CSTNode, int]) -> bool:
        """The flag `other` set is set again (to anything but True) after it, by a
        statement that runs whenever `later` does: one before it in its block or in a
        block around it, in its function (`benchmark = False` just before
        `deterministic = True`)."""
        flag = self._flag(other)
        return any(self._resets.get(assign) == flag and order[assign] > order[other]
                   for statement in statements_before(self.ctx, later) for assign in _assignments_in(statement))

    def _exits_between(self, other: cst.Assign, later: cst.Assign) -> bool:
        """`other` sits in a block of `later`'s function that ends in `return` / `raise`
        and does not hold `later`: once `other` ran, `later` does not."""
        function = self.ctx.enclosing_function(other)
        if function is None or self.ctx.enclosing_function(later) is not function:
            return False
        for ancestor in self.ctx.ancestors(other):
            if ancestor is function:
                return False
            if type(ancestor) is cst.IndentedBlock and ends_in_exit(ancestor) and not _within(later, ancestor, self.ctx):
                return True
        return False

    def _flag(self, node: cst.CSTNode) -> str | None:
        if type(node) is cst.Call:
            return DETERMINISTIC
        return self.ctx.qualified_name(node.targets[0].target)  # type: ignore[attr-defined]

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


def _assignments_in(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """The assignments a simple statement line makes, and the calls it is
    (`torch.use_deterministic_algorithms(False)`); compound statements: none."""
    if type(statement) is not cst.SimpleStatementLine:
        return []
    return [small.value if type(small) is cst.Expr else small for small in statement.body
            if type(small) is cst.Assign or (type(small) is cst.Expr and type(small.value) is cst.Call)]


def _mode(call: cst.Call) -> str | None:
    """`True` / `False` when the call's mode is written as that literal."""
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == 0 and not arg.star) or (arg.keyword is not None and arg.keyword.value == "mode"):
            for literal in ("True", "False"):
                if is_constant(arg.value, literal):
                    return literal
    return None


def _within(node: cst.CSTNode, block: cst.CSTNode, ctx: FileContext) -> bool:
    return any(ancestor is block for ancestor in ctx.ancestors(node))
