from __future__ import annotations

import libcst as cst

from trainlint.analysis.scopes import dotted_name, import_from_module
from trainlint.context import FileContext
from trainlint.rule import Rule

FSDP1 = "torch.distributed.fsdp.FullyShardedDataParallel"
COMPOSABLE = "torch.distributed._composable.fsdp"


class Fsdp1Api(Rule):
    """
    ## What it does
    Flags constructing `FullyShardedDataParallel(...)` (FSDP1, under any
    import or alias, also bound for later calls with `functools.partial`),
    and imports or attribute uses of the private
    `torch.distributed._composable.fsdp` path.

    ## Why is this bad?
    FSDP2, `fully_shard` from `torch.distributed.fsdp` (PyTorch 2.6 and
    later), shards each parameter as a DTensor: it composes with tensor
    parallelism, needs no flat-parameter bookkeeping, keeps the original
    parameters visible to the optimizer and state-dict code, and is where
    development happens. FSDP1 is in maintenance. The
    `torch.distributed._composable.fsdp` path was FSDP2's preview location: a
    private module that may disappear.

    ## Example
    ```python
    import torch
    from torch.distributed.fsdp import ShardingStrategy
    model = torch.distributed.fsdp.FullyShardedDataParallel(model, sharding_strategy=ShardingStrategy.FULL_SHARD)
    ```

    ## Use instead
    ```python
    for block in model.blocks:
        torch.distributed.fsdp.fully_shard(block)
    torch.distributed.fsdp.fully_shard(model)
    ```

    ## Fix safety
    No fix: FSDP2 shards per module, has different options and state-dict
    handling; moving to it is a migration, not a rewrite of one line.

    ## Limitations
    A preview rule (off unless selected): FSDP1 still works. Only the
    construction is flagged; `isinstance(m, FSDP)`, `FSDP.state_dict_type`
    and other uses of the class that support existing checkpoints are not.
    """

    code = "TL305"
    name = "fsdp1-api"
    severity = "info"
    message = "FSDP1 `FullyShardedDataParallel`: new code should use FSDP2 `fully_shard` from `torch.distributed.fsdp`"
    preview = True
    triggers = ("FullyShardedDataParallel", "_composable")
    bad = (
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "model = FSDP(model, use_orig_params=True)  # expect: TL305\n",
        "import torch\n"
        "model = torch.distributed.fsdp.FullyShardedDataParallel(model)  # expect: TL305\n",
        "from torch.distributed.fsdp.fully_sharded_data_parallel import FullyShardedDataParallel\n"
        "def wrap(m, policy):\n"
        "    return FullyShardedDataParallel(m, auto_wrap_policy=policy)  # expect: TL305\n",
        "from torch.distributed._composable.fsdp import fully_shard  # expect: TL305\n"
        "fully_shard(model)\n",
        "import torch.distributed as dist\n"
        "dist._composable.fsdp.fully_shard(model)  # expect: TL305\n",
        "import torch.distributed.fsdp as fsdp\n"
        "model = fsdp.FullyShardedDataParallel(model)  # expect: TL305\n",
        "from functools import partial\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "wrapper = partial(FSDP, sharding_strategy=strategy, use_orig_params=True)  # expect: TL305\n"
        "model = wrapper(model)\n",
    )
    good = (
        "from torch.distributed.fsdp import fully_shard\n"
        "for block in model.layers:\n"
        "    fully_shard(block)\n"
        "fully_shard(model)\n",
        # supporting FSDP1 checkpoints is not building an FSDP1 model
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType\n"
        "if isinstance(model, FSDP):\n"
        "    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):\n"
        "        state = model.state_dict()\n",
        "class FullyShardedDataParallel:\n"
        "    pass\n"
        "m = FullyShardedDataParallel()\n",
        "from fairscale.nn import FullyShardedDataParallel\n"
        "model = FullyShardedDataParallel(model)\n",
        "# model = FSDP(model)  uses torch.distributed._composable.fsdp\n"
        "print('FullyShardedDataParallel(model)')\n",
        "import functools\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "shard = functools.partial(fully_shard, reshard_after_forward=True)\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._attributes: list[cst.Attribute] = []

    def visit_Import(self, node: cst.Import) -> None:
        if any(_is_composable(dotted_name(alias.name)) for alias in node.names):
            self.report(node, _COMPOSABLE_MESSAGE)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = import_from_module(node)
        if _is_composable(module):
            self.report(node, _COMPOSABLE_MESSAGE)
        elif module == "torch.distributed._composable" and type(node.names) is not cst.ImportStar:
            if any(dotted_name(alias.name) == "fsdp" for alias in node.names):
                self.report(node, _COMPOSABLE_MESSAGE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "fsdp":
            self._attributes.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.call_name(node)
        if name == FSDP1:
            self.report(node)
        elif name == "functools.partial" and node.args and self.ctx.qualified_name(node.args[0].value) == FSDP1:
            self.report(node)  # the constructor, its arguments bound for later calls

    def finish(self) -> None:
        for attribute in self._attributes:
            # a module path inside an import statement is reported with the statement
            if any(type(a) in (cst.Import, cst.ImportFrom) for a in self.ctx.ancestors(attribute)):
                continue
            if self.ctx.qualified_name(attribute) == COMPOSABLE:
                self.report(attribute, _COMPOSABLE_MESSAGE)


_COMPOSABLE_MESSAGE = (
    "`torch.distributed._composable.fsdp` is FSDP2's private preview path: import `fully_shard` from `torch.distributed.fsdp`"
)


def _is_composable(module: str | None) -> bool:
    return module is not None and (module == COMPOSABLE or module.startswith(COMPOSABLE + "."))
