import libcst as cst

from trainlint.analysis.partials import PARTIAL
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Rule

DATA_PARALLEL = "torch.nn.DataParallel"
_KEY_ATTRIBUTES = frozenset({"state_dict", "load_state_dict", "module"})  # reading these runs nothing


class DataParallel(Rule):
    """
    ## What it does
    Flags constructing `torch.nn.DataParallel` (under any import or alias),
    binding it with `functools.partial` for later construction, and classes
    that subclass it.

    ## Why is this bad?
    `DataParallel` runs one Python process that drives every GPU from threads:
    it is held back by the GIL, scatters inputs and gathers outputs through the
    first GPU (which runs out of memory first and bottlenecks the rest), and
    re-broadcasts the model every step. `DistributedDataParallel`, one process
    per GPU launched with `torchrun`, is faster even on a single machine and is
    what PyTorch recommends.

    ## Example
    ```python
    from torch import nn
    model = nn.DataParallel(model, device_ids=[0, 1, 2, 3])
    ```

    ## Use instead
    ```python
    dist.init_process_group(backend="nccl")
    model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
    ```

    ## Fix safety
    No fix: moving to DDP changes how the script is launched and how data is
    split (a `DistributedSampler`), which only the author can do.

    ## Limitations
    `isinstance(m, nn.DataParallel)` checks and unwrapping code
    (`model.module`) are not flagged: they support DataParallel, they do not
    use it. Nor is a wrapper only read for its state dict or `.module`
    (`nn.DataParallel(model).state_dict()` for `module.`-prefixed keys): nothing
    runs through it.
    """

    code = "TL301"
    name = "data-parallel"
    severity = "warning"
    message = "`nn.DataParallel` is single-process and GIL-bound; use DistributedDataParallel with torchrun"
    triggers = ("DataParallel",)
    bad = (
        "import torch\nmodel = torch.nn.DataParallel(model)  # expect: TL301\n",
        "import torch.nn as nn\nmodel = nn.DataParallel(model, device_ids=[0, 1])  # expect: TL301\n",
        "from torch.nn.parallel import DataParallel as DP\nnet = DP(net).cuda()  # expect: TL301\n",
        "from torch import nn\n\nclass Wrapped(nn.DataParallel):  # expect: TL301\n    pass\n",
        "from torch.nn.parallel.data_parallel import DataParallel\nm = DataParallel(m)  # expect: TL301\n",
        "import torch\nDP = torch.nn.DataParallel\nm = DP(m)  # expect: TL301\n",
        # bound by `functools.partial` for later construction
        "import functools\n"
        "import torch\n"
        "\n"
        "\n"
        "def wrap(model, gpus):\n"
        "    parallelize = functools.partial(torch.nn.DataParallel, device_ids=gpus)  # expect: TL301\n"
        "    return parallelize(model)\n",
    )
    good = (
        # wrapped only for its `module.`-prefixed state dict keys (a checkpoint test)
        "from torch import nn\n"
        "def test_complex_model_loaded(build, align):\n"
        "    for wrap in (False, True):\n"
        "        model, state_dict = build()\n"
        "        if wrap:\n"
        "            model = nn.DataParallel(model)\n"
        "        model.load_state_dict(align(model.state_dict(), state_dict))\n"
        "def test_loads_data_parallel_keys(strip_prefix):\n"
        "    wrapped = nn.DataParallel(nn.Linear(2, 2))\n"
        "    nn.Linear(2, 2).load_state_dict(strip_prefix(wrapped.state_dict()))\n"
        "    keys = list(nn.DataParallel(nn.Linear(2, 2)).state_dict())\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, device_ids=[rank])\n",
        "import torch.nn as nn\nif isinstance(model, nn.DataParallel):\n    model = model.module\n",
        "class DataParallel:\n    pass\n\nm = DataParallel()\n",
        "# model = nn.DataParallel(model)\nprint('nn.DataParallel(model) is slow')\n",
        "from mylib import DataParallel\nm = DataParallel(m)\n",
        "import torch\ndef f(nn):\n    return nn.DataParallel(m)\n",
        # a partial of DistributedDataParallel
        "import functools\n"
        "from torch.nn.parallel import DistributedDataParallel\n"
        "\n"
        "\n"
        "def wrap(model, rank):\n"
        "    parallelize = functools.partial(DistributedDataParallel, device_ids=[rank])\n"
        "    return parallelize(model)\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.call_name(node)
        if name == DATA_PARALLEL and not self._only_for_its_keys(node):
            self.report(node)
        elif (name == PARTIAL and node.args and node.args[0].keyword is None
              and self.ctx.qualified_name(node.args[0].value) == DATA_PARALLEL):
            self.report(node, "`functools.partial` of `nn.DataParallel` wraps models in it: it is single-process "
                              "and GIL-bound; use DistributedDataParallel with torchrun")

    def _only_for_its_keys(self, call: cst.Call) -> bool:
        """The wrapper is only read for its state dict or its `.module`
        (`nn.DataParallel(model).state_dict()` to get `module.`-prefixed keys in a
        checkpoint test or a conversion script): nothing runs through it."""
        parent = self.ctx.parent(call)
        if type(parent) is cst.Attribute:
            return parent.attr.value in _KEY_ATTRIBUTES
        if type(parent) is not cst.Assign or len(parent.targets) != 1 or type(parent.targets[0].target) is not cst.Name:
            return False
        name = parent.targets[0].target.value
        body = self.ctx.enclosing_function(call)
        inside = set(iter_nodes(call))  # `model = nn.DataParallel(model)` reads the model it wraps
        uses = [n for n in self._names_in(body.body if body is not None else self.ctx.module).get(name, ())
                if n not in inside and not self._assigned(n)]
        return bool(uses) and all(
            type(owner := self.ctx.parent(n)) is cst.Attribute and owner.value is n
            and owner.attr.value in _KEY_ATTRIBUTES for n in uses)

    def _names_in(self, body: cst.CSTNode) -> dict[str, list[cst.Name]]:
        """The names of a function's (or the module's) own code, by name: read once
        per body, however many wrappers it builds."""
        cache: dict[int, dict[str, list[cst.Name]]] = self.__dict__.setdefault("_names", {})
        found = cache.get(id(body))
        if found is None:
            found = cache[id(body)] = {}
            for node in self.ctx.own_nodes(body):
                if type(node) is cst.Name:
                    found.setdefault(node.value, []).append(node)
        return found

    def _assigned(self, name: cst.Name) -> bool:
        """`name` is bound here (`model, sd = build()`), not read."""
        node: cst.CSTNode = name
        parent = self.ctx.parent(node)
        while type(parent) in (cst.Tuple, cst.List, cst.Element, cst.StarredElement):
            node, parent = parent, self.ctx.parent(parent)
        return type(parent) is cst.AssignTarget or (type(parent) is cst.For and parent.target is node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            if self.ctx.qualified_name(base.value) == DATA_PARALLEL:
                self.report(node, "subclassing `nn.DataParallel`: it is single-process and GIL-bound; use DistributedDataParallel")
                return
