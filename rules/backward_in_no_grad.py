from lint.analysis.loops import is_backward, lexical_grad_mode
from lint.rule import Rule


class BackwardInNoGrad(Rule):
    """
    ## What it does
    Flags `.backward()` called inside `with torch.no_grad():` /
    `with torch.inference_mode():` (or `torch.set_grad_enabled(False)`), or in
    a function decorated with them (`@torch.no_grad`, `@torch.no_grad()`,
    `@torch.inference_mode()`, under any alias, or a wrapper of the same file
    built on them), unless `torch.enable_grad()` re-enables gradients around
    the call.

    ## Why is this bad?
    Under `no_grad` the forward pass records no graph, so the loss does not
    require grad and `backward()` raises "element 0 of tensors does not
    require grad and does not have a grad_fn" (under `inference_mode`, an
    error about inference tensors). The training step never runs; often the
    code was moved from an evaluation helper.

    ## Example
    ```python
    with torch.no_grad():
        loss = criterion(model(x), y)
        loss.backward()
    ```

    ## Use instead
    ```python
    loss = criterion(model(x), y)
    loss.backward()
    ```

    ## Fix safety
    No fix: which statements belong outside the `no_grad` block is the
    author's decision.

    ## Limitations
    Only the `with` blocks and decorators of the function holding the call
    are considered, not those around its callers. A decorator that cannot be
    resolved is assumed not to disable gradients.
    """

    code = "TL407"
    name = "backward-in-no-grad"
    severity = "error"
    message = "`backward()` under `no_grad` / `inference_mode`: no graph was recorded and this raises at run time"
    triggers = ("backward",)
    bad = (
        "import torch\n"
        "for x, y in loader:\n"
        "    with torch.no_grad():\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()  # expect: TL407\n"
        "    optimizer.step()\n",
        "import torch as th\n"
        "@th.no_grad()\n"
        "def train_step(model, batch, opt):\n"
        "    loss = model(batch)\n"
        "    loss.backward()  # expect: TL407\n"
        "    opt.step()\n",
        "from torch import inference_mode\n"
        "class Trainer:\n"
        "    @inference_mode()\n"
        "    def step(self, batch):\n"
        "        self.scaler.scale(self.model(batch)).backward()  # expect: TL407\n",
        # bare decorator, and a wrapper of the file around no_grad
        "import functools\n"
        "import torch\n"
        "def frozen(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def run(*args, **kwargs):\n"
        "        with torch.no_grad():\n"
        "            return fn(*args, **kwargs)\n"
        "    return run\n"
        "@torch.no_grad\n"
        "def a(loss):\n"
        "    loss.backward()  # expect: TL407\n"
        "@frozen\n"
        "def b(loss):\n"
        "    loss.backward()  # expect: TL407\n",
        "import torch\n"
        "with torch.set_grad_enabled(False):\n"
        "    criterion(model(x), y).backward()  # expect: TL407\n",
    )
    good = (
        # `enable_grad` inside `no_grad` records a graph again
        "import torch\n"
        "@torch.no_grad()\n"
        "def refine(model, x, steps):\n"
        "    for _ in range(steps):\n"
        "        with torch.enable_grad():\n"
        "            x = x.detach().requires_grad_()\n"
        "            model(x).sum().backward()\n"
        "        x = x - 0.1 * x.grad\n"
        "    return x\n",
        # no_grad only around the metric, backward outside it
        "import torch\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        acc = (model(x).argmax(1) == y).float().mean()\n"
        "    optimizer.step()\n",
        # an autograd Function's own backward, and a closure defined under no_grad
        "import torch\n"
        "class Scale(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return grad * 2\n"
        "with torch.no_grad():\n"
        "    g = Scale.backward(None, torch.ones(1))\n"
        "    def closure():\n"
        "        loss = model(x)\n"
        "        loss.backward()\n"
        "        return loss\n"
        "optimizer.step(closure)\n",
        # set_grad_enabled on a flag (the train/val phase loop), and a decorator
        # that cannot be resolved
        "import torch\n"
        "from mylib import timed\n"
        "for phase in ['train', 'val']:\n"
        "    with torch.set_grad_enabled(phase == 'train'):\n"
        "        loss = criterion(model(x), y)\n"
        "        if phase == 'train':\n"
        "            loss.backward()\n"
        "@timed\n"
        "def step(loss):\n"
        "    loss.backward()\n",
        # a local `no_grad` that is not torch's, and a comment
        "def no_grad():\n"
        "    return open('log.txt')\n"
        "with no_grad():\n"
        "    loss.backward()\n"
        "# with torch.no_grad(): loss.backward()\n",
    )

    def finish(self) -> None:
        for node in self.ctx.nodes():
            if is_backward(node) and lexical_grad_mode(self.ctx, node) == "off":
                self.report(node)
