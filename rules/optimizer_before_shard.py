from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import reaching
from trainlint.analysis.flow import Facts, Flow
from trainlint.analysis.receivers import OPTIMIZER
from trainlint.analysis.scopes import assignment_targets, dotted_name
from trainlint.analysis.training import code_bodies, method_call
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Rule

_FSDP1 = "torch.distributed.fsdp.FullyShardedDataParallel"


class OptimizerBeforeShard(Rule):
    """
    ## What it does
    Flags wrapping a model with `FullyShardedDataParallel(model)` or
    `fully_shard(model)` after an optimizer was built from that model's
    parameters (`torch.optim.AdamW(model.parameters())`, or an optimizer
    builder given `model`) in the same function.

    ## Why is this bad?
    Sharding replaces the model's parameters: FSDP1 flattens them into new
    sharded flat parameters, FSDP2 turns each one into a sharded DTensor. An
    optimizer built before that holds the original, unsharded tensors, which
    no longer receive gradients: `optimizer.step()` updates nothing the model
    uses (or fails on mismatched tensors), and each rank keeps a full copy of
    the weights and optimizer state, defeating the memory savings.

    ## Example
    ```python
    import torch
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model = FSDP(model)
    ```

    ## Use instead
    ```python
    model = FSDP(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ```

    ## Fix safety
    No fix: moving the optimizer may move code that depends on it (a
    scheduler, a checkpoint load).

    ## Limitations
    The model must be spelled the same in both places (`model`,
    `self.model`), or the optimizer be built from a plain alias of it
    (`model_without_ddp = model`). Parameter groups are followed through the
    variables they are built in (what each holds where it is read: its last
    assignment always run before, `params = filter(f, params)` reading the
    one before it; any of those assigned in branches, and those assigned
    later in a loop that comes back to it without passing that last one),
    not into helper functions. Sharding
    submodules of a model whose optimizer already exists (`fully_shard(layer)`
    in a loop), wrapping done in a helper function, and optimizers built in
    another function are not followed.
    """

    code = "TL306"
    name = "optimizer-before-shard"
    severity = "error"
    message = "the model is sharded after its optimizer was built: the optimizer holds the unsharded parameters; build it after wrapping"
    triggers = ("FullyShardedDataParallel", "fully_shard")
    bad = (
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
        "model = FSDP(model, use_orig_params=True)  # expect: TL306\n",
        "from torch.distributed.fsdp import fully_shard\n"
        "from torch.optim import SGD\n"
        "def setup(model):\n"
        "    opt = SGD([{'params': model.parameters(), 'lr': 0.1}], momentum=0.9)\n"
        "    for layer in model.layers:\n"
        "        fully_shard(layer)\n"
        "    fully_shard(model)  # expect: TL306\n"
        "    return model, opt\n",
        "import torch\n"
        "import torch.distributed.fsdp as fsdp\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.Adam(self.model.parameters())\n"
        "        self.model = fsdp.FullyShardedDataParallel(self.model)  # expect: TL306\n",
        "from torch.distributed._composable.fsdp import fully_shard\n"
        "import bitsandbytes as bnb\n"
        "opt = bnb.optim.AdamW8bit(net.named_parameters())\n"
        "if world_size > 1:\n"
        "    fully_shard(net)  # expect: TL306\n",
        # DETR's parameter groups, drawn from an alias of the model
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel\n"
        "def main(model, args):\n"
        "    model_without_ddp = model\n"
        "    param_dicts = [\n"
        "        {'params': [p for n, p in model_without_ddp.named_parameters() if 'backbone' not in n]},\n"
        "        {'params': [p for n, p in model_without_ddp.named_parameters() if 'backbone' in n],\n"
        "         'lr': args.lr_backbone},\n"
        "    ]\n"
        "    optimizer = torch.optim.AdamW(param_dicts, lr=args.lr)\n"
        "    model = FullyShardedDataParallel(model)  # expect: TL306\n"
        "    return model, optimizer\n",
        # the groups' tensors gathered into a variable of their own first
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "decay = [p for n, p in model.named_parameters() if p.ndim >= 2]\n"
        "no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]\n"
        "groups = [{'params': decay, 'weight_decay': 0.1}, {'params': no_decay, 'weight_decay': 0.0}]\n"
        "optimizer = torch.optim.AdamW(groups, lr=3e-4)\n"
        "fully_shard(model)  # expect: TL306\n",
        # the groups filtered in place: the last value before the optimizer still holds the model's parameters
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(model, cfg):\n"
        "    params = [p for p in model.parameters()]\n"
        "    params = filter(lambda p: p.requires_grad, params)\n"
        "    opt = torch.optim.AdamW(params, lr=cfg.lr)\n"
        "    fully_shard(model)  # expect: TL306\n"
        "    return model, opt\n",
        # the next pass of the loop builds an optimizer from the backbone's parameters, bound after the first
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, head, stages):\n"
        "    optimizers = []\n"
        "    params = list(head.parameters())\n"
        "    for stage in stages:\n"
        "        optimizers.append(torch.optim.AdamW(params, lr=1e-3))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)  # expect: TL306\n"
        "    return optimizers\n",
        # the loop's target is rebound to the backbone's parameters before each optimizer
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, heads):\n"
        "    optimizers = []\n"
        "    for params in [list(head.parameters()) for head in heads]:\n"
        "        params = list(backbone.parameters())\n"
        "        optimizers.append(torch.optim.AdamW(params))\n"
        "    fully_shard(backbone)  # expect: TL306\n"
        "    return optimizers\n",
        # a part of what a `case` captures, read after the `match`: a pass whose stage does not
        # match builds the optimizer on the backbone's parameters the pass before gave
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, head, stages):\n"
        "    optimizers = []\n"
        "    for stage in stages:\n"
        "        match stage.trainable(head):\n"
        "            case [params, *_]:\n"
        "                pass\n"
        "        optimizers.append(torch.optim.AdamW(params))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)  # expect: TL306\n"
        "    return optimizers\n",
    )
    good = (
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "model = FSDP(model, use_orig_params=True)\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\n",
        "from torch.distributed.fsdp import fully_shard\n"
        "import torch\n"
        "for block in model.blocks:\n"
        "    fully_shard(block)\n"
        "fully_shard(model)\n"
        "opt = torch.optim.AdamW(model.parameters())\n",
        # a different model: the teacher is sharded, the student optimized
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "opt = torch.optim.AdamW(student.parameters())\n"
        "fully_shard(teacher)\n",
        # a new model replaces the old before it is wrapped
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "probe = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model = build_model(cfg)\n"
        "model = FSDP(model)\n",
        # a project's own `fully_shard`
        "import torch\n"
        "def fully_shard(m):\n"
        "    return m\n"
        "opt = torch.optim.AdamW(model.parameters())\n"
        "fully_shard(model)\n",
        # parameter groups drawn after wrapping
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel\n"
        "def main(model, args):\n"
        "    model = FullyShardedDataParallel(model, use_orig_params=True)\n"
        "    param_dicts = [{'params': [p for n, p in model.named_parameters() if 'backbone' not in n]}]\n"
        "    optimizer = torch.optim.AdamW(param_dicts, lr=args.lr)\n"
        "    return model, optimizer\n",
        # parameter groups of the student; the teacher is sharded
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "groups = [{'params': [p for p in student.parameters() if p.requires_grad]}]\n"
        "opt = torch.optim.AdamW(groups)\n"
        "fully_shard(teacher)\n",
        # the alias was taken of a model replaced before the new one is wrapped
        "import torch\n"
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "def main(model, cfg):\n"
        "    probe_model = model\n"
        "    model = build_model(cfg)\n"
        "    probe = torch.optim.SGD(probe_model.parameters(), lr=0.1)\n"
        "    model = FSDP(model)\n"
        "    return model, probe\n",
        # the variable holds another model's parameters when the optimizer is built from it
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, probe, cfg):\n"
        "    params = list(backbone.parameters())\n"
        "    params = [{'params': probe.parameters(), 'lr': cfg.lr}]\n"
        "    opt = torch.optim.AdamW(params)\n"
        "    fully_shard(backbone)\n"
        "    return opt\n"
        "def setup_frozen(backbone, probe):\n"
        "    params = list(probe.parameters())\n"
        "    opt = torch.optim.AdamW(params)\n"
        "    params = list(backbone.parameters())\n"
        "    fully_shard(backbone)\n"
        "    return opt, params\n",
        # each head's optimizer is built from the head's parameters, bound in the inner loop
        # on every way back to it: the backbone's, bound after it, never reach it
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, heads, stages):\n"
        "    optimizers = []\n"
        "    for stage in stages:\n"
        "        for head in heads[stage]:\n"
        "            params = list(head.parameters())\n"
        "            optimizers.append(torch.optim.AdamW(params, lr=1e-3))\n"
        "        params = list(backbone.parameters())\n"
        "        print(stage, sum(p.numel() for p in params))\n"
        "    fully_shard(backbone)\n"
        "    return optimizers\n",
        # the loop's target, or a `with`'s name, is bound anew before each optimizer: to
        # values not spelled here; the backbone's parameters, bound after, never reach it
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup(backbone, heads):\n"
        "    optimizers = []\n"
        "    for params in [list(head.parameters()) for head in heads]:\n"
        "        optimizers.append(torch.optim.AdamW(params))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)\n"
        "    return optimizers\n"
        "def setup_staged(backbone, head, stages):\n"
        "    optimizers = []\n"
        "    for stage in stages:\n"
        "        with stage.trainable(head) as params:\n"
        "            pass\n"
        "        optimizers.append(torch.optim.AdamW(params))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)\n"
        "    return optimizers\n",
        # ... or what a `case` captures: the whole subject (sure to match, so bound after the
        # `match` too), or a part of it, in the case's body; the backbone's parameters come later
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup_matched(backbone, head, stages):\n"
        "    optimizers = []\n"
        "    for stage in stages:\n"
        "        match stage.trainable(head):\n"
        "            case params:\n"
        "                pass\n"
        "        optimizers.append(torch.optim.AdamW(params))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)\n"
        "    return optimizers\n"
        "def setup_first(backbone, head, stages):\n"
        "    optimizers = []\n"
        "    for stage in stages:\n"
        "        match stage.trainable(head):\n"
        "            case [params, *_]:\n"
        "                optimizers.append(torch.optim.AdamW(params))\n"
        "        params = list(backbone.parameters())\n"
        "    fully_shard(backbone)\n"
        "    return optimizers\n",
        # a capture of the backbone's parameters binds only in its own case: another case, or
        # the code after a capturing case that returns, still has the head's
        "import torch\n"
        "from torch.distributed.fsdp import fully_shard\n"
        "def setup_other_case(backbone, head):\n"
        "    params = list(head.parameters())\n"
        "    match list(backbone.parameters()):\n"
        "        case [single] as params:\n"
        "            pass\n"
        "        case _:\n"
        "            optimizer = torch.optim.AdamW(params)\n"
        "    fully_shard(backbone)\n"
        "    return optimizer\n"
        "def setup_after_return(backbone, head, frozen):\n"
        "    params = list(head.parameters())\n"
        "    match [] if frozen else list(backbone.parameters()):\n"
        "        case [first, second] as params:\n"
        "            return None\n"
        "    optimizer = torch.optim.AdamW(params)\n"
        "    fully_shard(backbone)\n"
        "    return optimizer\n",
    )

    def finish(self) -> None:
        optimizers = [call for call in self.ctx.nodes_of(cst.Call) if self.ctx.receivers.kind(call) == OPTIMIZER]
        self._optimized = frozenset().union(*(self._optimized_models(call) for call in optimizers))  # type: ignore[arg-type]
        # what those names may have been set from (`model_without_ddp = model`): rebinding it ends the alias
        self._sources = frozenset(alias[1] for alias in map(self._alias, self.ctx.nodes_of(cst.Assign)) if alias)
        for body in code_bodies(self.ctx):
            Flow(self.ctx, self._transfer, events=self._is_event).run_if_events(body)

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to: optimizer and wrapping calls,
        and assignments that rebind a model some optimizer was given, or what
        such a model was set from."""
        if type(node) is cst.Call:
            return self.ctx.receivers.kind(node) == OPTIMIZER or self._wrapped_model(node) is not None
        if type(node) in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            return not _rebound(node).isdisjoint(self._optimized | self._sources)
        return False

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        """Facts: the models an optimizer was built from (names), and the aliases in
        force (`("model_without_ddp", "model")`): an optimizer built from an alias's
        parameters holds the parameters of what it was set from."""
        if type(node) is cst.Call:
            if self.ctx.receivers.kind(node) == OPTIMIZER:
                models = self._optimized_models(node)
                return facts | models | {fact[1] for fact in facts if type(fact) is tuple and fact[0] in models}
            wrapped = self._wrapped_model(node)
            if wrapped is not None and wrapped in facts:
                self.report(node)
            return facts
        if type(node) in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            rebound = _rebound(node)
            kept = frozenset(fact for fact in facts if rebound.isdisjoint(fact if type(fact) is tuple else (fact,)))
            alias = self._alias(node) if type(node) is cst.Assign else None
            return kept | {alias} if alias is not None else kept
        return facts

    def _alias(self, node: cst.Assign) -> tuple[str, str] | None:
        """`(target, source)` of `model_without_ddp = model`, for a target some
        optimizer was given."""
        target = dotted_name(node.targets[0].target) if len(node.targets) == 1 else None
        source = dotted_name(node.value)
        if target is None or source is None or target not in self._optimized or target == source:
            return None
        return target, source

    def _wrapped_model(self, call: cst.Call) -> str | None:
        name = self.ctx.call_name(call)
        if name is None or not name.startswith("torch.distributed."):
            return None
        if name != _FSDP1 and not name.endswith(".fully_shard"):
            return None
        for arg in call.args:
            if arg.keyword is None and not arg.star or arg.keyword is not None and arg.keyword.value == "module":
                return dotted_name(arg.value)
        return None

    def _optimized_models(self, call: cst.Call) -> frozenset[str]:
        """Models whose parameters an optimizer call receives: `M.parameters()`
        anywhere in its arguments or in what a variable among them was set to
        (parameter groups built beforehand: `groups = [{"params": [p for n, p in
        M.named_parameters() if "backbone" not in n]}, ...]`), or `M` itself given
        to an optimizer builder."""
        models = {name for name in (dotted_name(arg.value) for arg in call.args) if name is not None}
        return frozenset(models | self._read_parameters(call, set()))

    def _read_parameters(self, expr: cst.CSTNode, seen: set[int]) -> set[str]:
        """Models whose `.parameters()` / `.named_parameters()` `expr` reads, also
        through the variables it reads: the values they may hold there, from the
        last assignment always run before (`groups = filter(..., groups)` reads the
        `groups` assigned before it), each value followed once. A `for` target or a
        `with ... as` name holds a value not spelled: it says nothing, and a binding
        it always follows does not reach."""
        receivers = self.ctx.receivers
        models: set[str] = set()
        for node in iter_nodes(expr):
            receiver = method_call(node, "parameters", "named_parameters")
            if receiver is not None and dotted_name(receiver) is not None:
                models.add(dotted_name(receiver))  # type: ignore[arg-type]
            elif type(node) is cst.Name and node is not expr and not _read_from(self.ctx.parent(node), node):
                binding = receivers.binding(node)
                unspelled = receivers.header_bound(binding) if binding is not None else []
                values = [*receivers.assigned(binding), *unspelled] if binding is not None else []
                for value in reaching(self.ctx, node, values):
                    if id(value) not in seen and not any(value is other for other in unspelled):
                        seen.add(id(value))
                        models |= self._read_parameters(value, seen)
        return models


def _rebound(node: cst.Assign | cst.AnnAssign | cst.AugAssign) -> set[str | None]:
    targets = assignment_targets(node)
    return {dotted_name(t) for t in targets}


def _read_from(parent: cst.CSTNode | None, name: cst.Name) -> bool:
    """`name` is what an attribute is read from (`args` of `args.lr`): not a value given as is."""
    return type(parent) is cst.Attribute and parent.value is name
