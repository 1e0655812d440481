import libcst as cst

from trainlint.analysis.accumulators import STORING_METHODS, consumed_names
from trainlint.analysis.dataflow import dict_entry, optimizer_params, target_names
from trainlint.analysis.flow import Facts
from trainlint.analysis.guards import passed_test
from trainlint.analysis.literals import string_value
from trainlint.analysis.loops import (
    clears_grads,
    hands_an_optimizer,
    is_backward,
    is_grad_attribute,
    is_optimizer,
    item_container,
    optimizer_step,
    ranged_bindings,
    reachable_nodes,
    run_each_iteration,
    sets_gradients,
    steps_unresolved_optimizer,
    unknown_step,
)
from trainlint.analysis.receivers import Binding
from trainlint.analysis.training import (
    ancestors_within, loops_within, method_call, module_behind, unchain_module,
)
from trainlint.analysis.walk import iter_nodes, own_nodes
from trainlint.analysis.scopes import _parameters, assignment_targets, bound_arguments, dotted_name, head_name, receiver_method
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, STEP, ZERO_GRAD, Summary

_BACKWARD = "backward"
# the gradients of the last backward were read (saved, compared, projected) since it ran
_READ = "read"
# (a clear, its optimizer) reached between two backwards: the first one's gradients are gone
_DROPPED = "dropped"
# (a dropped clear, the optimizer) whose step then applied the later backward's gradients alone
_SUSPECT = "suspect"
_MARKS = (_BACKWARD, _READ, _DROPPED, _SUSPECT)
_RANGED = "<one of the optimizers a loop ranges over>"


class ZeroGradBeforeStep(Rule):
    """
    ## What it does
    Flags a gradient clear (`optimizer.zero_grad()`, `model.zero_grad()`,
    `p.grad = None`) reached after `backward()` and before the optimizer
    step that should use those gradients, in the same iteration, along some
    path through the code (the file's own helper functions included, and a
    function of another module of the project that clears and then steps,
    reported at its call; one that only back-propagates, `backward(loss)` of
    utils.py, is a backward pass where it is called, and one that only
    clears is a clear there). Also `optimizer.zero_grad()` as a statement of a
    loop of micro-steps (micro-batches, truncated-BPTT chunks) that
    back-propagates and steps nothing, when that optimizer steps after the
    loop (or `model.zero_grad()`, when the optimizer was built from that
    model's parameters, a part's of it such as `net.module` or
    `model.encoder`, or its tensors given as parameter groups
    `[{"params": model.weight}, ...]`; also as a statement of a helper of the
    file the loop calls, through the helper's parameter, reported at the
    call: `micro_step(model, x)` running `m.zero_grad()`): each pass drops
    what the passes before it back-propagated. Parameter groups from
    anything else (another model, a list of parameters) leave the clear of
    one model unmatched. Also a clear between two `backward()` calls before
    the step of what it cleared (a discriminator's real and fake passes with
    `opt_d.zero_grad()` between them): the step applies the later pass's
    gradients alone. Only after a plain `loss.backward()`: a first pass given
    arguments (`retain_graph=True`, `create_graph=True`, `inputs=`) is an
    auxiliary one whose gradients are cleared on purpose (a penalty's, ghost
    clipping's per-sample norms), as is one whose gradients are read before
    the clear (`p.grad`, backpack's `p.grad_batch`), and the same backward
    reached twice is a closure run again (`fn()`, then `optimizer.step(fn)`).

    ## Why is this bad?
    The step then applies zero (or missing) gradients: with `set_to_none`
    the parameters do not move at all, and with plain zeros momentum and
    weight decay alone move them. The loss stays flat and nothing fails.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
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
    Only one iteration is followed: a `backward()` at the end of one iteration
    and a clear at the start of the next are not connected, nor is a
    `backward()` run once before the training loop (a warm-up pass whose
    gradients are inspected or saved, a CUDA graph's capture; also in a helper
    of the file called only there) with a clear inside the loop. A clear
    through one optimizer before the step of another (two-player training) is
    not flagged (a name given the optimizer once, `opt = optimizer` or `case
    opt:` of `match optimizer:`, is that optimizer; a name a `case` binds to a
    part, `case [a, b]:`, is not followed), but a clear in a loop over optimizers (`for o in
    self.optims.values(): o.zero_grad()`, a list of them handed to a helper
    of the file or returned by one) clears each one it holds, also one known only by being
    stepped there and cleared so, and a step in such a loop (`for o in
    self.optimizers: o.step()`) steps each one it holds; a loop over a list
    the file does not show (a parameter given different lists by the calls
    of its function, or by none) steps none that a clear elsewhere is matched
    with. A loop over optimizers (`for opt in optimizers:`, a list built by a
    comprehension too, `for model, opt in zip(models, optimizers):`) runs
    within one step: a clear in it is matched with a backward before it, and
    a model `zip` takes beside the optimizers is cleared as a model. A clear
    through a model or its parameters is, unless the optimizer was built from
    another model's parameters: one of the two a deep copy
    (`p_bf16.grad = None` after copying a bf16 copy's gradients to the fp32
    master weights that the optimizer steps), or two models neither of which
    is built from the other (a GAN's `D.zero_grad()` before the generator's
    step; `gan = nn.Sequential(G, D)` holds `G`'s parameters, so its clear is
    one of them). Putting a gradient in place
    (`p.grad = g`, neither `None` nor zeros) is not a clear, nor is a clear of
    the parameters a test of each picks in a loop over them (`if "prototypes"
    in name: p.grad = None`, a part frozen while the rest trains), nor a
    `zero_grad()` of a submodule of the model the optimizer was built from
    (`model.prototypes.zero_grad()` beside `SGD(model.parameters())`) or of
    one of the models of its parameter groups (with an optimizer built out
    of sight, a parameter: of a model the function runs, `model.module.prototypes`
    of `model(x)`), nor the clear of one parameter's gradient named through its
    module (`layer.phantom.grad.zero_()`, a parameter kept at zero) while the
    optimizer steps more: it was built from a model's parameters, or out of
    sight, or from parameters named one by one that are not all cleared so (one
    built from the cleared ones alone, `SGD([model.temperature])`, in a parameter
    group, a variable or through another name too, steps nothing else): that part
    sits the step out, the rest steps (the module DDP wraps, `model.module`, is
    the whole model).
    Nor is a clear in the `except` handler of a `try:` around the backward that catches
    running out of memory (`RuntimeError`, `torch.cuda.OutOfMemoryError`,
    `MemoryError`, or a handler that looks for "out of memory" in the error:
    fairseq's): the backward failed, and the gradients dropped are its partial
    ones, whether the step then runs or is skipped. A clear between two
    backwards is not flagged when something reads gradients between them
    (`p.grad.clone()`, `torch.autograd.grad`: gradient surgery such as
    PCGrad, A-GEM's reference gradient gathered in a loop that tests each
    parameter of the model back-propagated, not of a teacher, and not in a hook
    it registers, which runs later; an input's gradient for an adversarial
    example) or may (a method
    of the optimizer, SAM's `first_step()`; code out of sight handed an
    optimizer), nor when another
    optimizer steps after the first backward and before a third (the first was
    that one's: a generator's loss that also filled the discriminator); a step
    between the first backward and the clear ends that backward's part, also
    the step of something the file cannot tell is an optimizer but that is
    named for one (`opt_d`, `optimizerD` handed in and never cleared here),
    and of something no statement of the file defines (a global set
    elsewhere, `cfg.opt`) that the same function clears and steps: a helper's
    `opt.zero_grad(); loss.backward(); opt.step()` steps its own pass, which a
    clear in its caller then loses nothing of.
    """

    code = "TL402"
    name = "zero-grad-before-step"
    severity = "error"
    message = "gradients are cleared between `backward()` and the optimizer step: the step applies zeros"
    triggers = ("backward",)
    bad = (
        # an optimizer held by an attribute of an attribute (stable-baselines3's
        # `self.policy.optimizer`), stepped and cleared in the file
        "import torch\n"
        "class PPO:\n"
        "    def train(self, batches):\n"
        "        for obs, ret in batches:\n"
        "            loss = ((self.policy(obs) - ret) ** 2).mean()\n"
        "            loss.backward()\n"
        "            self.policy.optimizer.zero_grad()  # expect: TL402\n"
        "            self.policy.optimizer.step()\n",
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
        # the parameters cleared are those the optimizer steps
        "import torch\n"
        "opt = torch.optim.AdamW(params=model.parameters())\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    for name, p in model.named_parameters():\n"
        "        del p.grad  # expect: TL402\n"
        "    opt.step()\n",
        # a copy, but the optimizer holds the same copy under another name
        "import copy\n"
        "import torch\n"
        "student = copy.deepcopy(teacher)\n"
        "on_gpu = student.cuda()\n"
        "opt = torch.optim.SGD(on_gpu.parameters(), lr=0.1)\n"
        "for x in loader:\n"
        "    on_gpu(x).sum().backward()\n"
        "    for p in student.parameters():\n"
        "        p.grad = None  # expect: TL402\n"
        "    opt.step()\n",
        # an optimizer read from a dict of them
        "import torch\n"
        "optims = {'g': torch.optim.Adam(gen.parameters()), 'd': torch.optim.Adam(disc.parameters())}\n"
        "for x in loader:\n"
        "    gen(x).sum().backward()\n"
        "    optims['g'].zero_grad()  # expect: TL402\n"
        "    optims['g'].step()\n",
        # a test of each gradient picks no part: every one is cleared
        "import torch\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "for x, y in loader:\n"
        "    criterion(model(x), y).backward()\n"
        "    for p in model.parameters():\n"
        "        if p.grad is not None:\n"
        "            p.grad.zero_()  # expect: TL402\n"
        "    opt.step()\n",
        # a trainer's own zero_grad() method called between backward and step: one finding, at the call
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def zero_grad(self):\n"
        "        self.optimizer.zero_grad()\n"
        "    def train_step(self, x, y):\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        loss.backward()\n"
        "        self.zero_grad()  # expect: TL402\n"
        "        self.optimizer.step()\n",
        # a loss named in capitals (`G_loss`) is a loss, not an autograd Function's hook
        "import torch\n"
        "opt_g = torch.optim.Adam(gen.parameters(), lr=1e-4)\n"
        "for z in loader:\n"
        "    G_loss = -critic(gen(z)).mean()\n"
        "    G_loss.backward()\n"
        "    opt_g.zero_grad()  # expect: TL402\n"
        "    opt_g.step()\n",
        # a helper of the file back-propagates in the same iteration
        "import torch\n"
        "def forward_backward(model, batch):\n"
        "    model(batch).mean().backward()\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        forward_backward(model, batch)\n"
        "        optimizer.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # a capitalized loss given a gradient and retain_graph positionally
        "import torch\n"
        "opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)\n"
        "for real, z in loader:\n"
        "    D_out = critic(real).mean() - critic(gen(z).detach()).mean()\n"
        "    D_out.backward(torch.ones_like(D_out), True)\n"
        "    opt_d.zero_grad()  # expect: TL402\n"
        "    opt_d.step()\n",
        # a handler for a logger's error, after a backward that completed
        "import torch\n"
        "optimizer = torch.optim.Adam(model.parameters())\n"
        "for x, y in loader:\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    try:\n"
        "        loss.backward()\n"
        "        log_to_wandb(loss.item())\n"
        "    except ConnectionError:\n"
        "        model.zero_grad()            # expect: TL402\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        # cleared on every micro-batch of a loop that steps after it: only the last chunk's gradients are applied
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, chunk):\n"
        "    for batch in loader:\n"
        "        for piece in batch.split(chunk):\n"
        "            opt.zero_grad()  # expect: TL402\n"
        "            loss = model(piece).pow(2).mean()\n"
        "            loss.backward()\n"
        "        opt.step()\n",
        # the clear runs in a helper's loop over a dict of optimizers (stargan-v2's `_reset_grad`)
        "import torch\n"
        "class Solver:\n"
        "    def __init__(self, nets, optims):\n"
        "        self.nets, self.optims = nets, optims\n"
        "    def _reset_grad(self):\n"
        "        for optim in self.optims.values():\n"
        "            optim.zero_grad()  # expect: TL402\n"
        "    def train(self, loader):\n"
        "        for x in loader:\n"
        "            self.nets['generator'](x).mean().backward()\n"
        "            self._reset_grad()\n"
        "            self.optims['generator'].step()\n",
        # a helper of the file given a list of optimizers to clear
        "import torch\n"
        "def reset_grad(optims):\n"
        "    for optim in optims:\n"
        "        optim.zero_grad()  # expect: TL402\n"
        "def train(model, loader, opt_g, opt_d):\n"
        "    for x in loader:\n"
        "        model(x).mean().backward()\n"
        "        reset_grad([opt_g, opt_d])\n"
        "        opt_g.step()\n",
        # optimizers built into a dict, all cleared in a loop over its items
        "import torch\n"
        "def train(nets, loader):\n"
        "    optims = {'g': torch.optim.Adam(nets['g'].parameters()), 'd': torch.optim.Adam(nets['d'].parameters())}\n"
        "    for x in loader:\n"
        "        nets['g'](x).mean().backward()\n"
        "        for name, optim in optims.items():\n"
        "            optim.zero_grad()  # expect: TL402\n"
        "        optims['g'].step()\n",
        # the model's own clear on every micro-batch, its optimizer built from its parameters
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, chunk):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        for piece in batch.split(chunk):\n"
        "            model.zero_grad()  # expect: TL402\n"
        "            model(piece).pow(2).mean().backward()\n"
        "        opt.step()\n",
        # the optimizers cleared and stepped in loops over one list of them
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, actor, critic):\n"
        "        self.actor, self.critic = actor, critic\n"
        "        self.optimizers = [torch.optim.Adam(actor.parameters()), torch.optim.Adam(critic.parameters())]\n"
        "    def update(self, batches):\n"
        "        for x in batches:\n"
        "            self.critic(self.actor(x)).mean().backward()\n"
        "            for opt in self.optimizers:\n"
        "                opt.zero_grad()  # expect: TL402\n"
        "            for opt in self.optimizers:\n"
        "                opt.step()\n",
        # one optimizer cleared, then stepped with the others by a helper's loop over the list it is given
        "import torch\n"
        "def step_all(optims):\n"
        "    for o in optims:\n"
        "        o.step()\n"
        "def train(gen, disc, loader):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_d = torch.optim.Adam(disc.parameters())\n"
        "    for x in loader:\n"
        "        disc(gen(x)).mean().backward()\n"
        "        opt_g.zero_grad()  # expect: TL402\n"
        "        step_all([opt_g, opt_d])\n",
        # an item of a dict cleared, then every item stepped
        "import torch\n"
        "def train(nets, loader):\n"
        "    optims = {'g': torch.optim.Adam(nets['g'].parameters()), 'd': torch.optim.Adam(nets['d'].parameters())}\n"
        "    for x in loader:\n"
        "        nets['g'](x).mean().backward()\n"
        "        optims['g'].zero_grad()  # expect: TL402\n"
        "        for optim in optims.values():\n"
        "            optim.step()\n",
        # an item of the list a helper of the file returns cleared, then every item stepped
        "import torch\n"
        "def make_optimizers(enc, dec):\n"
        "    return [torch.optim.SGD(enc.parameters(), lr=0.1), torch.optim.SGD(dec.parameters(), lr=0.1)]\n"
        "def train(enc, dec, loader):\n"
        "    opts = make_optimizers(enc, dec)\n"
        "    for x in loader:\n"
        "        dec(enc(x)).sum().backward()\n"
        "        opts[0].zero_grad()  # expect: TL402\n"
        "        for o in opts:\n"
        "            o.step()\n",
        # the wrapped model cleared on every micro-batch: the optimizer steps its parameters
        "import torch\n"
        "def train(model, loader):\n"
        "    net = torch.nn.DataParallel(model)\n"
        "    opt = torch.optim.SGD(net.module.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        for micro in batch.chunk(4):\n"
        "            net.module.zero_grad()  # expect: TL402\n"
        "            net(micro).sum().backward()\n"
        "        opt.step()\n",
        # a helper of the file clears the model it is given on every micro-batch
        "import torch\n"
        "def micro_step(m, x):\n"
        "    m.zero_grad()\n"
        "    m(x).sum().backward()\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        for micro in batch.chunk(4):\n"
        "            micro_step(model, micro)  # expect: TL402\n"
        "        opt.step()\n",
        # the model cleared on every micro-batch, its tensors stepped as parameter groups
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD([{'params': model.weight}, {'params': model.bias, 'lr': 0.01}], lr=0.1)\n"
        "    for batch in loader:\n"
        "        for micro in batch.chunk(4):\n"
        "            model.zero_grad()  # expect: TL402\n"
        "            model(micro).sum().backward()\n"
        "        opt.step()\n",
        # a helper nested in the training function clears the gradients; another
        # function nests a helper of the same name that only logs
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    def log():\n"
        "        model.zero_grad()  # expect: TL402\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        log()\n"
        "        opt.step()\n"
        "def other(model):\n"
        "    def log():\n"
        "        print('step')\n"
        "    log()\n",
        # a step's loop over optimizers that clears each before stepping it, or each model
        # zipped with its optimizer (OpenRLHF's critic warm-up)
        "import torch\n"
        "def update_all(gen, disc, loss):\n"
        "    optimizers = [torch.optim.SGD(gen.parameters(), 0.1), torch.optim.SGD(disc.parameters(), 0.1)]\n"
        "    loss.backward()\n"
        "    for opt in optimizers:\n"
        "        opt.zero_grad()  # expect: TL402\n"
        "        opt.step()\n"
        "def update_zipped(models, loss):\n"
        "    optimizers = [torch.optim.SGD(m.parameters(), 0.1) for m in models]\n"
        "    loss.backward()\n"
        "    for model, opt in zip(models, optimizers):\n"
        "        model.zero_grad()  # expect: TL402\n"
        "        opt.step()\n",
        # a model built from the generator (a combined GAN) holds its parameters: its clear is one of them
        "import torch\n"
        "from torch import nn\n"
        "def train(G, D, loader):\n"
        "    gan = nn.Sequential(G, D)\n"
        "    opt_g = torch.optim.Adam(G.parameters())\n"
        "    for z in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-gan(z).mean()).backward()\n"
        "        gan.zero_grad()  # expect: TL402\n"
        "        opt_g.step()\n",
        # a clear of the critic before the actor's step waits for the critic's own step, which then applies zeros
        "import torch\n"
        "def update(actor, critic, buffer):\n"
        "    a_opt = torch.optim.Adam(actor.parameters())\n"
        "    c_opt = torch.optim.Adam(critic.parameters())\n"
        "    for s, r in buffer:\n"
        "        a_opt.zero_grad()\n"
        "        c_opt.zero_grad()\n"
        "        (critic(s) - r + actor(s)).pow(2).mean().backward()\n"
        "        critic.zero_grad()  # expect: TL402\n"
        "        a_opt.step()\n"
        "        c_opt.step()\n",
        # a discriminator's step after two backwards, cleared between them: the real
        # images' gradients are dropped (through its optimizer, or the model itself)
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def train(net_d, opt_d, loader):\n"
        "    for real, fake in loader:\n"
        "        F.softplus(-net_d(real)).mean().backward()\n"
        "        l_d_fake = F.softplus(net_d(fake)).mean()\n"
        "        opt_d.zero_grad()  # expect: TL402\n"
        "        l_d_fake.backward()\n"
        "        opt_d.step()\n"
        "def train_model_clear(net_d, loader):\n"
        "    opt_d = torch.optim.Adam(net_d.parameters())\n"
        "    for real, fake in loader:\n"
        "        opt_d.zero_grad()\n"
        "        F.softplus(-net_d(real)).mean().backward()\n"
        "        net_d.zero_grad()  # expect: TL402\n"
        "        F.softplus(net_d(fake)).mean().backward()\n"
        "        opt_d.step()\n",
        # a clear of all the optimizer steps: the submodule it was built from, the
        # module DDP wraps
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        model.head.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        model.module.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # an optimizer given by the caller: the whole model it runs cleared
        "def train(model, optimizer, loader):\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        model.module.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # the generator's clear after its backward: the discriminator's step between does not end it
        "import torch\n"
        "def train(G, D, optimizer_G, optimizer_D, loader):\n"
        "    for x in loader:\n"
        "        fake = G(torch.randn(4, 8))\n"
        "        g_loss = -D(fake).mean()\n"
        "        g_loss.backward()\n"
        "        optimizer_G.zero_grad()  # expect: TL402\n"
        "        optimizer_D.step()\n"
        "        optimizer_G.step()\n",
        # a helper method whose first parameter is not named `self`: `self.micro_step(model, x)`
        # hands `model` to `m`, which it clears on every micro-batch
        "import torch\n"
        "class Trainer:\n"
        "    def micro_step(trainer, m, x):\n"
        "        m.zero_grad()\n"
        "        m(x).sum().backward()\n"
        "    def train(self, model, loader):\n"
        "        opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for batch in loader:\n"
        "            for micro in batch.chunk(4):\n"
        "                self.micro_step(model, micro)  # expect: TL402\n"
        "            opt.step()\n",
        # a loop over the parameters before the clear that reads no gradient: the first
        # backward's gradients are dropped
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    for x, y, x_old, y_old in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x_old), y_old).backward()\n"
        "        sizes = []\n"
        "        for p in model.parameters():\n"
        "            if p.requires_grad:\n"
        "                sizes.append(p.numel())\n"
        "        optimizer.zero_grad()  # expect: TL402\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the one parameter cleared is all the optimizer steps
        "import torch\n"
        "def calibrate(model, loader):\n"
        "    optimizer = torch.optim.SGD([model.temperature], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n",
        # every parameter of the stepped model cleared through `.data`
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        for p in model.parameters():\n"
        "            p.grad.data.zero_()  # expect: TL402\n"
        "        optimizer.step()\n",
        # the one parameter cleared is all the optimizer steps: written as a parameter
        # group, through a name, in a list kept in a variable
        "import torch\n"
        "def calibrate(model, loader):\n"
        "    optimizer = torch.optim.SGD([{\"params\": [model.temperature], \"lr\": 0.01}])\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n"
        "def calibrate_named(model, loader):\n"
        "    temperature = model.temperature\n"
        "    optimizer = torch.optim.SGD([temperature], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n"
        "def calibrate_listed(model, loader):\n"
        "    params = [model.temperature]\n"
        "    optimizer = torch.optim.SGD(params, lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n"
        "class Calibration(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.temperature = torch.nn.Parameter(torch.ones(1))\n"
        "        self.optimizer = torch.optim.SGD([self.temperature], lr=0.01)\n"
        "    def fit(self, logits, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(logits / self.temperature, y).backward()\n"
        "        self.temperature.grad.zero_()  # expect: TL402\n"
        "        self.optimizer.step()\n",
        # each parameter the optimizer steps cleared one by one
        "import torch\n"
        "def fit(model, loader):\n"
        "    optimizer = torch.optim.SGD([model.scale, model.shift], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        model.scale.grad.zero_()  # expect: TL402\n"
        "        model.shift.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n",
        # the gradients read in the loop are another model's: the student's first
        # backward is dropped
        "import torch\n"
        "def train(model, teacher, optimizer, loader):\n"
        "    for x, y, x_old, y_old in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x_old), y_old).backward()\n"
        "        reference = []\n"
        "        for p in teacher.parameters():\n"
        "            if p.requires_grad:\n"
        "                reference.append(p.grad.clone())\n"
        "        optimizer.zero_grad()  # expect: TL402\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the gradient is read only by a hook that runs at a later backward
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    for x, y, x_old, y_old in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x_old), y_old).backward()\n"
        "        for p in model.parameters():\n"
        "            p.register_hook(lambda g, p=p: print(p.grad.norm()))\n"
        "        optimizer.zero_grad()  # expect: TL402\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # parameters handed to another optimizer, or to another group's list: this one
        # steps only the parameter it clears
        "import torch\n"
        "def calibrate(model, loader):\n"
        "    optimizer = torch.optim.SGD([model.temperature], lr=0.01)\n"
        "    other = torch.optim.SGD(model.body.parameters(), lr=0.01)\n"
        "    other.add_param_group({'params': model.head.parameters()})\n"
        "    group, rest = {'params': [model.scale]}, {'params': []}\n"
        "    rest['params'].extend(model.head.parameters())\n"
        "    tuned = torch.optim.SGD([group], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        tuned.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()  # expect: TL402\n"
        "        model.scale.grad.zero_()  # expect: TL402\n"
        "        optimizer.step()\n"
        "        tuned.step()\n",
        # every parameter's gradient cleared, whether guarded by an `and` on its presence or by an `if`
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        for p in model.parameters():\n"
        "            p.grad is not None and p.grad.zero_()  # expect: TL402\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n",
        # the optimizer cleared under another name between the backward and its step
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    opt = optimizer\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        opt.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # ... and as the capture of a `case` pattern
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        match optimizer:\n"
        "            case torch.optim.SGD() as sgd:\n"
        "                sgd.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # the capture holds the stepped optimizer, not the module's other one of its name
        "import torch\n"
        "opt = torch.optim.SGD(probe.parameters(), lr=0.1)\n"
        "def finetune(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        match optimizer:\n"
        "            case opt:\n"
        "                opt.zero_grad()  # expect: TL402\n"
        "        optimizer.step()\n",
        # a helper back-propagates its loss and steps nothing: the caller's clear drops that pass
        "def forward_loss(model, batch, adversarial):\n"
        "    loss = model(batch)\n"
        "    if adversarial:\n"
        "        loss.backward()\n"
        "    return loss\n"
        "def train(model, loader, opt, adversarial):\n"
        "    for batch in loader:\n"
        "        loss = forward_loss(model, batch, adversarial)\n"
        "        opt.zero_grad()  # expect: TL402\n"
        "        loss.backward()\n"
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
        # a second backward after the clear, the first one's gradients read before it: the step uses the second's
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    warm = criterion(model(x), y)\n"
        "    warm.backward()\n"
        "    log(sum(p.grad.norm() for p in model.parameters()))\n"
        "    opt.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    opt.step()\n",
        # fp32 master weights: the bf16 copy's gradients are moved over, then dropped
        "import copy\n"
        "import torch\n"
        "master = Net()\n"
        "model_bf16 = copy.deepcopy(master).bfloat16()\n"
        "opt = torch.optim.AdamW(master.parameters())\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    model_bf16(x).sum().backward()\n"
        "    for p32, p16 in zip(master.parameters(), model_bf16.parameters()):\n"
        "        p32.grad = p16.grad.to(p32.dtype)\n"
        "        p16.grad = None\n"
        "    model_bf16.zero_grad()\n"
        "    opt.step()\n",
        # the clear only in a comment
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    opt.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    # opt.zero_grad()  -- not here, it would wipe the gradients\n"
        "    opt.step()\n",
        # a part frozen for the first iterations (SwAV's prototypes): the step applies the rest
        "import torch\n"
        "def train(model, loader, freeze_prototypes_niters):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for it, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        model(x, y).backward()\n"
        "        if it < freeze_prototypes_niters:\n"
        "            for name, p in model.named_parameters():\n"
        "                if 'prototypes' in name:\n"
        "                    p.grad = None\n"
        "        optimizer.step()\n",
        # only the gradients that overflowed are dropped; the step applies the rest
        "import torch\n"
        "def drop_nonfinite_grads(model):\n"
        "    for param in model.parameters():\n"
        "        if param.requires_grad and param.grad is not None:\n"
        "            if not torch.isfinite(param.grad).all():\n"
        "                param.grad = None\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        drop_nonfinite_grads(model)\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # a helper's backward run once before the loop (a CUDA graph's capture), its replay in the loop after the clear
        "import torch\n"
        "def run_step():\n"
        "    loss = model(static_input).square().mean()\n"
        "    loss.backward()\n"
        "    return loss\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "graph = torch.cuda.CUDAGraph()\n"
        "with torch.cuda.graph(graph):\n"
        "    static_loss = run_step()\n"
        "for step in range(8):\n"
        "    optimizer.zero_grad(set_to_none=False)\n"
        "    graph.replay()\n"
        "    optimizer.step()\n",
        # an autograd Function's hook called by hand, the gradients passed as `*grads` or by keyword
        "import torch\n"
        "class LinearFn(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_out):\n"
        "        x, w = ctx.saved_tensors\n"
        "        return grad_out @ w, grad_out.t() @ x\n"
        "def train(w, loader, ctx):\n"
        "    opt = torch.optim.SGD([w], lr=0.1)\n"
        "    for x, y in loader:\n"
        "        with torch.no_grad():\n"
        "            grads = (2 * (x @ w.t() - y),)\n"
        "            _, grad_w = LinearFn.backward(ctx, *grads)\n"
        "            _, grad_w = LinearFn.backward(ctx, grad_out=grads[0])\n"
        "        opt.zero_grad()\n"
        "        w.grad = grad_w\n"
        "        opt.step()\n",
        # a backward that ran out of memory: its partial gradients dropped, and the step
        # skipped by the caller on what the handler returns (fairseq's trainer)
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _backward(self, loss):\n"
        "        try:\n"
        "            loss.backward()\n"
        "        except RuntimeError as e:\n"
        "            if 'out of memory' not in str(e):\n"
        "                raise\n"
        "            self.optimizer.zero_grad()\n"
        "            return 1\n"
        "        return 0\n"
        "    def train_step(self, x, y):\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        oom = self._backward(loss)\n"
        "        if oom:\n"
        "            self.optimizer.zero_grad()\n"
        "            return\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n",
        # the out-of-memory handler drops the partial gradients and the step still runs: no
        # gradient of this iteration is lost, the backward failed
        "import torch\n"
        "def train_step(model, optimizer, x, y):\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    try:\n"
        "        loss.backward()\n"
        "    except RuntimeError as e:\n"
        "        if 'out of memory' not in str(e):\n"
        "            raise\n"
        "        optimizer.zero_grad()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        # the same, with the handler's flag dropped by the caller
        "import torch\n"
        "class Trainer:\n"
        "    def _backward(self, loss):\n"
        "        try:\n"
        "            loss.backward()\n"
        "        except RuntimeError:\n"
        "            self.optimizer.zero_grad()\n"
        "            return 1\n"
        "        return 0\n"
        "    def train_step(self, x, y):\n"
        "        self._backward(torch.nn.functional.mse_loss(self.model(x), y))\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n",
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, opt_d, critic, chunk):\n"
        "    for batch in loader:\n"
        "        # cleared on the first chunk only: the chunks accumulate\n"
        "        for j, piece in enumerate(batch.split(chunk)):\n"
        "            if j == 0:\n"
        "                opt.zero_grad()\n"
        "            model(piece).pow(2).mean().backward()\n"
        "        opt.step()\n"
        "        # each pass of the critic loop steps its own optimizer\n"
        "        for _ in range(5):\n"
        "            opt_d.zero_grad()\n"
        "            critic(batch).mean().backward()\n"
        "            opt_d.step()\n"
        "        # a pass that may step through an object out of sight\n"
        "        for piece in batch.split(chunk):\n"
        "            opt.zero_grad()\n"
        "            model(piece).sum().backward()\n"
        "            trainer.update(piece)\n"
        "        opt.step()\n",
        # the generator's backward left gradients in the discriminators: those are cleared, not the generator's
        "import torch\n"
        "def train(G, D1, D2, loader):\n"
        "    opt_g = torch.optim.Adam(G.parameters())\n"
        "    d_opts = [torch.optim.Adam(D1.parameters()), torch.optim.Adam(D2.parameters())]\n"
        "    for z in loader:\n"
        "        opt_g.zero_grad()\n"
        "        g_loss = -(D1(G(z)).mean() + D2(G(z)).mean())\n"
        "        g_loss.backward()\n"
        "        for opt in d_opts:\n"
        "            opt.zero_grad()\n"
        "        opt_g.step()\n",
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, steps):\n"
        "    for x, y in loader:\n"
        "        # an input-gradient attack: its passes' gradients are thrown away on purpose\n"
        "        delta = torch.zeros_like(x, requires_grad=True)\n"
        "        for _ in range(steps):\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x + delta), y).backward()\n"
        "            delta = (delta + 0.01 * delta.grad.sign()).detach().requires_grad_(True)\n"
        "        opt.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x + delta), y).backward()\n"
        "        opt.step()\n"
        "\n"
        "\n"
        "def private_step(model, loader, opt):\n"
        "    params = list(model.parameters())\n"
        "    for xb, yb in loader:\n"
        "        summed = [torch.zeros_like(p) for p in params]\n"
        "        # per-sample gradients, clipped and summed, written back before the step\n"
        "        for x, y in zip(xb, yb):\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.mse_loss(model(x[None]), y[None]).backward()\n"
        "            torch.nn.utils.clip_grad_norm_(params, 1.0)\n"
        "            for s, p in zip(summed, params):\n"
        "                s += p.grad\n"
        "        for s, p in zip(summed, params):\n"
        "            p.grad = s / len(xb)\n"
        "        opt.step()\n",
        "# different lists cleared at different calls; the discriminators cleared before the generator steps\n"
        "import torch\n"
        "\n"
        "\n"
        "def clear(optims):\n"
        "    for o in optims:\n"
        "        o.zero_grad()\n"
        "\n"
        "\n"
        "def train(G, D, loader, opt_g, opt_d):\n"
        "    for x in loader:\n"
        "        clear([opt_g])\n"
        "        (-D(G(x)).mean()).backward()\n"
        "        clear([opt_d])\n"
        "        opt_g.step()\n"
        "        D(x).mean().backward()\n"
        "        opt_d.step()\n"
        "\n"
        "\n"
        "def train_two_critics(G, D1, D2, loader, opt_g, opt_d1, opt_d2):\n"
        "    for x in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-(D1(G(x)).mean() + D2(G(x)).mean())).backward()\n"
        "        for o in [opt_d1, opt_d2]:\n"
        "            o.zero_grad()\n"
        "        opt_g.step()\n"
        "        (D1(x).mean() + D2(x).mean()).backward()\n"
        "        opt_d1.step()\n"
        "        opt_d2.step()\n",
        # a frozen encoder's gradients cleared per micro-batch; the head's optimizer steps what accumulated
        "import torch\n"
        "\n"
        "\n"
        "def train(encoder, head, loader, chunk):\n"
        "    opt = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        for piece in batch.split(chunk):\n"
        "            encoder.zero_grad()\n"
        "            head(encoder(piece)).pow(2).mean().backward()\n"
        "        opt.step()\n",
        # each optimizer of the list stepped, then cleared: the next pass steps the next one
        "import torch\n"
        "def train(gen, disc, loader):\n"
        "    optims = [torch.optim.Adam(gen.parameters()), torch.optim.Adam(disc.parameters())]\n"
        "    for x in loader:\n"
        "        disc(gen(x)).mean().backward()\n"
        "        for opt in optims:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n",
        # the discriminator cleared, the generators' list stepped; a helper given different lists steps none known
        "import torch\n"
        "def step_each(optims):\n"
        "    for o in optims:\n"
        "        o.step()\n"
        "def train(G, D, loader):\n"
        "    opt_g = torch.optim.Adam(G.parameters())\n"
        "    opt_d = torch.optim.Adam(D.parameters())\n"
        "    g_opts = [opt_g]\n"
        "    for x in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-D(G(x)).mean()).backward()\n"
        "        opt_d.zero_grad()\n"
        "        for o in g_opts:\n"
        "            o.step()\n"
        "        opt_g.zero_grad()\n"
        "        (-D(G(x)).mean()).backward()\n"
        "        opt_d.zero_grad()\n"
        "        step_each([opt_g])\n"
        "        D(x).mean().backward()\n"
        "        step_each([opt_d])\n",
        # a list handed in from out of sight: which optimizers it holds is unknown
        "import torch\n"
        "def train(model, loader, opts):\n"
        "    opt1 = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        opt1.zero_grad()\n"
        "        for o in opts:\n"
        "            o.step()\n",
        # the list a helper of the file returns, each cleared before the backward and stepped after
        "import torch\n"
        "def make_optimizers(enc, dec):\n"
        "    return [torch.optim.SGD(enc.parameters(), lr=0.1), torch.optim.SGD(dec.parameters(), lr=0.1)]\n"
        "def train(enc, dec, loader):\n"
        "    opts = make_optimizers(enc, dec)\n"
        "    for x in loader:\n"
        "        opts[0].zero_grad()\n"
        "        opts[1].zero_grad()\n"
        "        dec(enc(x)).sum().backward()\n"
        "        for o in opts:\n"
        "            o.step()\n",
        # a helper of the file clears the teacher it is given on every micro-batch: the student is stepped
        "import torch\n"
        "def probe(m, x):\n"
        "    m.zero_grad()\n"
        "    m(x).sum().backward()\n"
        "def train(student, teacher, loader):\n"
        "    opt = torch.optim.SGD(student.parameters(), lr=0.1)\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        for micro in batch.chunk(4):\n"
        "            probe(teacher, micro)\n"
        "            student(micro).sum().backward()\n"
        "        opt.step()\n",
        # a model's tensors stepped as parameter groups; another model, not stepped, cleared per micro-batch
        "import torch\n"
        "def train(model, aux, loader):\n"
        "    opt = torch.optim.SGD([{'params': model.weight}, {'params': model.bias, 'lr': 0.01}], lr=0.1)\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        for micro in batch.chunk(4):\n"
        "            aux.zero_grad()\n"
        "            (model(micro) + aux(micro)).sum().backward()\n"
        "        opt.step()\n",
        # the helper that clears the gradients is nested in another function: the
        # loop's `log` is its own, a lambda that prints
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    log = lambda: print('step')\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        log()\n"
        "        opt.step()\n"
        "def other(model):\n"
        "    def log():\n"
        "        model.zero_grad()\n"
        "    log()\n",
        # loops over optimizers within a step: each network zipped with its optimizer cleared
        # before its own backward; the critics' optimizers cleared, then the generator's stepped;
        # accumulated micro-steps, each optimizer stepped and then cleared
        "import torch\n"
        "def update(gen, critics, x, z):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_cs = [torch.optim.Adam(c.parameters()) for c in critics]\n"
        "    (-sum(c(gen(z)).mean() for c in critics)).backward()\n"
        "    for opt in opt_cs:\n"
        "        opt.zero_grad()\n"
        "    opt_g.step()\n"
        "    for critic, opt in zip(critics, opt_cs):\n"
        "        critic.zero_grad()\n"
        "        (critic(gen(z).detach()).mean() - critic(x).mean()).backward()\n"
        "        opt.step()\n"
        "def accumulate(model, loader, accum):\n"
        "    optimizers = [torch.optim.SGD(model.encoder.parameters(), 0.1), torch.optim.Adam(model.head.parameters())]\n"
        "    for i, x in enumerate(loader):\n"
        "        model(x).sum().backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            for opt in optimizers:\n"
        "                opt.step()\n"
        "                opt.zero_grad()\n",
        # a GAN's discriminator cleared after the generator's backward, before its step: the generator's gradients stay
        "import torch\n"
        "def train(G, D, loader):\n"
        "    opt_g = torch.optim.Adam(G.parameters())\n"
        "    opt_d = torch.optim.Adam(D.parameters())\n"
        "    for x, z in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-D(G(z)).mean()).backward()\n"
        "        D.zero_grad()\n"
        "        opt_g.step()\n"
        "        (D(G(z).detach()).mean() - D(x).mean()).backward()\n"
        "        opt_d.step()\n",
        # gradient surgery (PCGrad): each task's gradients saved before the clear, then combined
        "import torch\n"
        "def train(model, loader, opt):\n"
        "    params = list(model.parameters())\n"
        "    for x, y1, y2 in loader:\n"
        "        opt.zero_grad()\n"
        "        model.loss1(x, y1).backward()\n"
        "        first = [p.grad.clone() for p in params]\n"
        "        opt.zero_grad()\n"
        "        model.loss2(x, y2).backward()\n"
        "        for p, g in zip(params, first):\n"
        "            p.grad = project(p.grad, g)\n"
        "        opt.step()\n",
        # an input's gradient taken from a first backward (an adversarial example), then cleared
        "import torch\n"
        "def train(model, loader, opt, eps):\n"
        "    for x, y in loader:\n"
        "        x.requires_grad_(True)\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        x_adv = (x + eps * x.grad.sign()).detach()\n"
        "        opt.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x_adv), y).backward()\n"
        "        opt.step()\n",
        # the generator's backward also filled the discriminator: that is cleared before its own
        # pass, and the generator steps after it (or stepped before the clear)
        "import torch\n"
        "def train(G, D, loader, opt_g, opt_d):\n"
        "    for x, z in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-D(G(z)).mean()).backward()\n"
        "        opt_d.zero_grad()\n"
        "        (D(G(z).detach()).mean() - D(x).mean()).backward()\n"
        "        opt_d.step()\n"
        "        opt_g.step()\n"
        "def train_in_turn(G, D, loader, opt_g, opt_d):\n"
        "    for x, z in loader:\n"
        "        opt_g.zero_grad()\n"
        "        (-D(G(z)).mean()).backward()\n"
        "        opt_g.step()\n"
        "        opt_d.zero_grad()\n"
        "        (D(G(z).detach()).mean() - D(x).mean()).backward()\n"
        "        opt_d.step()\n",
        # SAM: the optimizer's own first step climbs along the first backward's gradients
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.first_step()\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # auxiliary passes cleared on purpose: a penalty's gradients (backward given inputs= and create_graph=), a closure run before the step that clears first, ghost clipping's norm pass (retain_graph=True)
        "import torch\n"
        "def update(model, classifier, optimizer, x, y, penalty_weight):\n"
        "    optimizer.zero_grad()\n"
        "    logits = classifier(model(x))\n"
        "    aux = torch.nn.functional.cross_entropy(logits, y, reduction=\"sum\")\n"
        "    aux.backward(inputs=list(classifier.parameters()), retain_graph=True, create_graph=True)\n"
        "    penalty = sum(p.grad.pow(2).sum() for p in classifier.parameters())\n"
        "    optimizer.zero_grad()\n"
        "    (torch.nn.functional.cross_entropy(logits, y) + penalty_weight * penalty).backward()\n"
        "    optimizer.step()\n"
        "def closure_steps(weight, bias, x, optimizer, steps):\n"
        "    def fn():\n"
        "        optimizer.zero_grad()\n"
        "        loss = (weight.mv(x) + bias).pow(2).sum()\n"
        "        loss.backward()\n"
        "        return loss\n"
        "    for _ in range(steps):\n"
        "        val = fn()\n"
        "        optimizer.step(fn)\n"
        "def ghost_clipping(model, loader, optimizer, coef):\n"
        "    for x, y in loader:\n"
        "        per_sample = torch.nn.functional.cross_entropy(model(x), y, reduction=\"none\")\n"
        "        per_sample.mean().backward(retain_graph=True)\n"
        "        optimizer.zero_grad()\n"
        "        (coef(model) * per_sample).sum().backward()\n"
        "        optimizer.step()\n",
        # a submodule of the model the optimizer steps cleared: that part frozen for the
        # first iterations (SwAV's prototypes), the rest steps
        "import torch\n"
        "def train(model, loader, freeze_iters):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for it, x in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        loss = model(x).mean()\n"
        "        loss.backward()\n"
        "        if it < freeze_iters:\n"
        "            model.prototypes.zero_grad()\n"
        "        optimizer.step()\n",
        # an optimizer given by the caller, and a submodule of the model the loop runs
        # cleared (SwAV's `model.module.prototypes.zero_grad()`)
        "def train(model, optimizer, loader, freeze_iters):\n"
        "    for it, x in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        if it < freeze_iters:\n"
        "            model.module.prototypes.zero_grad()\n"
        "        optimizer.step()\n",
        # the discriminator's optimizer, handed in and never cleared here, steps before the generator's clear
        "import torch\n"
        "def train(G, D, opt_g, opt_d, loader):\n"
        "    for x in loader:\n"
        "        fake = G(torch.randn(x.size(0), 100))\n"
        "        D.zero_grad()\n"
        "        d_loss = D(x).mean() - D(fake.detach()).mean()\n"
        "        d_loss.backward()\n"
        "        opt_d.step()\n"
        "        opt_g.zero_grad()\n"
        "        g_loss = -D(fake).mean()\n"
        "        g_loss.backward()\n"
        "        opt_g.step()\n",
        # the helper method (first parameter not named `self`) only back-propagates; the model
        # is cleared once per batch
        "import torch\n"
        "class Trainer:\n"
        "    def micro_step(trainer, m, x):\n"
        "        m(x).sum().backward()\n"
        "    def train(self, model, loader):\n"
        "        opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for batch in loader:\n"
        "            model.zero_grad()\n"
        "            for micro in batch.chunk(4):\n"
        "                self.micro_step(model, micro)\n"
        "            opt.step()\n",
        # A-GEM: the replayed batch's gradients gathered in a loop over the trainable
        # parameters before the clear, then the current gradient projected against them
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    for x, y, x_old, y_old in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x_old), y_old).backward()\n"
        "        reference = []\n"
        "        for p in model.parameters():\n"
        "            if p.requires_grad:\n"
        "                reference.append(p.grad.view(-1).clone())\n"
        "        reference = torch.cat(reference)\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        project_onto(model, reference)\n"
        "        optimizer.step()\n",
        # one parameter kept at zero has its gradient cleared; the rest of the model steps
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.head.phantom.grad.zero_()\n"
        "        optimizer.step()\n"
        "class Learner(torch.nn.Module):\n"
        "    def train_a_batch(self, x, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(self(x), y).backward()\n"
        "        self.layer.phantom.grad.data.zero_()\n"
        "        self.optimizer.step()\n",
        # fp32 master weights: the bf16 copy's gradients moved over, then zeroed through `.data`
        "import copy\n"
        "import torch\n"
        "master = Net()\n"
        "model_bf16 = copy.deepcopy(master).bfloat16()\n"
        "opt = torch.optim.AdamW(master.parameters())\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    model_bf16(x).sum().backward()\n"
        "    for p32, p16 in zip(master.parameters(), model_bf16.parameters()):\n"
        "        p32.grad = p16.grad.to(p32.dtype)\n"
        "        p16.grad.data.zero_()\n"
        "    opt.step()\n",
        # one of the parameters named for the optimizer kept at zero, the others step
        "import torch\n"
        "def fit(model, loader):\n"
        "    optimizer = torch.optim.SGD([model.scale, model.shift], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        model.shift.grad.zero_()\n"
        "        optimizer.step()\n"
        "def calibrate(model, loader):\n"
        "    groups = [{\"params\": [model.temperature], \"lr\": 0.01}, {\"params\": model.head.parameters()}]\n"
        "    optimizer = torch.optim.SGD(groups, lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()\n"
        "        optimizer.step()\n"
        "def tune(model, loader):\n"
        "    params = []\n"
        "    params.append(model.temperature)\n"
        "    params.extend(model.head.parameters())\n"
        "    optimizer = torch.optim.SGD(params, lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()\n"
        "        optimizer.step()\n",
        # A-GEM in a learner's method: the replayed loss kept in a variable, the gradients
        # gathered from a part of the model it runs
        "import torch\n"
        "class Agem:\n"
        "    def observe(self, x, y, x_old, y_old):\n"
        "        self.optimizer.zero_grad()\n"
        "        old_loss = torch.nn.functional.cross_entropy(self.net(x_old), y_old)\n"
        "        old_loss.backward()\n"
        "        reference = []\n"
        "        for p in self.net.backbone.parameters():\n"
        "            if p.grad is not None:\n"
        "                reference.append(p.grad.flatten())\n"
        "        self.optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(self.net(x), y).backward()\n"
        "        self.project(reference)\n"
        "        self.optimizer.step()\n",
        # a parameter kept at zero while the optimizer steps more: parameters handed to it
        # after it is built (`add_param_group`), or put in a group's list through its entry
        "import torch\n"
        "def calibrate(model, loader):\n"
        "    optimizer = torch.optim.SGD([model.temperature], lr=0.01)\n"
        "    optimizer.add_param_group({'params': model.head.parameters()})\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()\n"
        "        optimizer.step()\n"
        "def tune(model, loader):\n"
        "    group = {'params': [model.temperature], 'lr': 0.01}\n"
        "    group['params'].extend(model.head.parameters())\n"
        "    optimizer = torch.optim.SGD([group], lr=0.01)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.temperature.grad.zero_()\n"
        "        optimizer.step()\n",
        # the part a test of each parameter's name picks, cleared through an `and` (SwAV's
        # prototypes frozen for the first iterations): the step applies the rest
        "import torch\n"
        "def train(model, opt, loader, freeze_iters):\n"
        "    for it, (x, y) in enumerate(loader):\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        if it < freeze_iters:\n"
        "            for name, p in model.named_parameters():\n"
        "                'prototypes' in name and p.grad.zero_()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n",
        # the other player's optimizer, captured by a `case` pattern, cleared before this step
        "import torch\n"
        "opt_g = torch.optim.Adam(G.parameters())\n"
        "opt_d = torch.optim.Adam(D.parameters())\n"
        "for real in loader:\n"
        "    opt_d.zero_grad()\n"
        "    d_loss(D, G, real).backward()\n"
        "    match opt_g:\n"
        "        case torch.optim.Adam() as generator_opt:\n"
        "            generator_opt.zero_grad()\n"
        "    opt_d.step()\n"
        "    g_loss(D, G, real).backward()\n"
        "    opt_g.step()\n",
        # a name that held the optimizer, bound again by a `case` before the clear
        "import torch\n"
        "def train(model, head, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    other = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        opt = optimizer\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        match other:\n"
        "            case torch.optim.SGD() as opt:\n"
        "                opt.zero_grad()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # a helper steps what it back-propagates, through an optimizer no statement of the
        # file defines (a global set elsewhere): the caller's clear loses nothing
        "def forward_loss(model, batch, adversarial):\n"
        "    loss = model(batch)\n"
        "    if adversarial:\n"
        "        opt.zero_grad(); loss.backward(); opt.step()\n"
        "    return loss\n"
        "def train(model, loader, opt, adversarial):\n"
        "    for batch in loader:\n"
        "        loss = forward_loss(model, batch, adversarial)\n"
        "        opt.zero_grad(); loss.backward(); opt.step()\n",
        # ... or one held by an attribute of a parameter
        "def forward_loss(model, batch, cfg):\n"
        "    loss = model(batch)\n"
        "    if cfg.adversarial:\n"
        "        cfg.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        cfg.opt.step()\n"
        "    return loss\n"
        "def train(model, loader, opt, cfg):\n"
        "    for batch in loader:\n"
        "        loss = forward_loss(model, batch, cfg)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        # clears between two backwards followed by their optimizer's step; and those of them
        # after whose first backward another optimizer steps (its gradients may be that one's)
        self._suspected: set[cst.CSTNode] = set()
        self._excused: set[cst.CSTNode] = set()

    def finish(self) -> None:
        # a call of another module's function may clear gradients or step
        run_each_iteration(self.ctx, self._transfer, events=None if self.ctx.external else self._is_event)
        dropped = sorted(self._suspected - self._excused, key=self.ctx.order_index)
        callees = {self.ctx.local_callee(clear) for clear in dropped} - {None}
        for clear in dropped:
            if not any(ancestor in callees for ancestor in self.ctx.ancestors(clear)):
                self.report(clear, _BETWEEN_BACKWARDS)
        for loop in self.ctx.nodes_of(cst.For, cst.While):
            found = self._cleared_per_pass(loop)  # type: ignore[arg-type]
            if found is None or any(d.node is found[0] for d in self.diagnostics):
                continue
            clear, inner = found
            if inner is None:
                self.report(clear, _PER_PASS.format(self.ctx.code(clear.func)))
            else:
                self.report(clear, _PER_PASS_HELPER.format(self.ctx.code(clear.func), self.ctx.code(inner.func)))

    def _cleared_per_pass(self, loop: cst.For | cst.While) -> tuple[cst.Call, cst.Call | None] | None:
        """`opt.zero_grad()` as a statement of a loop that back-propagates and steps
        nothing (micro-batches, truncated-BPTT chunks), followed in its block by that
        optimizer's step (or the model's whose parameters it was built from): each pass
        clears what the passes before it back-propagated, and the step applies the last
        pass's gradients alone. Also a call of a helper of the file that clears so
        (`micro_step(model, x)` running `m.zero_grad()`), with that clear."""
        body = loop.body.body if type(loop.body) is cst.IndentedBlock else ()
        # (the statement's call, what it clears, the clear inside a helper it calls)
        clears: list[tuple[cst.Call, cst.BaseExpression, cst.Call | None]] = []
        for line in body:
            for small in line.body if type(line) is cst.SimpleStatementLine else ():
                cleared = method_call(small.value, "zero_grad") if type(small) is cst.Expr else None
                if cleared is not None:
                    clears.append((small.value, cleared, None))  # type: ignore[arg-type]
                elif type(small) is cst.Expr and type(small.value) is cst.Call:
                    clears += self._helper_clears(small.value)
        reached = list(reachable_nodes(self.ctx, loop.body))
        if not clears or not any(is_backward(node) for node in reached):
            return None
        if any(is_grad_attribute(node) for node in reached):
            return None  # each pass's gradients are used in it (per-sample clipping, a saliency map)
        for node in reached:
            if type(node) is not cst.Call:
                continue
            summary = self.ctx.summaries.of_call(node)
            if (method_call(node, "step") is not None or hands_an_optimizer(self.ctx, node)
                    or (summary is not None and summary.does(STEP))
                    or (summary is None and self.ctx.local_callee(node) is None and type(node.func) is cst.Attribute
                        and method_call(node, "backward", "zero_grad", "item", "detach", "size", "to") is None
                        and self.ctx.call_name(node) is None and _may_be_a_step(node))):
                return None  # something in the loop may step: a loop of steps, not of micro-steps
        block = self.ctx.parent(loop)
        statements = list(block.body) if type(block) in (cst.IndentedBlock, cst.Module) else []  # type: ignore[attr-defined]
        after = statements[statements.index(loop) + 1:] if loop in statements else []
        for statement in after:
            for node in self.ctx.subtree(statement):
                stepped = optimizer_step(self.ctx, node)
                if stepped is not None:
                    return next(((call, inner) for call, cleared, inner in clears
                                 if self.ctx.code(cleared) == self.ctx.code(stepped)
                                 or self._model_stepped_by(cleared, stepped)), None)
                if is_backward(node) or clears_grads(self.ctx, node) or is_grad_attribute(node):
                    return None  # the step's gradients are made (or cleared, or set) after the loop
        return None

    def _helper_clears(self, call: cst.Call) -> list[tuple[cst.Call, cst.BaseExpression, cst.Call | None]]:
        """`call` of a helper of the file whose body clears through a parameter
        (`m.zero_grad()` of `def micro_step(m, x)`), with what the clear is of here:
        the argument `call` gives that parameter (`micro_step(model, x)`: `model`)."""
        helper = self.ctx.local_callee(call)
        if helper is None or type(helper.body) is not cst.IndentedBlock:
            return []
        given = dict(bound_arguments(self.ctx, call, helper)[0])
        params = {param.name.value for param in _parameters(helper.params)}
        found: list[tuple[cst.Call, cst.BaseExpression, cst.Call | None]] = []
        for line in helper.body.body:
            for small in line.body if type(line) is cst.SimpleStatementLine else ():
                cleared = method_call(small.value, "zero_grad") if type(small) is cst.Expr else None
                if type(cleared) is cst.Name and cleared.value in params and cleared.value in given:
                    found.append((call, given[cleared.value], small.value))  # type: ignore[arg-type]
        return found

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to."""
        return (method_call(node, "backward", "step") is not None or clears_grads(self.ctx, node)
                or _reads_gradients(self.ctx, node) or _reads_each_gradient(self.ctx, node))

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        if is_backward(node):
            return frozenset({(_BACKWARD, node)}) | self._dropped_by_backward(facts, node)
        optimizer = optimizer_step(self.ctx, node)
        if optimizer is not None:
            since = [fact[0] for fact in facts if fact[0] not in _MARKS]  # the clears since the backward
            candidates = [fact for fact in facts if fact[0] not in _MARKS and self._clears_for(fact, optimizer)
                          and not self._clears_a_part(fact[0], optimizer, since)]
            # a clear of another model's gradients waits for that model's own step
            # (`critic.zero_grad()` before the actor's step, then the critic's)
            waiting = frozenset(fact for fact in candidates if self._other_model(fact[0], optimizer))
            clears = [fact[0] for fact in candidates if fact not in waiting]
            # a clear inside a method of the file that is itself a clear where it is called
            # (`self.zero_grad()` running `self.optimizer.zero_grad()`): one problem, at the call
            callees = {self.ctx.local_callee(clear) for clear in clears} - {None}
            for clear in clears:
                if not any(ancestor in callees for ancestor in self.ctx.ancestors(clear)):
                    self.report(clear)
            return waiting | self._dropped_at_step(facts, optimizer)
        if unknown_step(self.ctx, node) is not None or steps_unresolved_optimizer(self.ctx, node) is not None:
            # `opt_d.step()` of an optimizer handed in and never cleared here: it may be what
            # the backward before it was for, as a known one's step is (a GAN's discriminator
            # stepped, then the generator's clear, backward and step): that backward's part
            # ends, and what was dropped may have been meant for it; a clear still waiting
            # for its own optimizer's step stays. So too a helper's `opt.step()` of what no
            # statement of the file defines, cleared in the same helper: it steps its own pass
            self._excused.update(held[0] for mark, held in facts if mark in (_DROPPED, _SUSPECT))
            return frozenset(fact for fact in facts if fact[0] not in _MARKS)
        backwards = [fact[1] for fact in facts if fact[0] == _BACKWARD]
        if backwards and (_reads_gradients(self.ctx, node) or _reads_each_gradient(self.ctx, node)):
            facts = facts | {(_READ, None)}  # and what else the node does (a helper handed the optimizer)
        summary = self.ctx.summaries.of_external_call(node) if type(node) is cst.Call else None
        if summary is not None and (backwards or _only_back_propagates(summary)):
            return self._through(facts, node, summary)  # type: ignore[arg-type]
        if (
            any(self._same_iteration(b, node) for b in backwards)
            and clears_grads(self.ctx, node)
            and not sets_gradients(node)
            and not self._some_parameters(node)
            and not self._failed_backward(node, backwards)
        ):
            return facts | {(node, self._cleared_optimizer(node))}
        return facts

    def _clears_for(self, clear: tuple, optimizer: cst.BaseExpression) -> bool:
        """The clear of the fact `clear` (the clear, its optimizer's code) may empty what
        the step of `optimizer` applies: a model's or parameters' clear, or one through
        that optimizer, also under another name (`opt = optimizer`, `case opt:`)."""
        return (clear[1] in (None, self.ctx.code(optimizer)) or self._clears_one_of(clear[0], optimizer)
                or self._clears_through_alias(clear[0], optimizer))

    def _clears_through_alias(self, clear: cst.CSTNode, optimizer: cst.BaseExpression) -> bool:
        """`clear` goes through a variable whose one binding gives it the stepped optimizer
        itself (`opt = optimizer`, or `case opt:` of `match optimizer:`), an optimizer
        bound once: neither may hold another one by then."""
        receivers = self.ctx.receivers
        receiver = method_call(clear, "zero_grad")
        through = receivers.binding(receiver) if receiver is not None else None
        values = receivers.only_assigned(through) if through is not None else None
        stepped = receivers.binding(optimizer)
        return (stepped is not None and values is not None and len(values) == 1
                and type(values[0]) in (cst.Name, cst.Attribute) and receivers.binding(values[0]) == stepped
                and len(list(receivers.bound_at(stepped))) <= 1)

    def _dropped_by_backward(self, facts: Facts, later: cst.CSTNode) -> Facts:
        """The clears a new backward leaves dropping its predecessor's gradients: those
        reached after that backward with no step between and nothing reading its
        gradients (PCGrad's `p.grad.clone()`, `torch.autograd.grad`, backpack's
        `p.grad_batch`: gradient surgery that clears on purpose); and those dropped
        before it. Only after a plain `loss.backward()` other than this one: a pass
        given arguments (`retain_graph=True`, `create_graph=True`, `inputs=`) is an
        auxiliary one (a penalty's per-sample gradients, ghost clipping's norms) whose
        gradients are cleared on purpose, and the same backward reached again is a
        closure run twice (`fn()`, then `optimizer.step(fn)` clearing first)."""
        dropped = {fact for fact in facts if fact[0] == _DROPPED}
        earlier = [fact[1] for fact in facts if fact[0] == _BACKWARD]
        if earlier and all(_plain_backward(b) and b is not later for b in earlier) and (_READ, None) not in facts:
            dropped |= {(_DROPPED, fact) for fact in facts if fact[0] not in _MARKS}
        return frozenset(dropped)

    def _dropped_at_step(self, facts: Facts, optimizer: cst.BaseExpression) -> Facts:
        """At the step of `optimizer`: a dropped clear for it is suspected (the step
        applies the later backward's gradients alone); one for another optimizer, or
        suspected at another's step, is excused: a step of another optimizer after the
        first backward may be what that backward was for (a GAN's generator stepped
        after the discriminator cleared what the generator's loss left in it)."""
        suspects = set()
        for mark, held in facts:
            if mark == _DROPPED and self._clears_for(held, optimizer) and not self._other_model(held[0], optimizer):
                self._suspected.add(held[0])
                suspects.add((_SUSPECT, (held[0], self.ctx.code(optimizer))))
            elif mark == _DROPPED or (mark == _SUSPECT and held[1] != self.ctx.code(optimizer)):
                self._excused.add(held[0])
            elif mark == _SUSPECT:
                suspects.add((mark, held))
        return frozenset(suspects)

    def _failed_backward(self, clear: cst.CSTNode, backwards: list[cst.CSTNode]) -> bool:
        """`clear` in an `except` handler of a `try:` around the backward that catches
        running out of memory (fairseq's handler): the backward failed, and what it
        left are partial gradients; no gradient of this iteration is lost, whether the
        step then runs or the caller skips it."""
        handler = next((a for a in self.ctx.ancestors(clear)
                        if type(a) in (cst.ExceptHandler, cst.ExceptStarHandler, cst.FunctionDef, cst.Lambda)), None)
        if type(handler) not in (cst.ExceptHandler, cst.ExceptStarHandler):
            return False
        if not _memory_handler(self.ctx, handler):
            return False  # `except ConnectionError:` of a logger after a backward that completed
        attempt = self.ctx.parent(handler)
        start, end = self.ctx.order_index(attempt.body), self.ctx.subtree_end(attempt.body)  # type: ignore[attr-defined]
        return any(start <= self.ctx.order_index(b) <= end for b in backwards)

    def _some_parameters(self, node: cst.CSTNode) -> bool:
        """A clear of the parameters a condition picks in the loop over them
        (`if "prototypes" in name: p.grad = None`, `"prototypes" in name and
        p.grad.zero_()`): freezing a part for a while,
        while the step applies the rest."""
        if method_call(node, "zero_grad") is not None:
            return False
        tests = []
        child = node
        for ancestor in self.ctx.ancestors(node):
            if type(ancestor) is cst.If:
                tests.append(ancestor.test)
            elif (test := passed_test(ancestor, child)) is not None:  # `"prototypes" in name and p.grad.zero_()`
                tests.append(test)
            elif type(ancestor) is cst.For:
                if not tests or method_call(ancestor.iter, "parameters", "named_parameters") is None:
                    return False
                names = target_names(ancestor.target)
                # a test of whether there is a gradient (`if p.grad is not None:`) picks no part;
                # one of its values does (`if not torch.isfinite(p.grad).all():`)
                return any({n.value for n in iter_nodes(test) if type(n) is cst.Name} & names
                           and not _only_presence(test) for test in tests)
            elif type(ancestor) in (cst.While, cst.FunctionDef):
                return False
            child = ancestor
        return False

    def _through(self, facts: Facts, call: cst.Call, summary: Summary) -> Facts:
        """A function of another module called after `backward()`, by its effects in
        the order first reached: a clear before its own step (`finish_step(opt)`:
        `opt.zero_grad(); opt.step()`) is reported at the call; a clear alone waits
        for the caller's step, as one written here does."""
        effects = summary.effects
        if ZERO_GRAD not in effects:
            if _only_back_propagates(summary):
                # `backward(loss)` of utils.py: a backward pass of this iteration, as if written here
                return frozenset({(_BACKWARD, call)}) | self._dropped_by_backward(facts, call)
            return frozenset() if STEP in effects or BACKWARD in effects else facts
        clear = effects.index(ZERO_GRAD)
        if BACKWARD in effects and effects.index(BACKWARD) < clear:
            return frozenset() if STEP in effects else facts  # its own pass, its own business
        if STEP in effects:
            step = effects.index(STEP)
            if clear < step and not (BACKWARD in effects and clear < effects.index(BACKWARD) < step):
                self.report(call, _THROUGH_HELPER.format(self.ctx.code(call.func)))
            return frozenset()
        return facts | {(call, None)}

    def _same_iteration(self, backward: cst.CSTNode, clear: cst.CSTNode, depth: int = 0) -> bool:
        """A clear inside loops pairs with a backward inside one of them (the
        same iteration), not with one run once before them all (a warm-up
        pass, gradients dumped for a reference file, a CUDA graph's capture)
        that reaches only the first iteration; also a backward in a helper of
        the file that only the clear's function calls, judged at those calls.
        Across other functions the flow's own iteration boundaries decide."""
        function = self.ctx.enclosing_function(clear)
        helper = self.ctx.enclosing_function(backward)
        if helper is not function:
            sites = self.ctx.call_sites(helper) if helper is not None and depth < 3 else []
            if not sites or any(self.ctx.enclosing_function(site) is not function for site in sites):
                return True
            return any(self._same_iteration(site, clear, depth + 1) for site in sites)
        # a loop over optimizers runs within one step (`for opt in optimizers: opt.zero_grad()`)
        loops = {loop for loop in loops_within(self.ctx, clear, function) if not self._over_optimizers(loop)}
        return not loops or bool(loops & loops_within(self.ctx, backward, function))

    def _over_optimizers(self, loop: cst.CSTNode) -> bool:
        """A loop a variable of which takes optimizers (`for opt in optimizers:`,
        `for model, opt in zip(models, optimizers):`): its passes are parts of one step."""
        return type(loop) is cst.For and any(
            type(node) is cst.Name and is_optimizer(self.ctx, node) for node in iter_nodes(loop.target))

    def _other_model(self, clear: cst.CSTNode, optimizer: cst.BaseExpression) -> bool:
        """`clear` empties the gradients of parameters of one model and the
        optimizer was built from another model's parameters (a bf16 copy
        whose gradients were copied to fp32 master weights, then dropped)."""
        cleared = self._model_of_parameter(clear)
        if cleared is None:
            return False
        receivers = self.ctx.receivers
        params = optimizer_params(receivers, optimizer)
        model = _parameters_of(params) if params is not None else None
        owner = receivers.binding(model) if model is not None else None
        if owner is None or owner == cleared:
            return False
        # two names of one model share its parameters; a model built from the other
        # (a wrapper, `nn.Sequential(G, D)`) holds its parameters too; a deep copy of
        # it does not
        if self._deep_copy(owner) or self._deep_copy(cleared):
            return not (self._set_from(owner, cleared) or self._set_from(cleared, owner))
        return not (self._built_from(owner, cleared) or self._built_from(cleared, owner))

    def _clears_a_part(self, clear: cst.CSTNode, optimizer: cst.BaseExpression, since: list[cst.CSTNode]) -> bool:
        """`clear` is the `zero_grad()` of a part of what the step of `optimizer` applies:
        a submodule of the model it was built from (`model.prototypes.zero_grad()` beside
        `SGD(model.parameters())`), or one of several parameter groups' models; or the
        clear of one parameter's gradient (see `_clears_one_parameter`; `since`: the
        clears since the backward). The rest still steps: a part frozen for a while
        (SwAV's prototypes), not a lost step. The wrapped module of DDP (`model.module`)
        is the whole model."""
        if self._clears_one_parameter(clear, optimizer, since):
            return True
        cleared = method_call(clear, "zero_grad")
        if cleared is None or is_optimizer(self.ctx, cleared):
            return False
        params = optimizer_params(self.ctx.receivers, optimizer)
        sources = _parameter_sources(params) if params is not None else []
        if not sources:
            return self._part_of_the_model_run(clear, cleared)
        holding = [source for source in sources if self._within(source, cleared)]
        if not holding:
            return False
        return len(sources) > 1 or any(_below(self.ctx.code(cleared), self.ctx.code(source)) for source in holding)

    def _clears_one_parameter(self, clear: cst.CSTNode, optimizer: cst.BaseExpression,
                              since: list[cst.CSTNode]) -> bool:
        """`clear` empties the gradient of one parameter named through its module
        (`layer.phantom.grad.zero_()`, `model.embed.weight.grad = None`) and the step of
        `optimizer` applies more than the parameters cleared so among `since` (the clears
        since the backward): it is built from a model's parameters, or out of sight, or
        from tensors named one by one some of which are not cleared. That parameter sits
        the step out (one kept at zero), the rest steps. Built from the cleared ones alone
        (`SGD([model.scale])`, also in a parameter group, a variable or through a name of
        the tensor), the optimizer steps nothing else."""
        gradient = _cleared_gradient(clear)
        if gradient is None or type(gradient.value) is not cst.Attribute:
            return False  # `p.grad` of a loop over all parameters, a tensor of its own
        params = optimizer_params(self.ctx.receivers, optimizer)
        stepped = self._tensors_named(params) if params is not None else None
        if stepped is None or self._groups_added(optimizer):
            return True
        cleared = [found.value for other in since if (found := _cleared_gradient(other)) is not None]
        return not all(any(self._same_variable(tensor, other) for other in cleared) for tensor in stepped)

    def _groups_added(self, optimizer: cst.BaseExpression) -> bool:
        """The file hands `optimizer` more parameters after it is built
        (`optimizer.add_param_group({"params": model.head.parameters()})`)."""
        binding = self.ctx.receivers.binding(optimizer)
        return binding is not None and binding in self.ctx.shared(_grown_optimizers)

    def _tensors_named(self, params: cst.BaseExpression, group: bool = False) -> list[cst.BaseExpression] | None:
        """The tensors an optimizer's `params` (with `group`, a parameter group's) names one
        by one: `[model.scale, model.shift]`, `[{"params": [model.scale], "lr": 0.1}]`, a
        variable assigned such a list, a name assigned the tensor (`t = model.scale`); None
        where a model's parameters (`model.parameters()`) or what the file does not show
        may be among them."""
        params = self._assigned_value(params)
        if type(params) not in (cst.List, cst.Tuple):
            # a group's one tensor (`{"params": model.scale}`; `model.head.parameters()`
            # there matches no clear of a tensor)
            return [params] if group else None
        tensors: list[cst.BaseExpression] = []
        for element in params.elements:  # type: ignore[attr-defined]
            if type(element) is not cst.Element:
                return None  # `*model.parameters()`
            value = self._assigned_value(element.value)
            if group or not _is_dict(value):
                tensors.append(value)
                continue
            entry = dict_entry(self.ctx, value, "params")
            named = self._tensors_named(entry, group=True) if entry is not None else None
            if named is None:
                return None
            tensors += named
        return tensors

    def _assigned_value(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What the variable `expr` names when its one value is written out as another
        name (`model.scale` of `t = model.scale`), a list or a parameter group never
        filled afterwards (`params.append(...)`); else `expr` itself (`self.t` of
        `self.t = nn.Parameter(...)` is the tensor's name)."""
        receivers = self.ctx.receivers
        binding = receivers.binding(expr)
        values = receivers.only_assigned(binding) if binding is not None else None
        if values is None or len(values) != 1:
            return expr
        if type(values[0]) in (cst.Name, cst.Attribute):
            return values[0]
        if type(values[0]) not in (cst.List, cst.Tuple) and not _is_dict(values[0]):
            return expr
        return expr if binding in self.ctx.shared(_filled_containers) else values[0]

    def _part_of_the_model_run(self, clear: cst.CSTNode, cleared: cst.BaseExpression) -> bool:
        """With an optimizer built out of sight (a parameter): `cleared` is a submodule of
        a model the clear's function runs forward (`model.module.prototypes` of
        `model(inputs)`): when unsure what the optimizer steps, a part of that model."""
        head = head_name(cleared)
        function = self.ctx.enclosing_function(clear)
        if head is None or receiver_method(self.ctx, head, classes=True) is not None or function is None:
            return False
        if not _below(self.ctx.code(cleared), head.value):
            return False
        return any(type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == head.value
                   for node in self.ctx.subtree(function.body))

    def _model_stepped_by(self, cleared: cst.BaseExpression, optimizer: cst.BaseExpression) -> bool:
        """`cleared.zero_grad()` clears the parameters `optimizer` was built from: a
        model's (`Adam(model.parameters())`, `Adam(net.module.parameters())`), a part's
        of it (`model.encoder.parameters()`), its tensors in parameter groups
        (`[{"params": model.weight}, {"params": model.bias, "lr": 0.01}]`); what the
        optimizer steps."""
        if is_optimizer(self.ctx, cleared):
            return False  # an optimizer's clear is paired by name
        params = optimizer_params(self.ctx.receivers, optimizer)
        sources = _parameter_sources(params) if params is not None else []
        return bool(sources) and all(self._within(cleared, source) for source in sources)

    def _within(self, model: cst.BaseExpression, part: cst.BaseExpression) -> bool:
        """`part` is `model` or an attribute of it, or of one of its attributes."""
        while True:
            if self._same_variable(model, part):
                return True
            if type(part) is not cst.Attribute:
                return False
            part = part.value

    def _same_variable(self, first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
        """`first` and `second` read one variable (`model`, `self.model`), or one attribute
        path from one (`net.module`)."""
        receivers = self.ctx.receivers
        held = receivers.binding(first), receivers.binding(second)
        if held != (None, None):
            return held[0] == held[1]
        roots = head_name(first), head_name(second)
        if roots[0] is None or roots[1] is None or receivers.binding(roots[0]) is None:
            return False
        return receivers.binding(roots[0]) == receivers.binding(roots[1]) and (
            self.ctx.code(first)[len(roots[0].value):] == self.ctx.code(second)[len(roots[1].value):])

    def _deep_copy(self, binding: Binding) -> bool:
        values = [unchain_module(value) for value in self.ctx.receivers.assigned(binding)]
        return bool(values) and all(
            type(value) is cst.Call and self.ctx.call_name(value) == "copy.deepcopy" for value in values
        )

    def _built_from(self, binding: Binding, other: Binding) -> bool:
        """Some value `binding` is assigned reads `other` (`other` itself, `DDP(other)`,
        `nn.Sequential(other, head)`, `other.module`): it may hold `other`'s parameters."""
        receivers = self.ctx.receivers
        values = receivers.assigned(binding)
        if not values:
            return False
        return any(receivers.binding(node) == other for value in values for node in iter_nodes(value)
                   if type(node) in (cst.Name, cst.Attribute))

    def _set_from(self, binding: Binding, other: Binding) -> bool:
        """`binding` is assigned `other` itself, `other.to(device)` and the like, or a
        wrapper of it (`DDP(other)`)."""
        receivers = self.ctx.receivers
        return any(receivers.binding(module_behind(self.ctx, value)) == other for value in receivers.assigned(binding))

    def _model_of_parameter(self, clear: cst.CSTNode) -> Binding | None:
        """The model whose gradients `clear` empties: `model.zero_grad()`, or
        the model `p` comes from in `p.grad = None` (`p.grad.zero_()`,
        `del p.grad`) under `for p in model.parameters()`, `for name, p in
        model.named_parameters()` or `for a, b in zip(m1.parameters(), m2.parameters())`."""
        model = method_call(clear, "zero_grad")
        if model is not None:  # `model.zero_grad()` (an optimizer's is paired by name)
            return None if is_optimizer(self.ctx, model) else self.ctx.receivers.binding(model)
        target = _cleared_gradient(clear)
        if target is None or type(target.value) is not cst.Name:
            return None
        name = target.value.value
        for loop in ancestors_within(self.ctx, clear, self.ctx.enclosing_function(clear)):
            if type(loop) is not cst.For:
                continue
            source = _iterated_source(loop.target, loop.iter, name)
            if source is not None:
                return self.ctx.receivers.binding(source)
        return None

    def _clears_one_of(self, clear: cst.CSTNode, optimizer: cst.BaseExpression) -> bool:
        """`clear` and the step of `optimizer` go through one optimizer, one of them in a
        loop over optimizers that holds the other (`for o in self.optims.values():
        o.zero_grad()` before `self.optims["g"].step()`, `opt1.zero_grad()` before
        `for o in [opt1, opt2]: o.step()`), or both in loops over one list of them."""
        receiver = method_call(clear, "zero_grad")
        if receiver is None:
            return False
        cleared, stepped = ranged_bindings(self.ctx, receiver), ranged_bindings(self.ctx, optimizer)
        if any(cleared) and any(stepped):
            return bool(cleared[0] & stepped[0] or cleared[1] & stepped[1])
        if any(cleared):
            return self._held_by(optimizer, *cleared)
        return any(stepped) and self._held_by(receiver, *stepped)

    def _held_by(self, expr: cst.BaseExpression, variables: set[Binding], containers: set[Binding]) -> bool:
        """`expr` is one of `variables`, or an item of one of `containers` (`optims["g"]`)."""
        receivers = self.ctx.receivers
        container = expr.value if type(expr) in (cst.Subscript, cst.Attribute) else None  # type: ignore[attr-defined]
        item_of = receivers.binding(container) if container is not None else None
        return receivers.binding(expr) in variables or (item_of is not None and item_of in containers)

    def _cleared_optimizer(self, node: cst.CSTNode) -> str | None:
        """The optimizer a clear goes through (None: a model or parameters); `_RANGED`
        for a loop variable over optimizers the file shows (`for o in [opt_d1, opt_d2]:`):
        which steps it clears for, `_clears_one_of` tells."""
        receiver = method_call(node, "zero_grad")
        if receiver is None:
            return None
        if any(ranged_bindings(self.ctx, receiver)) and not self._beside_optimizers(receiver):
            return _RANGED
        if is_optimizer(self.ctx, receiver):
            return self.ctx.code(receiver)
        return None

    def _beside_optimizers(self, expr: cst.BaseExpression) -> bool:
        """`expr`, no optimizer, is a loop variable that a `zip` takes beside optimizers
        (`model` of `for model, opt in zip(models, optimizers):`): a model, not one of them."""
        if type(expr) is not cst.Name or is_optimizer(self.ctx, expr):
            return False
        for ancestor in self.ctx.ancestors(expr):
            if type(ancestor) in (cst.FunctionDef, cst.Lambda):
                return False
            if type(ancestor) is cst.For and expr.value in target_names(ancestor.target):
                iterated = ancestor.iter
                return (type(iterated) is cst.Call and type(iterated.func) is cst.Name
                        and iterated.func.value == "zip" and self._over_optimizers(ancestor))
        return False


def _iterated_source(target: cst.BaseExpression, iterated: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """The model whose parameters the loop variable `name` takes, if the loop says so."""
    if type(target) is cst.Name:
        return _parameters_of(iterated) if target.value == name else None
    if type(target) not in (cst.Tuple, cst.List):
        return None
    names = [e.value for e in target.elements]  # type: ignore[attr-defined]
    if type(iterated) is cst.Call and type(iterated.func) is cst.Name and iterated.func.value == "zip":
        for element, argument in zip(names, iterated.args):
            if argument.star:
                return None
            found = _iterated_source(element, argument.value, name)
            if found is not None:
                return found
        return None
    receiver = method_call(iterated, "named_parameters")
    if receiver is not None and len(names) == 2 and type(names[1]) is cst.Name and names[1].value == name:
        return receiver
    return None


def _parameter_sources(params: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What an optimizer's parameters come from: `model` of `model.parameters()`; of
    parameter groups written out, each group's (`model` of `model.parameters()`,
    `model.weight` itself); none where one group's is not written so."""
    model = _parameters_of(params)
    if model is not None or type(params) not in (cst.List, cst.Tuple):
        return [model] if model is not None else []
    sources = []
    for element in params.elements:  # type: ignore[attr-defined]
        group = element.value
        given = [e.value for e in group.elements if type(e) is cst.DictElement  # type: ignore[attr-defined]
                 and string_value(e.key) == "params"] if type(group) is cst.Dict else []
        if len(given) != 1 or type(given[0]) not in (cst.Call, cst.Attribute):
            return []
        source = _parameters_of(given[0]) if type(given[0]) is cst.Call else given[0]
        if source is None:
            return []
        sources.append(source)
    return sources


def _below(part: str, model: str) -> bool:
    """`part` (as written) is an attribute path under `model` that is no unwrapping of it
    (`model.prototypes`, not `model.module`)."""
    rest = part[len(model):].split(".")[1:] if part.startswith(model + ".") else []
    return any(name != "module" for name in rest)


def _parameters_of(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`model` of `model.parameters()`."""
    receiver = method_call(expr, "parameters")
    return receiver if receiver is not None and not expr.args else None  # type: ignore[attr-defined]


_PER_PASS = ("`{}()` runs on every pass of a loop that only back-propagates, and the optimizer steps after it: "
             "each pass drops the gradients of the passes before; clear once before the loop")
_PER_PASS_HELPER = ("`{}()` runs `{}()` on every pass of a loop that only back-propagates, and the optimizer steps "
                    "after it: each pass drops the gradients of the passes before; clear once before the loop")


def _may_be_a_step(call: cst.Call) -> bool:
    """A method call whose name says it may step (`trainer.update(loss)`,
    `self.optimize(loss)`, `engine.train_step(batch)`)."""
    name = call.func.attr.value.lower()  # type: ignore[attr-defined]
    return any(word in name for word in ("step", "update", "optim", "apply", "train"))


_BETWEEN_BACKWARDS = ("gradients are cleared between two `backward()` calls before the optimizer step: the step "
                      "applies only the later one's; clear before the first `backward()`")


def _only_back_propagates(summary: Summary) -> bool:
    """Another module's function that back-propagates and neither clears nor steps
    (`backward(loss)` of utils.py, `scaled_backward(scaler, loss)`)."""
    effects = summary.effects
    return BACKWARD in effects and STEP not in effects and ZERO_GRAD not in effects


def _plain_backward(node: cst.CSTNode) -> bool:
    """`loss.backward()` with no arguments."""
    return type(node) is cst.Call and method_call(node, "backward") is not None and not node.args


def _cleared_gradient(clear: cst.CSTNode) -> cst.Attribute | None:
    """The `p.grad` a clear other than `zero_grad()` empties: `p.grad = None`, `del p.grad`,
    `p.grad.zero_()`, `p.grad.data.zero_()`."""
    if type(clear) is cst.Assign:
        target = clear.targets[0].target
    elif type(clear) is cst.Del:
        target = clear.target
    else:
        target = method_call(clear, "zero_", "detach_", "fill_")
        if type(target) is cst.Attribute and target.attr.value == "data":
            target = target.value
    return target if type(target) is cst.Attribute and target.attr.value == "grad" else None


def _is_dict(value: cst.BaseExpression) -> bool:
    """`{...}` or `dict(...)`: a parameter group among an optimizer's parameters."""
    return type(value) is cst.Dict or (type(value) is cst.Call and dotted_name(value.func) == "dict")


def _reads_each_gradient(ctx: FileContext, node: cst.CSTNode) -> bool:
    """`node` is the `model.parameters()` (`named_parameters()`) a `for` ranges over, of a
    model its function back-propagates, and the loop's body reads gradients (A-GEM's
    reference gradient gathered before the clear: `for p in model.parameters(): if
    p.requires_grad: ref.append(p.grad.view(-1))`). A model has parameters and a test
    there picks some of them, so the loop reads gradients on every path, not only on
    those that take its body and its test. Another model's (a teacher's) gradients are
    not the backward's, and a read in a lambda or function defined there (a hook) runs
    later, if at all."""
    model = method_call(node, "parameters", "named_parameters")
    if model is None:
        return False
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.For:
            return (child is ancestor.iter and _back_propagated(ctx, model, ancestor)
                    and any(_reads_gradients(ctx, n, deferred=False) for n in ctx.own_nodes(ancestor.body)))
        if not isinstance(ancestor, cst.BaseExpression) and type(ancestor) is not cst.Arg:
            return False
        child = ancestor
    return False


def _back_propagated(ctx: FileContext, model: cst.BaseExpression, node: cst.CSTNode) -> bool:
    """A backward of `node`'s function back-propagates what `model` (or the model it is a
    part of: `model` of `model.encoder`, not `self` of `self.teacher`) computes."""
    function = ctx.enclosing_function(node)
    consumed = consumed_names(ctx, function.body if function is not None else ctx.module, graph_only=True)
    written = dotted_name(model)
    parts = written.split(".") if written is not None else []
    wholes = {".".join(parts[:n]) for n in range(1, len(parts) + 1)} - ({"self"} if len(parts) > 1 else set())
    return bool(wholes & consumed)


def _reads_gradients(ctx: FileContext, node: cst.CSTNode, deferred: bool = True) -> bool:
    """`node` reads gradients: `torch.autograd.grad(...)`, or a `.grad` in a call's
    arguments or receiver (`p.grad.clone()`, `grads.append(p.grad)`) or in an assigned
    value (`g = p.grad`, `total += p.grad`); not a clear, nor an in-place change of the
    gradient (`p.grad.mul_(s)`, `p.grad.requires_grad_(False)`). Or it may: a method of
    an optimizer other than its clear and step (SAM's `optimizer.first_step()`), code
    out of sight handed an optimizer. Without `deferred`, not a `.grad` read only in a
    lambda handed on (`p.register_hook(lambda g: p.grad.norm())`: it runs later)."""
    if type(node) is cst.Call:
        if ctx.call_name(node) == "torch.autograd.grad" or hands_an_optimizer(ctx, node):
            return True
        if method_call(node, "zero_grad", "step") is None and type(node.func) is cst.Attribute and is_optimizer(
                ctx, node.func.value):
            return True
        if clears_grads(ctx, node):
            return False
        read = [arg.value for arg in node.args]
        if type(node.func) is cst.Attribute and not node.func.attr.value.endswith("_"):
            read.append(node.func.value)
    elif type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign):
        read = [node.value] if node.value is not None else []  # type: ignore[attr-defined]
    else:
        return False
    walk = iter_nodes if deferred else own_nodes
    return any(is_grad_attribute(n) or (type(n) is cst.Attribute and n.attr.value.startswith("grad_"))
               for value in read if deferred or type(value) is not cst.Lambda
               for n in walk(value))  # type: ignore[arg-type]


_THROUGH_HELPER = ("`{}()` clears the gradients and then steps the optimizer: the step applies zero "
                   "gradients; clear them before `backward()`")


def _only_presence(test: cst.BaseExpression) -> bool:
    """`p.grad is not None`, `p.requires_grad`, and those joined by `and`/`or`/`not`:
    whether a parameter has a gradient at all, not what it holds."""
    if type(test) is cst.BooleanOperation:
        return _only_presence(test.left) and _only_presence(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _only_presence(test.expression)
    if type(test) is cst.Comparison:
        return (type(test.left) is cst.Attribute and test.left.attr.value == "grad"
                and all(type(c.operator) in (cst.Is, cst.IsNot) and type(c.comparator) is cst.Name
                        and c.comparator.value == "None" for c in test.comparisons))
    return type(test) is cst.Attribute and test.attr.value == "requires_grad"


# what a backward that ran out of memory raises
_MEMORY_ERRORS = ("RuntimeError", "OutOfMemoryError", "MemoryError")


def _memory_handler(ctx: FileContext, handler: cst.CSTNode) -> bool:
    """An `except` that catches running out of memory: `RuntimeError` (what torch raised
    before `torch.cuda.OutOfMemoryError`), the latter, `MemoryError`, or one whose body
    asks whether the error says "out of memory"."""
    caught = handler.type  # type: ignore[attr-defined]
    names = [caught] if caught is None or type(caught) is not cst.Tuple else [e.value for e in caught.elements]
    if any(name is not None and (dotted_name(name) or "").rsplit(".", 1)[-1] in _MEMORY_ERRORS for name in names):
        return True
    return "out of memory" in ctx.code(handler.body).lower()  # type: ignore[attr-defined]


def _grown_optimizers(ctx: FileContext) -> frozenset[Binding]:
    """The variables of the file handed more parameters (`opt.add_param_group(...)`)."""
    receivers = ctx.receivers
    return frozenset(binding for node in ctx.nodes_of(cst.Call)
                     if (receiver := method_call(node, "add_param_group")) is not None
                     and (binding := receivers.binding(receiver)) is not None)


def _filled_containers(ctx: FileContext) -> frozenset[Binding]:
    """The variables of the file whose contents are added to (`params.append(...)`,
    `group["params"].extend(...)`) or written anew by entry (`group["params"] = ...`)."""
    receivers = ctx.receivers
    stored = [item_container(receiver) for node in ctx.nodes_of(cst.Call)
              if (receiver := method_call(node, *STORING_METHODS)) is not None]
    written = [item_container(target) for node in (*ctx.nodes_of(cst.Assign), *ctx.nodes_of(cst.AugAssign))
               for target in assignment_targets(node) if type(target) is cst.Subscript]
    return frozenset(binding for held in (*stored, *written) if (binding := receivers.binding(held)) is not None)

