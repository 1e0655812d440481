import libcst as cst

from trainlint.analysis.flow import Facts
from trainlint.analysis.loops import clears_grads, is_backward, is_optimizer, optimizer_step, run_each_iteration
from trainlint.analysis.training import ancestors_within, method_call
from trainlint.rule import Rule

_BACKWARD = "backward"


class ZeroGradBeforeStep(Rule):
    """
    ## What it does
    Flags a gradient clear (`optimizer.zero_grad()`, `model.zero_grad()`,
    `p.grad = None`) reached after `backward()` and before the optimizer
    step that should use those gradients, in the same iteration, along some
    path through the code (the file's own helper functions included).

    ## Why is this bad?
    The step then applies zero (or missing) gradients: with `set_to_none`
    the parameters do not move at all, and with plain zeros momentum and
    weight decay alone move them. The loss stays flat and nothing fails.

    ## Example
    ```python
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    ```

    ## Use instead
    ```python
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ```

    ## Fix safety
    No fix: moving the clear changes which gradients every later step sees.

    ## Limitations
    Only one iteration is followed: a `backward()` at the end of one
    iteration and a clear at the start of the next are not connected, nor
    is a `backward()` run once before the training loop (a warm-up pass whose
    gradients are inspected or saved) with a clear inside the loop. A
    clear through one optimizer before the step of another (two-player
    training) is not flagged; a clear through a model or its parameters is.
    """

    code = "TL402"
    name = "zero-grad-before-step"
    severity = "error"
    message = "gradients are cleared between `backward()` and the optimizer step: the step applies zeros"
    triggers = ("backward",)
    bad = (
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.zero_grad()  # expect: TL402\n"
        "    optimizer.step()\n",
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer, scaler):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x, y)\n"
        "        scaler.scale(loss).backward()\n"
        "        model.zero_grad(set_to_none=True)  # expect: TL402\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "scaler = torch.amp.GradScaler('cuda')\n",
        # the clear hides in a helper called between backward and step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.opt = torch.optim.AdamW(model.parameters())\n"
        "    def reset(self):\n"
        "        self.opt.zero_grad()  # expect: TL402\n"
        "    def fit(self, loader):\n"
        "        while True:\n"
        "            for batch in loader:\n"
        "                self.model(batch).backward()\n"
        "                self.reset()\n"
        "                self.opt.step()\n",
        "import torch\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "for epoch in range(5):\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        if clip:\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        for p in model.parameters():\n"
        "            p.grad = None  # expect: TL402\n"
        "        opt.step()\n",
    )
    good = (
        # a one-off backward before the loop, its gradients saved; cleared in the loop
        "import torch\n"
        "def main(model, loader, optimizer):\n"
        "    model(next(loader)).sum().backward()\n"
        "    torch.save({n: p.grad for n, p in model.named_parameters()}, 'grads.pt')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        for micro in x.chunk(4):\n"
        "            model(micro).sum().backward()\n"
        "        optimizer.step()\n",
        # gradient accumulation: the clear follows the step
        "import torch\n"
        "optimizer = torch.optim.AdamW(model.parameters())\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    loss = criterion(model(x), y) / accum\n"
        "    loss.backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # step, then clear: the clear textually follows a backward of the loop
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad(set_to_none=True)\n",
        # two optimizers: each clears its own before its backward
        "import torch\n"
        "opt_d = torch.optim.Adam(disc.parameters())\n"
        "opt_g = torch.optim.Adam(gen.parameters())\n"
        "for real in loader:\n"
        "    opt_d.zero_grad()\n"
        "    d_loss(disc, gen, real).backward()\n"
        "    opt_d.step()\n"
        "    opt_g.zero_grad()\n"
        "    g_loss(disc, gen, real).backward()\n"
        "    opt_g.step()\n",
        # a second backward after the clear: the step uses its gradients
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    warm = criterion(model(x), y)\n"
        "    warm.backward()\n"
        "    opt.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    opt.step()\n",
        # the clear only in a comment
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    opt.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    # opt.zero_grad()  -- not here, it would wipe the gradients\n"
        "    opt.step()\n",
    )

    def finish(self) -> None:
        run_each_iteration(self.ctx, self._transfer, events=self._is_event)

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to."""
        return method_call(node, "backward", "step") is not None or clears_grads(self.ctx, node)

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        if is_backward(node):
            return frozenset({(_BACKWARD, node)})
        optimizer = optimizer_step(self.ctx, node)
        if optimizer is not None:
            stepped = self.ctx.code(optimizer)
            for fact in facts:
                if fact[0] != _BACKWARD and fact[1] in (None, stepped):
                    self.report(fact[0])
            return frozenset()
        backwards = [fact[1] for fact in facts if fact[0] == _BACKWARD]
        if any(self._same_iteration(b, node) for b in backwards) and clears_grads(self.ctx, node):
            return facts | {(node, self._cleared_optimizer(node))}
        return facts

    def _same_iteration(self, backward: cst.CSTNode, clear: cst.CSTNode) -> bool:
        """A clear inside loops pairs with a backward inside one of them (the
        same iteration), not with one run once before them all (a warm-up
        pass, gradients dumped for a reference file) that reaches only the
        first iteration. Across functions the flow's own iteration
        boundaries decide."""
        function = self.ctx.enclosing_function(clear)
        if self.ctx.enclosing_function(backward) is not function:
            return True
        loops = [a for a in ancestors_within(self.ctx, clear, function) if type(a) in (cst.For, cst.While)]
        outer = set(ancestors_within(self.ctx, backward, function))
        return not loops or any(loop in outer for loop in loops)

    def _cleared_optimizer(self, node: cst.CSTNode) -> str | None:
        """The optimizer a clear goes through (None: a model or parameters)."""
        receiver = method_call(node, "zero_grad")
        if receiver is not None and is_optimizer(self.ctx, receiver):
            return self.ctx.code(receiver)
        return None
