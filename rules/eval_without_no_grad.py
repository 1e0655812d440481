import re
from collections.abc import Sequence

import libcst as cst

from trainlint.analysis.accumulators import STORING_METHODS, outlives_call, own_variable, reads_only
from trainlint.analysis.dataflow import is_constant, target_names, unpacked
from trainlint.analysis.evaluation import models_called, runs_layers
from trainlint.analysis.flow import Facts
from trainlint.analysis.literals import is_docstring
from trainlint.analysis.generators import consumed_at
from trainlint.analysis.loops import (
    CallFlow,
    built_in_mode,
    clears_grads,
    grad_mode_at,
    is_backward,
    is_optimizer,
    hands_an_optimizer,
    lexical_grad_mode,
    Loop,
    loop_body,
    mode_switch,
    reachable_nodes,
    repeating_loop,
    scheduler_step,
    train_mode_call,
)
from trainlint.analysis.no_grad_results import runs_without_grad
from trainlint.analysis.phases import (
    Ran, as_caller_writes, fixed_flags, fixed_mode, flag_parameters, in_callers_terms, run_under,
)
from trainlint.analysis.receivers import Binding
from trainlint.analysis.scopes import (
    argument_slots, assignment_targets, binding_scope, bound_arguments, decorated, dotted_name, handed_receiver,
    head_name, receiver_method,
)
from trainlint.analysis.training import (
    MODULE_CHAIN, ancestors_within, code_bodies, method_call, own_attribute, unchain_module, wrapped_module,
)
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, MAY_ZERO_GRAD, STEP, TRAIN, ZERO_GRAD, Summary

_ELSEWHERE = (
    "`{}()` runs evaluation forward passes of a model in eval mode outside `torch.no_grad()`: they record an "
    "autograd graph for nothing; call it under `torch.no_grad()` or `torch.inference_mode()`"
)
# calls that show a loop or a function needs the autograd graph
_GRAPH_USERS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
# packages of environments, whose objects' `step(action)` advances a simulation, not an optimizer
_ENVIRONMENT_PACKAGES = ("gym", "gymnasium", "envpool", "pettingzoo", "dm_env", "dm_control", "procgen",
                         "ale_py", "supersuit", "stable_baselines3.common.vec_env")
# a factory whose name says it builds environments (`make_vec_envs`, `make_env`, `create_atari_env`),
# as a project's around an environment package is named
_ENVIRONMENT_FACTORY = re.compile(r"^_?(?:make|create|build|get|init|setup)_(?:\w+_)?env(?:ironment)?s?$")


class EvalWithoutNoGrad(Rule):
    """
    ## What it does
    Flags forward calls of a model in an evaluation loop: after
    `model.eval()`, inside a `for` / `while` loop or a comprehension
    (`[model(x) for x, _ in loader]`, `sum(criterion(model(x), y).item()
    for x, y in loader)`; what a loop iterates over runs once, outside it; a
    generator expression's forwards run where it is consumed: see Limitations)
    that neither back-propagates, steps, nor clears an optimizer's gradients (the
    evaluated model's own `zero_grad()`, a habit of evaluation code, does not
    count), and with no `torch.no_grad()` /
    `torch.inference_mode()` around them: not as a `with` block, not as a
    decorator of the function (bare, called, aliased, or a wrapper of the
    same file), not at the call sites of the function, and not inside the
    model's own `forward` for this call (SPADE's
    `model(data, mode="inference")`, whose `forward` runs that branch under
    `torch.no_grad()`).

    ## Why is this bad?
    `eval()` only changes how dropout and BatchNorm behave; it does not stop
    autograd. Every forward pass still records its graph and keeps the
    activations alive for a backward that never comes, so evaluation uses far
    more memory (often the cause of an out-of-memory error in validation that
    training did not hit) and runs slower.

    ## Example
    ```python
    model.eval()
    for x, y in val_loader:
        logits = model(x)
    ```

    ## Use instead
    ```python
    model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
    ```

    ## Fix safety
    No fix: the `no_grad` region may belong on the function, at its call
    site, or around the loop.

    ## Limitations
    A generator expression of forwards counts where it is consumed in place: by a
    builtin (`sum`, `list`, `max`, ...), `" ".join(...)` of a string, `math.fsum`,
    `math.prod`, `statistics.mean` / `fmean` / `median`, `collections.deque` /
    `Counter`, `numpy.fromiter`, `outs.extend(...)` of a list of the function's own that
    is only grown in place, measured (`len`) or returned (not a global, nor kept on `self`),
    a `for` or another comprehension's iterable; or bound to a name (`outs = (model(x)
    for x in loader)`) that one later statement of its block reads, its only read,
    surely (no `if`, `and` or `or` branch around it) and consumed so, under the same grad
    mode, with nothing in that statement that needs a graph (`total = sum(o.sum() for o
    in outs)`, `list(outs)`, `for o in outs:`). Not when it is handed to any other
    function (`torch.cat` and `torch.stack` raise on a generator before running it),
    returned, or read again.
    The model must be called by the same expression that `.eval()` was called
    on, or that an assignment bound to a module put in eval mode as it is built
    (`model = Generator(4).eval()`, also `.to(device).eval()` or `.eval().to(device)`),
    or that was handed to a function of the file or of another module of
    the project that puts what it is handed in eval mode on every call, under no
    condition, switching no model back to train mode and setting no grad mode of
    its own (`set_eval(model)`, `utils.prepare_eval(self.model)` of a `def
    prepare_eval(model): model.eval()`) (also an item of a container: `self.model["generator"]`; or through its wrapper's `.module`, or through a variable assigned, by plain assignments only, that model moved or wrapped and nothing else (`parallel_model = nn.DataParallel(model).cuda()`), and assigned so anew after each assignment to the model, on every path and before anything may read it (no loop or `try` between), where the model's variable is bound by nothing else but its import or a parameter (no `global` rebinding in a function; `self.model` by no other class or object) and is the one the call sees; `.train()` / `.eval()` on such a variable switches the model too; or through a method of a module class
    of the file that runs its layers with no decorator and no grad mode of its
    own: `lm_model.log_prob(words)`; or of a module class of another module of the
    project, on an instance this file builds: a2c-ppo's `actor_critic.act(obs)`), in the same function or in a function of the file that it then calls
    (`model.eval()` at module level, then `evaluate(loader)`). A call in the
    evaluation loop of a function of the file that runs the forward outside
    loops of its own is reported at that call: a method called on `self`
    running `self.model` (Informer's `self._process_one_batch(x)`), a
    function handed the model or reading the same module-level one, followed
    through such calls three deep, or a function of another module of the project
    handed the model that runs its forward so, as its summary tells
    (`infer.predict(model, x)` returning `model(x)`, itself or through functions of
    its module or of yet another one, also where its module has nothing else to
    summarize), or a method a base class of another module gives the instance that
    runs the forward of an attribute of it (`self.validation_step(batch)` of a
    `Trainer` running `self.model(inputs)`); not when the function has a decorator,
    enters a grad mode around the forward, switches the model's mode, or
    back-propagates or steps. The forwards in the function's own loops (a greedy
    decoder's, its encoder run before it) are then the same finding, not reported
    again, where every call that runs the function with the model in eval mode
    is so reported (or lies in a function only such calls run). A function of the
    file handed the model under another name (`validate(net, loader)` of a `def
    validate(model, loader)`, `self._score(self.model, loader)`) is reported at that
    call, as such a function of another module is. A function of another module of the project, or a
    method of an object (`evaluator.evaluate(loader)` of an `evaluator =
    Evaluator(model)`, `self.validate()` inherited from a base class), is reported
    at its call when a loop of its own, or of a function of its module it hands the
    model on to with no grad mode around that call (`validate(model, loader)`
    returning `_run_eval(model, loader)`, four functions deep), or of a function of
    yet another module it hands the model to so (a trainer's `validate()` returning
    `evaluate(self.model, self.val_loader)`), runs the forward of a model it is handed
    (itself, or through functions of its module it hands the model to, four functions
    deep: `predict(model, x)` returning `model(x)`, or `run_batch(model, x)` returning
    `predict(model, x).argmax(-1)`; the innermost one may be a function of yet another
    module the linked summaries tell runs the forward so, with the same conditions,
    itself or through helpers of its own, in its module or another),
    with no decorator (but `staticmethod` and `classmethod`, which only bind its first
    parameter: `self._run(model, self.loader)` of a staticmethod `_run(model, loader)`)
    and no grad mode of its own, and it needs no graph (no
    backward, step or clear in it or in what it calls, no `torch.autograd.grad`,
    no optimizer built, taken or handed on, as far as names tell; a module's own
    `forward` runs layers, not data): a model this code put in eval mode (handed as an
    argument, kept by the object's one construction from an argument of the same
    function or an attribute of `self`, or the caller's own `self.model`), when the
    function switches no mode of it; or one the function puts in eval mode itself,
    where every call of it in its own module runs it under a grad mode (RAFT's
    `validate`, called under `torch.no_grad()` by its own script and with
    gradients on by the training script: its module does not report it). Not at
    a call under a grad mode, nor for a model that is frozen here or an instance of
    a class of the project whose forward may run without grad or is not known, nor,
    for a model put in eval mode here, where the code around the call back-propagates
    or steps (loops beside it aside, and calls of a training phase that puts a model in train
    mode itself, `train_one_epoch(model, loader, optimizer)`, unless they read what the call
    returns, or a variable bound from it by an assignment, a walrus or a `for`, or it is
    kept: on an attribute, in a container, added in place to a variable (`bank += preds`),
    returned, handed to any call but one that only reads it (`ds.set_labels(preds)`, any
    function of the project, `torch.cat(parts, out=buf)`; not `print` or `len`), or bound
    to a global or to a variable that a function defined beside reads: what the call
    returns may be trained through).
    Such a function's own loop may also call a method of the model it is handed
    other than its forward (SASRec's `evaluate(model, dataset, args)` running
    `model.predict(...)` per user), under the same conditions: reported where the
    model is built here by one call of a class of the project (of this file or of
    another module) that defines that method and runs its layers in it (as
    `lm_model.log_prob(words)` above); not for a method that runs no layers
    (`model.num_params()`), one the class inherits, nor a class the project cannot tell.
    Helpers are followed four functions deep within a module, and across modules as
    far as their summaries link them. A function of the file that serves both phases
    by a flag (`def run_epoch(model, loader, train)` switching `model.train() if train
    else model.eval()` and back-propagating only `if train:`) is judged at each call
    that gives the flag a constant (or leaves it to a constant default): a call whose
    flag skips every backward, step and clear, and so runs the eval switch (or is handed
    a model the caller put in eval mode, that the function switches to no other mode)
    and a loop of forwards of that model with no grad mode around them
    (`torch.set_grad_enabled(train)` is one), is reported; the call that trains never
    is. Two such calls in one loop (`evaluate_batch(model, x, train=False)` beside
    `log_metrics(model, y, train=False)`) are each judged so: what the flag of one
    skips does not count for the other, nor for a forward of the model beside them.
    The function's own `if`s on the flag (`train`, `not train`, `phase ==
    "train"`, compared as Python compares: `train == 1` holds for `train=True`;
    `is_train is True`, `optimizer is not None` of a `def run_epoch(model,
    loader, optimizer=None)` called without one, an `if not train: continue`; not
    `x > threshold`) are read, and so, up to three calls deep,
    are those of the functions of the file it hands the flag on to
    (`self._run_batch(x, y, train)` of a `_run_batch` that back-propagates only `if
    train:`, or runs its forward under `torch.set_grad_enabled(train)`; a staticmethod
    or classmethod too, not one with another decorator; a method called on its own
    class too, `Trainer._batch(self, x, y, train)`), with the models they are
    handed (`step(model, batch, train)`) or the object's own (`self.model`, whatever
    the method names its first parameter). A function with an unresolvable
    decorator (the entry points of command-line frameworks, `@hydra.main`,
    click, typer, fire, leave grad mode alone and do not count), a
    function (or a script's own code) or loop that also back-propagates or steps (BatchNorm frozen
    during training; loops of the function that do not hold the forward,
    a training loop beside the evaluation loop, do not count, nor does what
    runs before the evaluation loop outside every loop around it: a
    `train_step` that steps, then samples the model every N steps in a loop
    over it and its EMA copy, is flagged, unless the samples, or what is built
    from them before a `.detach()`, outlive the call (returned, kept on `self`
    or in a parameter: its caller may back-propagate them); the `step()`
    of an environment built by gym, gymnasium or another environment package,
    or by a factory whose name says it builds environments (`make_vec_envs`,
    `make_env`, `create_atari_env`, as a project names its own), is a rollout's, and that of a scheduler the file builds a learning rate's
    (also one a function or a method of the class returns, alone or in a
    tuple), not a training step; any other `step()` counts as one).
    Inside a training loop, only an `if` that switches the model to `.eval()`,
    calls it (also in a loop of its own over a validation loader, or a
    comprehension) and puts it back in train mode (or a loop whose first statement
    does, every iteration), back-propagating nothing and binding nothing the
    loop reads after it, is an evaluation (a look at the model every N steps),
    and flagged. A model whose
    parameters are all frozen records no graph and is never flagged:
    `model.requires_grad_(False)` (also chained with `.eval()` / `.to()`, or
    on the constructed model), or a loop over `model.parameters()` /
    `model.named_parameters()` that sets `requires_grad = False` or calls
    `requires_grad_(False)` on each; so is a copy of a frozen model made after it
    (`G_ema = copy.deepcopy(G).eval()`). Freezing is matched per variable: a
    model frozen by a helper that receives it is not seen. A model built from a
    class of the file whose constructor freezes its own parameters (also under a
    condition: `if not requires_grad:`), or keeps only instances of such classes
    and tensors (a perceptual distance holding a frozen VGG; an attribute built
    as one of several classes by a flag counts when one of them is frozen), is
    frozen too; one with a layer of its own (a trainable head) is not. A model whose
    class is known (of the file, or imported from a module of the project) is
    not flagged when its `forward` returns only values computed under
    no_grad / inference_mode (a decorator, or every `return`), or when the
    call takes a branch of it that does: a statement of its body
    `if mode == "inference":` (or an `elif` of such), chosen by a constant
    argument, by the parameter's default, or by an argument the file cannot
    read (a variable, `**kwargs`); conditions on anything else
    (`self.training`) and what runs before the branch are not looked at.
    A method of a module of the project that back-propagates, steps or clears
    gradients only under `if self.training:` (or an `and` chain holding it), in
    its own statements and in what it calls there (DALLE2-pytorch's
    `DecoderTrainer.forward`, which takes the loss's `.item()` and
    back-propagates in train mode), does none of that when called on the module
    in eval mode (`trainer(x)`, `trainer.forward(x)` after `trainer.eval()`,
    with no switch of its mode in the loop): the loop around such a call is an
    evaluation loop.
    """

    code = "TL406"
    name = "eval-without-no-grad"
    severity = "warning"
    message = "evaluation forward pass outside `torch.no_grad()`: it records an autograd graph for nothing; wrap the loop in `torch.no_grad()` or `torch.inference_mode()`"
    triggers = ("eval", "train")  # the names any switch to eval mode is spelled with
    bad = (
        # eval mode set at module level, the forward passes in a function it then calls
        "import torch\n"
        "model = torch.load('model.pt')\n"
        "model.eval()\n"
        "def evaluate(loader):\n"
        "    outputs = []\n"
        "    for x in loader:\n"
        "        outputs.append(model(x).argmax(-1))  # expect: TL406\n"
        "    return outputs\n"
        "evaluate(test_loader)\n",
        # a function that trains, then validates in a loop of its own each epoch
        "import torch\n"
        "def main(model, optimizer, train_batches, val_batches):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x in train_batches:\n"
        "            model(x).mean().backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "        model.eval()\n"
        "        for x in val_batches:\n"
        "            out = model(x)  # expect: TL406\n",
        # eval mode spelled `train(False)`
        "import torch\n"
        "for epoch in range(3):\n"
        "    net.train(True)\n"
        "    for x, y in train_batches:\n"
        "        opt.zero_grad()\n"
        "        crit(net(x), y).backward()\n"
        "        opt.step()\n"
        "    net.train(False)\n"
        "    total = 0.0\n"
        "    for x, y in val_batches:\n"
        "        total += crit(net(x), y).item()  # expect: TL406\n",
        # reached from a Hydra entry point
        "import hydra\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct += (model(x).argmax(1) == y).sum().item()  # expect: TL406\n"
        "    return correct\n"
        "@hydra.main(config_path='conf', config_name='config')\n"
        "def main(cfg):\n"
        "    print(validate(hydra.utils.instantiate(cfg.model), cfg.loader))\n",
        "import torch\n"
        "def validate(model, loader, criterion):\n"
        "    model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        total += criterion(model(x), y).item()  # expect: TL406\n"
        "    return total / len(loader)\n",
        # module-level script: training loop, then an evaluation loop
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for epoch in range(10):\n"
        "    model.train()\n"
        "    for x, y in train_loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    model.eval()\n"
        "    for x, y in val_loader:\n"
        "        with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "            out = model(x)  # expect: TL406\n",
        "import torch\n"
        "class Trainer:\n"
        "    @property\n"
        "    def device(self):\n"
        "        return 'cuda'\n"
        "    def evaluate(self):\n"
        "        self.model.eval()\n"
        "        i = 0\n"
        "        while i < len(self.val_set):\n"
        "            preds = self.model(self.val_set[i])  # expect: TL406\n"
        "            i += 1\n",
        # the wrapped model of a DistributedDataParallel, called through `.module`
        "import torch\n"
        "def validate(ddp_model, loader):\n"
        "    ddp_model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        total += ddp_model.module(x).sum().item()  # expect: TL406\n"
        "    ddp_model.train()\n"
        "    return total\n",
        # no_grad only around the metric, not the forward
        "import torch\n"
        "def test(net, loader):\n"
        "    net.eval()\n"
        "    correct = 0\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        logits = net(x)  # expect: TL406\n"
        "        with torch.no_grad():\n"
        "            correct += (logits.argmax(1) == y).sum().item()\n"
        "    return correct\n",
        # a rollout loop: the environment's step() is no optimizer's
        "import gymnasium as gym\n"
        "import torch\n"
        "def evaluate(model, episodes):\n"
        "    envs = gym.vector.SyncVectorEnv([lambda: gym.make('CartPole-v1')])\n"
        "    model.eval()\n"
        "    obs, _ = envs.reset()\n"
        "    for _ in range(episodes):\n"
        "        q = model(torch.Tensor(obs))  # expect: TL406\n"
        "        obs, reward, _, _, _ = envs.step(q.argmax(1).numpy())\n",
        # the evaluated model's own `zero_grad()` (SimCLR's linear evaluation) clears nothing a step needs
        "def test(model, loader, criterion):\n"
        "    model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        model.zero_grad()\n"
        "        total += criterion(model(x), y).item()  # expect: TL406\n"
        "    return total\n",
        # the forward written out
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    total = 0.0\n"
        "    for x in loader:\n"
        "        total += model.forward(x).sum().item()  # expect: TL406\n"
        "    return total\n",
        # a DDP-wrapped model's own `zero_grad()` in evaluation
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        model.module.zero_grad()\n"
        "        total += (model(x).argmax(1) == y).sum().item()  # expect: TL406\n"
        "    return total\n",
        # the function hands its optimizer to `accelerator.prepare()`: the evaluation loop beside the training loop is still one
        "from torch.optim import AdamW\n"
        "def main(accelerator, model, train_loader, eval_loader, metric, epochs):\n"
        "    optimizer = AdamW(model.parameters(), lr=1e-4)\n"
        "    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        for batch in train_loader:\n"
        "            accelerator.backward(model(**batch).loss)\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "        model.eval()\n"
        "        for batch in eval_loader:\n"
        "            outputs = model(**batch)  # expect: TL406\n"
        "            metric.add_batch(predictions=outputs.logits.argmax(-1), references=batch[\"labels\"])\n",
        # argparse's `opt` handed on is no optimizer
        "def evaluate(model, loader, opt, log):\n"
        "    model.eval()\n"
        "    scores = []\n"
        "    for x, y in loader:\n"
        "        scores.append(model(x).argmax(1) == y)  # expect: TL406\n"
        "        log(opt, len(scores))\n"
        "    return scores\n",
        # a look at the model every 10 steps inside the training loop, train mode put back after it
        "import torch\n"
        "for t in range(steps):\n"
        "    loss = criterion(net(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    if t % 10 == 0:\n"
        "        net.eval()\n"
        "        test_pred = net(test_x)  # expect: TL406\n"
        "        print(float(criterion(test_pred, test_y)))\n"
        "        net.train()\n",
        # train mode put back at the top of every iteration
        "import torch\n"
        "for step, (x, y) in enumerate(loader):\n"
        "    model.train()\n"
        "    optimizer.zero_grad()\n"
        "    torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    if step % 100 == 0:\n"
        "        model.eval()\n"
        "        print(model(val_x).mean())  # expect: TL406\n",
        # the forward runs only its frozen backbone without grad: the head records a graph
        "import torch\n"
        "from torch import nn\n"
        "class Probe(nn.Module):\n"
        "    def forward(self, x):\n"
        "        with torch.no_grad():\n"
        "            feats = self.backbone(x)\n"
        "        return self.head(feats)\n"
        "def validate(loader):\n"
        "    probe = Probe()\n"
        "    probe.eval()\n"
        "    for x, y in loader:\n"
        "        print(probe(x).argmax(1))  # expect: TL406\n",
        # the forward's inference branch runs under no_grad, the losses of validation do not
        "import torch\n"
        "from torch import nn\n"
        "class Pix2PixModel(nn.Module):\n"
        "    def forward(self, data, mode='generator'):\n"
        "        if mode == 'inference':\n"
        "            with torch.no_grad():\n"
        "                return self.netG(data)\n"
        "        return self.loss(self.netG(data), data)\n"
        "model = Pix2PixModel()\n"
        "model.eval()\n"
        "for data in val_loader:\n"
        "    print(model(data).item())  # expect: TL406\n"
        "    print(model(data, mode='generator').item())  # expect: TL406\n",
        # the evaluation forward through a method of the model's class (RAdam's `lm_model.log_prob(words)`)
        "import math\n"
        "\n"
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class LM(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(100, 16)\n"
        "        self.out = nn.Linear(16, 100)\n"
        "\n"
        "    def log_prob(self, w):\n"
        "        return torch.log_softmax(self.out(self.emb(w)), -1)\n"
        "\n"
        "\n"
        "def evaluate(loader, lm_model, criterion):\n"
        "    lm_model.eval()\n"
        "    total = 0.0\n"
        "    for words, labels in loader:\n"
        "        output = lm_model.log_prob(words)  # expect: TL406\n"
        "        total += criterion(output, labels).item()\n"
        "    return math.exp(total / len(loader))\n",
        # the forward runs in a method of the class called from the evaluation loop (Informer's `vali`)
        "import torch\n"
        "class Exp:\n"
        "    def _process_one_batch(self, batch_x, batch_y):\n"
        "        return self.model(batch_x.to(self.device)), batch_y.to(self.device)\n"
        "    def vali(self, loader, criterion):\n"
        "        self.model.eval()\n"
        "        losses = []\n"
        "        for batch_x, batch_y in loader:\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)  # expect: TL406\n"
        "            losses.append(criterion(pred.detach(), true).item())\n"
        "        self.model.train()\n"
        "        return sum(losses)\n"
        "    def train(self, loader, criterion):\n"
        "        self.model.train()\n"
        "        for batch_x, batch_y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)\n"
        "            criterion(pred, true).backward()\n"
        "            self.optimizer.step()\n",
        # a module-level helper given the model, through another helper, in a loop and in a
        # comprehension; an evaluation loop of its own is reported where it is, not at the call
        "def logits(net, x):\n"
        "    return net(x.cuda())\n"
        "def predict(net, x):\n"
        "    return logits(net, x).argmax(-1)\n"
        "def score(model, loader):\n"
        "    hits = 0\n"
        "    for x, y in loader:\n"
        "        hits += (model(x).argmax(-1) == y).sum().item()  # expect: TL406\n"
        "    return hits\n"
        "def evaluate(model, loader, test_sets):\n"
        "    model.eval()\n"
        "    preds = [predict(model, x) for x in loader]  # expect: TL406\n"
        "    for x in loader:\n"
        "        preds.append(predict(model, x))  # expect: TL406\n"
        "    for test_set in test_sets:\n"
        "        print(score(model, test_set))\n"
        "    return preds\n",
        # the epoch loop steps a learning-rate scheduler (dgcnn): no training step of the evaluation loop
        "import torch\n"
        "def train(model, train_loader, test_loader, epochs):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        for x, y in train_loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n"
        "        model.eval()\n"
        "        for x, y in test_loader:\n"
        "            logits = model(x)  # expect: TL406\n"
        "        scheduler.step()\n",
        # a frozen backbone beside a trainable head: the head's graph is recorded
        "import torch\n"
        "import torchvision\n"
        "\n"
        "\n"
        "class FrozenBackbone(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = torchvision.models.resnet18()\n"
        "        self.requires_grad_(False)\n"
        "\n"
        "\n"
        "class Classifier(torch.nn.Module):\n"
        "    def __init__(self, classes):\n"
        "        super().__init__()\n"
        "        self.backbone = FrozenBackbone()\n"
        "        self.head = torch.nn.Linear(1000, classes)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.head(self.backbone.body(x))\n"
        "\n"
        "\n"
        "def evaluate(loader):\n"
        "    model = Classifier(10)\n"
        "    model.eval()\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct += (model(x).argmax(-1) == y).sum().item()  # expect: TL406\n"
        "    return correct\n",
        # nnU-Net's trainer: the epoch hook steps the scheduler a method of the class builds
        # (returned with the optimizer), which is no training step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, network, loss):\n"
        "        self.network, self.loss = network, loss\n"
        "        self.optimizer, self.lr_scheduler = self.configure_optimizers()\n"
        "    def configure_optimizers(self):\n"
        "        optimizer = torch.optim.SGD(self.network.parameters(), lr=0.01)\n"
        "        return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)\n"
        "    def on_train_epoch_start(self, epoch):\n"
        "        self.network.train()\n"
        "        self.lr_scheduler.step(epoch)\n"
        "    def train_step(self, batch):\n"
        "        self.optimizer.zero_grad()\n"
        "        self.loss(self.network(batch['data']), batch['target']).backward()\n"
        "        self.optimizer.step()\n"
        "    def run_training(self, epochs, train_batches, val_batches):\n"
        "        for epoch in range(epochs):\n"
        "            self.on_train_epoch_start(epoch)\n"
        "            for batch in train_batches:\n"
        "                self.train_step(batch)\n"
        "            self.network.eval()\n"
        "            for batch in val_batches:\n"
        "                self.network(batch['data'])  # expect: TL406\n",
        # a model kept in a dict, put in eval mode and called by the same item
        "def evaluate(models, loader):\n"
        "    models['generator'].eval()\n"
        "    total = 0.0\n"
        "    for x in loader:\n"
        "        total += models['generator'](x).mean().item()  # expect: TL406\n"
        "    return total\n",
        # the environment comes from the project's factory: its step() is a rollout's (a2c-ppo's evaluate)
        "from envs import make_vec_envs\n"
        "def evaluate(actor_critic, env_name, episodes):\n"
        "    eval_envs = make_vec_envs(env_name)\n"
        "    actor_critic.eval()\n"
        "    obs = eval_envs.reset()\n"
        "    returns = []\n"
        "    while len(returns) < episodes:\n"
        "        action = actor_critic(obs).argmax(-1)  # expect: TL406\n"
        "        obs, reward, done, infos = eval_envs.step(action)\n"
        "        returns.extend(info['episode']['r'] for info in infos if 'episode' in info)\n"
        "    return returns\n",
        # an evaluator object whose method runs the model it was built with in a loop of its own
        "class Evaluator:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "    def evaluate(self, loader):\n"
        "        correct = 0\n"
        "        for x, y in loader:\n"
        "            correct += (self.model(x).argmax(1) == y).sum().item()\n"
        "        return correct\n"
        "def fit(model, loader, val_loader, optimizer, criterion):\n"
        "    evaluator = Evaluator(model)\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        print(evaluator.evaluate(val_loader))  # expect: TL406\n",
        # a greedy decoder called from the evaluation loop: one finding at the call, which
        # the `no_grad` asked for there covers, the decoder's own loop included
        "import torch\n"
        "class Seq2Seq(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.enc = torch.nn.Linear(4, 4)\n"
        "        self.dec = torch.nn.Linear(4, 4)\n"
        "    def encode(self, x):\n"
        "        return self.enc(x)\n"
        "    def next_token(self, ys, memory):\n"
        "        return self.dec(ys) + memory\n"
        "def greedy_decode(model, x, steps):\n"
        "    memory = model.encode(x)\n"
        "    ys = x\n"
        "    for _ in range(steps):\n"
        "        ys = torch.cat([ys, model.next_token(ys, memory)], 0)\n"
        "    return ys\n"
        "def translate(model, inputs):\n"
        "    model.eval()\n"
        "    for x in inputs:\n"
        "        print(greedy_decode(model, x, 5))  # expect: TL406\n",
        # the forward two calls down: score -> run_batch -> predict(model, x)
        "import torch\n"
        "def predict(model, x):\n"
        "    return model(x)\n"
        "def run_batch(model, x):\n"
        "    return predict(model, x).argmax(-1)\n"
        "def score(model, loader):\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct = correct + (run_batch(model, x) == y).sum()  # expect: TL406\n"
        "    return correct\n"
        "def main(model, loader):\n"
        "    model.eval()\n"
        "    print(score(model, loader))\n",
        # a helper of the file that puts the model it is handed in eval mode, for a function and a trainer
        "def set_eval(net):\n"
        "    net.eval()\n"
        "def evaluate(model, loader):\n"
        "    set_eval(model)\n"
        "    outputs = []\n"
        "    for x, y in loader:\n"
        "        outputs.append(model(x))  # expect: TL406\n"
        "    return outputs\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "    def validate(self, loader):\n"
        "        set_eval(self.model)\n"
        "        total = 0\n"
        "        for x, y in loader:\n"
        "            total += self.model(x).sum()  # expect: TL406\n"
        "        return total\n",
        # the model handed on under another name, through a wrapper: fit -> validate -> _run_eval
        "import torch\n"
        "def _run_eval(model, loader):\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct += (model(x).argmax(1) == y).sum().item()\n"
        "    return correct\n"
        "def validate(model, loader):\n"
        "    return _run_eval(model, loader)\n"
        "def fit(net, optimizer, loader, val_loader):\n"
        "    for epoch in range(10):\n"
        "        net.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(net(x), y).backward()\n"
        "            optimizer.step()\n"
        "        net.eval()\n"
        "        print(validate(net, val_loader))  # expect: TL406\n",
        # a trainer's validation hands its model to a method that loops over the batches
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader, val_loader):\n"
        "        self.model, self.loader, self.val_loader = model, loader, val_loader\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    def _score(self, model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += (model(x).argmax(1) == y).sum().item()\n"
        "        return total\n"
        "    def validate(self):\n"
        "        return self._score(self.model, self.val_loader)  # expect: TL406\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.model.train()\n"
        "            for x, y in self.loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                torch.nn.functional.cross_entropy(self.model(x), y).backward()\n"
        "                self.optimizer.step()\n"
        "            self.model.eval()\n"
        "            self.validate()\n",
        # a module whose forward back-propagates and steps only in train mode (DALLE2-pytorch's
        # DecoderTrainer): in eval mode it computes the loss and records its graph for nothing
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Trainer(nn.Module):\n"
        "    def __init__(self, model, optimizer):\n"
        "        super().__init__()\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        loss = nn.functional.mse_loss(self.model(x), y)\n"
        "        if self.training:\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n"
        "        return loss.item()\n"
        "\n"
        "\n"
        "def main(model, train_loader, val_loader):\n"
        "    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))\n"
        "    for epoch in range(10):\n"
        "        trainer.train()\n"
        "        for x, y in train_loader:\n"
        "            trainer(x, y)\n"
        "        trainer.eval()\n"
        "        total = 0.0\n"
        "        for x, y in val_loader:\n"
        "            total += trainer(x, y)  # expect: TL406\n",
        # one epoch function for both phases: the call that runs it in eval mode
        # back-propagates nothing, yet records a graph in every forward
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    if train:\n"
        "        model.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss.item()\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, train=False)  # expect: TL406\n",
        # an evaluator's method hands the model to a staticmethod that loops over the
        # batches: the staticmethod's first parameter is the model, no `self`
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, loader):\n"
        "        self.loader = loader\n"
        "    def evaluate(self, model):\n"
        "        return self._run(model, self.loader)\n"
        "    @staticmethod\n"
        "    def _run(model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += torch.nn.functional.cross_entropy(model(x), y).item()\n"
        "        return total\n"
        "def train(model, loader, val_loader, optimizer):\n"
        "    evaluator = Evaluator(val_loader)\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        evaluator.evaluate(model)  # expect: TL406\n",
        # the same through a classmethod: its first parameter, `cls`, is bound by the call
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, loader):\n"
        "        self.loader = loader\n"
        "    def evaluate(self, model):\n"
        "        return self._run(model, self.loader)\n"
        "    @classmethod\n"
        "    def _run(cls, model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += torch.nn.functional.cross_entropy(model(x), y).item()\n"
        "        return total\n"
        "def train(model, loader, val_loader, optimizer):\n"
        "    evaluator = Evaluator(val_loader)\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        evaluator.evaluate(model)  # expect: TL406\n",
        # the eval call's outputs kept, and nothing here back-propagates them
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    if train:\n"
        "        model.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    outs = []\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "        loss = torch.nn.functional.mse_loss(out, y)\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        outs.append(out)\n"
        "    return outs\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        outs = run_epoch(model, val_loader, optimizer, train=False)  # expect: TL406\n"
        "        print(sum(o.sum().item() for o in outs))\n",
        # a training step that steps first, then samples the model and its EMA copy every N steps
        "import torch\n"
        "class Trainer:\n"
        "    def train_step(self, batch, probe):\n"
        "        self.vae.train()\n"
        "        self.vae(batch).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            for model in (self.ema_vae, self.vae):\n"
        "                model.eval()\n"
        "                recons = model(probe)  # expect: TL406\n"
        "                save_image(recons.detach().cpu(), f'{self.steps}.png')\n"
        "        self.steps += 1\n",
        # the samples detached before the step's returned logs keep them: nothing can back-propagate them
        "import torch\n"
        "def train_step(model, optimizer, x, probe):\n"
        "    model(x).mean().backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    logs = {}\n"
        "    model.eval()\n"
        "    for p in probe:\n"
        "        recon = model(p)  # expect: TL406\n"
        "        recon = recon.detach().cpu()\n"
        "        logs['recon'] = recon\n"
        "    return logs\n",
        # the flag is handed on: the batch method back-propagates only `if learn:`, and the
        # evaluation call runs its forwards in eval mode with gradients on
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(self, inputs, labels, learn):\n"
        "        loss = torch.nn.functional.cross_entropy(self.model(inputs), labels)\n"
        "        if learn:\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)  # expect: TL406\n",
        # the same with functions: the model is handed on under another name
        "import torch.nn.functional as F\n"
        "def step(net, batch, optimizer, update):\n"
        "    inputs, targets = batch\n"
        "    loss = F.mse_loss(net(inputs), targets)\n"
        "    if update:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return loss.item()\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    model.train() if train else model.eval()\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += step(model, batch, optimizer, train)\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, train=False)  # expect: TL406\n",
        # the first parameter of a method need not be named `self`
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(trainer, inputs, labels, learn):\n"
        "        loss = torch.nn.functional.cross_entropy(trainer.model(inputs), labels)\n"
        "        if learn:\n"
        "            trainer.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            trainer.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)  # expect: TL406\n",
        # a staticmethod is handed the model and the flag like a function
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    @staticmethod\n"
        "    def _batch(model, optimizer, inputs, labels, learn):\n"
        "        loss = torch.nn.functional.cross_entropy(model(inputs), labels)\n"
        "        if learn:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(self.model, self.optimizer, inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)  # expect: TL406\n",
        # a method called on its class is given the object first
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(self, inputs, labels, learn):\n"
        "        loss = torch.nn.functional.cross_entropy(self.model(inputs), labels)\n"
        "        if learn:\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += Trainer._batch(self, inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)  # expect: TL406\n",
        # the batch method's first parameter is not named `self`: called on `self`, it runs `self.model`
        "import torch\n"
        "class Exp:\n"
        "    def _process_one_batch(exp, batch_x, batch_y):\n"
        "        return exp.model(batch_x.to(exp.device)), batch_y.to(exp.device)\n"
        "    def vali(self, loader, criterion):\n"
        "        self.model.eval()\n"
        "        losses = []\n"
        "        for batch_x, batch_y in loader:\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)  # expect: TL406\n"
        "            losses.append(criterion(pred.detach(), true).item())\n"
        "        self.model.train()\n"
        "        return sum(losses)\n"
        "    def train(self, loader, criterion):\n"
        "        self.model.train()\n"
        "        for batch_x, batch_y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)\n"
        "            criterion(pred, true).backward()\n"
        "            self.optimizer.step()\n",
        # the batch method called on its class (`Exp._process_one_batch(self, x, y)`)
        "import torch\n"
        "class Exp:\n"
        "    def _process_one_batch(self, batch_x, batch_y):\n"
        "        return self.model(batch_x.to(self.device)), batch_y.to(self.device)\n"
        "    def vali(self, loader, criterion):\n"
        "        self.model.eval()\n"
        "        losses = []\n"
        "        for batch_x, batch_y in loader:\n"
        "            pred, true = Exp._process_one_batch(self, batch_x, batch_y)  # expect: TL406\n"
        "            losses.append(criterion(pred.detach(), true).item())\n"
        "        self.model.train()\n"
        "        return sum(losses)\n"
        "    def train(self, loader, criterion):\n"
        "        self.model.train()\n"
        "        for batch_x, batch_y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)\n"
        "            criterion(pred, true).backward()\n"
        "            self.optimizer.step()\n",
        # a method defined under an `if` of the class body is still bound to the object
        "import torch\n"
        "class Experiment:\n"
        "    if hasattr(torch, 'compile'):\n"
        "        def run(self, model, x):\n"
        "            return model(x)\n"
        "    def validate(self, model, loader):\n"
        "        model.eval()\n"
        "        losses = []\n"
        "        for x in loader:\n"
        "            out = self.run(model, x)  # expect: TL406\n"
        "            losses.append(out.mean().item())\n"
        "        model.train()\n"
        "        return losses\n",
        # a function of the module that the class body takes in as a method: `self` binds to the object
        "import torch\n"
        "def run(self, model, x):\n"
        "    return model(x)\n"
        "class Experiment:\n"
        "    run = run\n"
        "    def validate(self, model, loader):\n"
        "        model.eval()\n"
        "        losses = []\n"
        "        for x in loader:\n"
        "            out = self.run(model, x)  # expect: TL406\n"
        "            losses.append(out.mean().item())\n"
        "        model.train()\n"
        "        return losses\n",
        # evaluation loops written as comprehensions: a list, one handed to `torch.cat`, a generator summed
        "import torch\n"
        "def evaluate(model, test_loader, val_loader, criterion):\n"
        "    model.eval()\n"
        "    preds = [model(x).argmax(-1) for x, _ in test_loader]  # expect: TL406\n"
        "    logits = torch.cat([model(x) for x in val_loader])  # expect: TL406\n"
        "    loss = sum(criterion(model(x), y).item() for x, y in val_loader)  # expect: TL406\n"
        "    return preds, logits, loss\n",
        # a generator over the loader running a helper that runs the forward: reported at the helper's call
        "import torch\n"
        "def evaluate_batch(model, batch):\n"
        "    x, y = batch\n"
        "    return (model(x).argmax(-1) == y).float().mean().item()\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    return sum(evaluate_batch(model, batch) for batch in loader) / len(loader)  # expect: TL406\n",
        # a helper whose comprehension is the evaluation loop, and a dict comprehension at module level
        "import torch\n"
        "def predict_all(model, inputs):\n"
        "    return [model(x).softmax(-1) for x in inputs]  # expect: TL406\n"
        "def check(model, inputs):\n"
        "    model.eval()\n"
        "    return predict_all(model, inputs)\n"
        "net = torch.load(\"net.pt\")\n"
        "net.eval()\n"
        "scores = {name: net(x).max() for name, x in samples.items()}  # expect: TL406\n",
        # a function serving both phases by a flag, its forwards in a comprehension: the evaluating call
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    model.train() if train else model.eval()\n"
        "    losses = [torch.nn.functional.cross_entropy(model(x), y) for x, y in loader]\n"
        "    if train:\n"
        "        optimizer.zero_grad()\n"
        "        torch.stack(losses).mean().backward()\n"
        "        optimizer.step()\n"
        "    return [loss.item() for loss in losses]\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(3):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, train=False)  # expect: TL406\n",
        # one epoch function for both phases, training only when handed an optimizer: the calls that hand
        # none, by leaving it to its default or writing `None`, evaluate
        "import torch\n"
        "def run_epoch(model, loader, optimizer=None):\n"
        "    model.train(optimizer is not None)\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        if optimizer is not None:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss.item()\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, test_loader, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader)  # expect: TL406\n"
        "    return run_epoch(model, test_loader, None)  # expect: TL406\n",
        # the phase flag compared with `True` by identity
        "import torch\n"
        "def run_epoch(model, loader, optimizer, is_train=True):\n"
        "    if is_train is True:\n"
        "        model.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        if is_train is True:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss.item()\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, is_train=False)  # expect: TL406\n",
        # nested comprehensions over a loader's batches, and a set comprehension: reported once each
        "import torch\n"
        "def per_item(model, batches):\n"
        "    model.eval()\n"
        "    return [[model(v).argmax(-1) for v in batch] for batch in batches]  # expect: TL406\n"
        "def classes_seen(model, loader):\n"
        "    model.eval()\n"
        "    return {model(x).argmax().item() for x in loader}  # expect: TL406\n",
        # a look at the model every N steps of a training loop, itself a loop over validation batches or
        # a comprehension, the model put back in train mode at the top of each step or after it
        "import torch\n"
        "def train(model, optimizer, loader, val_loaders):\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        model.train()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        if (step + 1) % 500 == 0:\n"
        "            model.eval()\n"
        "            for name, (vx, vy) in val_loaders.items():\n"
        "                errors = (model(vx).argmax(-1) != vy).float().mean()  # expect: TL406\n"
        "                print(name, errors.item())\n"
        "def train_quietly(model, optimizer, loader, val_loader):\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        if step % 500 == 0:\n"
        "            model.eval()\n"
        "            hits = sum((model(vx).argmax(-1) == vy).sum().item() for vx, vy in val_loader)  # expect: TL406\n"
        "            print(hits)\n"
        "            model.train()\n",
        # a script's training loop that looks at the model over held-out batches every N steps
        "import torch\n"
        "model = torch.load(\"model.pt\")\n"
        "optimizer = torch.optim.Adam(model.parameters())\n"
        "for step, (x, y) in enumerate(train_loader):\n"
        "    model.train()\n"
        "    torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    if step % 1000 == 0:\n"
        "        model.eval()\n"
        "        for vx, vy in held_out:\n"
        "            print((model(vx).argmax(-1) == vy).float().mean().item())  # expect: TL406\n",
        # generator expressions consumed where they are written: by a builtin, or by a `for`
        "import torch\n"
        "def best(model, loader):\n"
        "    model.eval()\n"
        "    return max((model(x).max() for x in loader), key=float)  # expect: TL406\n"
        "def show(model, loader):\n"
        "    model.eval()\n"
        "    for y in (model(x).argmax(-1) for x in loader):  # expect: TL406\n"
        "        print(y)\n",
        # a helper returning the outputs of its comprehension to a caller that only prints them, after
        # a training loop of its own
        "import torch\n"
        "def predict_all(model, inputs):\n"
        "    model.eval()\n"
        "    return [model(x).argmax(-1) for x in inputs]  # expect: TL406\n"
        "def fit(model, optimizer, loader, val_inputs):\n"
        "    for x, y in loader:\n"
        "        model.train()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    print(predict_all(model, val_inputs))\n",
        # a helper returning the outputs of its loop to an epoch loop that trains beside it, by a
        # function handed no output of it
        "import torch\n"
        "def predict_all(model, inputs):\n"
        "    model.eval()\n"
        "    outs = []\n"
        "    for x in inputs:\n"
        "        outs.append(model(x).argmax(-1))  # expect: TL406\n"
        "    return outs\n"
        "def train_epoch(model, optimizer, loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "def fit(model, optimizer, loader, val_inputs, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        train_epoch(model, optimizer, loader)\n"
        "        preds = predict_all(model, val_inputs)\n"
        "        print(epoch, preds)\n",
        # a method serving both phases by a flag, called on `self` with the model (`self.model`) in eval
        # mode for the validation pass
        "import torch\n"
        "\n"
        "\n"
        "class Solver:\n"
        "    def __init__(self, model, optimizer, tr_loader, cv_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.tr_loader = tr_loader\n"
        "        self.cv_loader = cv_loader\n"
        "\n"
        "    def train(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.model.train()\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()\n"
        "            val_loss = self._run_one_epoch(epoch, cross_valid=True)  # expect: TL406\n"
        "            print(val_loss)\n"
        "\n"
        "    def _run_one_epoch(self, epoch, cross_valid=False):\n"
        "        total = 0\n"
        "        loader = self.tr_loader if not cross_valid else self.cv_loader\n"
        "        for x, y in loader:\n"
        "            loss = torch.nn.functional.cross_entropy(self.model(x), y)\n"
        "            if not cross_valid:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            total += loss.item()\n"
        "        return total\n",
        # a look at the model every 500 steps of a loop whose training step, a function or a method on
        # `self`, puts the model back in train mode first
        "import torch\n"
        "\n"
        "def train_step(model, opt, x, y):\n"
        "    model.train()\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        train_step(model, opt, x, y)\n"
        "        if i % 500 == 0:\n"
        "            model.eval()\n"
        "            score = [model(vx).sum() for vx, _ in val_loader]  # expect: TL406\n"
        "            print(score)\n",
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, teacher):\n"
        "        self.model, self.opt, self.teacher = model, opt, teacher\n"
        "\n"
        "    def step(self, x, y):\n"
        "        self.model.train()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        for i, (x, y) in enumerate(loader):\n"
        "            self.step(x, y)\n"
        "            if i % 500 == 0 and i > 0:\n"
        "                self.model.eval()\n"
        "                score = [self.model(vx).sum() for vx, _ in val_loader]  # expect: TL406\n"
        "                print(score)\n",
        # a per-batch helper that back-propagates only `if train:`, called with `False` by the caller's
        # validation loop with the model in eval mode: a method on `self`, and a function handed the model
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model = model\n"
        "        self.opt = opt\n"
        "\n"
        "    def run_batch(self, x, y, train):\n"
        "        out = self.model(x)\n"
        "        loss = (out - y).pow(2).mean()\n"
        "        if train:\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "        return loss.item()\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        self.model.train()\n"
        "        for x, y in loader:\n"
        "            self.run_batch(x, y, True)\n"
        "        self.model.eval()\n"
        "        for x, y in val_loader:\n"
        "            self.run_batch(x, y, False)  # expect: TL406\n",
        "import torch\n"
        "\n"
        "\n"
        "def run_batch(model, opt, x, y, train):\n"
        "    loss = (model(x) - y).pow(2).mean()\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss.item()\n"
        "\n"
        "\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        run_batch(model, opt, x, y, True)\n"
        "    model.eval()\n"
        "    for x, y in val_loader:\n"
        "        run_batch(model, opt, x, y, False)  # expect: TL406\n",
        # the training step that puts the model back in train mode opens with its docstring
        "import torch\n"
        "def train_step(model, opt, x, y):\n"
        "    \"\"\"One optimisation step.\"\"\"\n"
        "    model.train()\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        train_step(model, opt, x, y)\n"
        "        if i % 500 == 0:\n"
        "            model.eval()\n"
        "            score = [model(vx).sum() for vx, _ in val_loader]  # expect: TL406\n"
        "            print(score)\n",
        # the look binds names the pass reads before its `if`, but the pass binds them first
        # (`seq = next(train_batches)`): nothing of the look is read after it
        "import torch\n"
        "def fit(model, opt, train_batches, eval_batches, steps):\n"
        "    for i in range(steps):\n"
        "        model.train()\n"
        "        seq = next(train_batches)\n"
        "        logits = model(seq)\n"
        "        logits.mean().backward()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "        if i % 100 == 0:\n"
        "            model.eval()\n"
        "            seq = next(eval_batches)\n"
        "            logits = model(seq)  # expect: TL406\n"
        "            print(logits.argmax(-1))\n",
        # two per-batch helpers that back-propagate only `if train:`, both called with `train=False` in the
        # validation loop: neither one's training branch, skipped by its flag, counts for the other
        "import torch\n"
        "def evaluate_batch(model, opt, x, y, train):\n"
        "    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss.item()\n"
        "def log_metrics(model, opt, x, y, train):\n"
        "    acc = (model(x).argmax(-1) == y).float().mean()\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        (1 - acc).backward()\n"
        "        opt.step()\n"
        "    print(acc.item())\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        evaluate_batch(model, opt, x, y, True)\n"
        "    model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in val_loader:\n"
        "        loss = evaluate_batch(model, opt, x, y, train=False)  # expect: TL406\n"
        "        log_metrics(model, opt, x, y, train=False)  # expect: TL406\n"
        "        total += loss\n"
        "    return total\n",
        # generators of forwards bound to a name, then consumed by the next statement: summed through another
        # generator, listed and returned, iterated by a `for`
        "import torch\n"
        "def score(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)  # expect: TL406\n"
        "    total = sum(o.sum().item() for o in outs)\n"
        "    return total\n"
        "def collect(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x).argmax(-1) for x, _ in val_loader)  # expect: TL406\n"
        "    return list(outs)\n"
        "def show(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x).argmax(-1) for x, _ in val_loader)  # expect: TL406\n"
        "    for o in outs:\n"
        "        print(o)\n",
        # generators of forwards consumed in place by functions outside the builtins: `" ".join` of a string,
        # `statistics.mean`, `math.fsum`, `extend` of a list
        "import math\n"
        "import statistics\n"
        "import torch\n"
        "def report(model, val_loader):\n"
        "    model.eval()\n"
        "    line = \" \".join(str(model(x).argmax().item()) for x, _ in val_loader)  # expect: TL406\n"
        "    mean = statistics.mean(model(x).mean().item() for x, _ in val_loader)  # expect: TL406\n"
        "    total = math.fsum(model(x).sum().item() for x, _ in val_loader)  # expect: TL406\n"
        "    preds = []\n"
        "    preds.extend(model(x).argmax(-1) for x, _ in val_loader)  # expect: TL406\n"
        "    return line, mean, total, preds\n",
        # a list of the function's own, grown by a generator of forwards, measured and returned
        "import torch\n"
        "def predict(model, val_loader):\n"
        "    model.eval()\n"
        "    preds = []\n"
        "    preds.extend(model(x).argmax(-1) for x, _ in val_loader)  # expect: TL406\n"
        "    preds.append(model(val_loader.extra).argmax(-1))\n"
        "    print(len(preds))\n"
        "    return preds\n",
        # a forward of the model beside a per-batch helper called with its training flag off: what the flag
        # skips needs no graph for the forward either
        "import torch\n"
        "def evaluate_batch(model, opt, x, y, train):\n"
        "    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss.item()\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        evaluate_batch(model, opt, x, y, True)\n"
        "    model.eval()\n"
        "    for x, y in val_loader:\n"
        "        loss = evaluate_batch(model, opt, x, y, train=False)  # expect: TL406\n"
        "        preds = model(x).argmax(-1)  # expect: TL406\n"
        "        print(loss, preds)\n",
        # a model put in eval mode as it is built, moved before or after
        "import torch\n"
        "from models import Generator\n"
        "def benchmark(loader, path, device):\n"
        "    model = Generator(4).eval()\n"
        "    model.load_state_dict(torch.load(path))\n"
        "    for lr, hr in loader:\n"
        "        sr = model(lr)  # expect: TL406\n"
        "        print(((sr - hr) ** 2).mean().item())\n"
        "def upscale(loader, device):\n"
        "    model = Generator(4).to(device).eval()\n"
        "    for lr, _ in loader:\n"
        "        print(model(lr).shape)  # expect: TL406\n"
        "def upscale_moved(loader, device):\n"
        "    model = Generator(4).eval().to(device)\n"
        "    for lr, _ in loader:\n"
        "        print(model(lr).shape)  # expect: TL406\n",
        # a copy, put in eval mode, of a model whose parameters require grad
        "import copy\n"
        "import torch\n"
        "from models import Generator\n"
        "def snapshots(grid_z, device):\n"
        "    G = Generator().to(device)\n"
        "    G_ema = copy.deepcopy(G).eval()\n"
        "    for z in grid_z:\n"
        "        print(G_ema(z).mean().item())  # expect: TL406\n",
        # a model in eval mode as built, then compiled (the same module), a copy of a frozen
        # model whose chain turns gradients on again, and a model loaded by `from_pretrained`
        "import copy\n"
        "import torch\n"
        "from models import Generator, Net\n"
        "def run(loader, device):\n"
        "    model = Net().eval()\n"
        "    model = torch.compile(model.to(device))\n"
        "    for x in loader:\n"
        "        print(model(x).mean().item())  # expect: TL406\n"
        "def snapshots(grid_z, device):\n"
        "    G = Generator().requires_grad_(False).to(device)\n"
        "    G_ema = copy.deepcopy(G).requires_grad_(True).eval()\n"
        "    for z in grid_z:\n"
        "        print(G_ema(z).mean().item())  # expect: TL406\n"
        "def reload(model, loader, path):\n"
        "    model.eval()\n"
        "    model = Net.from_pretrained(path)\n"
        "    for x in loader:\n"
        "        print(model(x).mean().item())  # expect: TL406\n",
        # the model put in eval mode, run through a variable that holds it moved or wrapped in
        # every branch (DARTS's `parallel_model`, a DataParallel on several GPUs)
        "import torch.nn as nn\n"
        "from models import LanguageModel\n"
        "lm = LanguageModel(1000)\n"
        "if multi_gpu:\n"
        "    runner = nn.DataParallel(lm, dim=1).cuda()\n"
        "else:\n"
        "    runner = lm.cuda()\n"
        "def perplexity(batches):\n"
        "    lm.eval()\n"
        "    total = 0.0\n"
        "    for x, y in batches:\n"
        "        total += nn.functional.cross_entropy(runner(x), y).item()  # expect: TL406\n"
        "    return total\n",
        # the wrapper of a model, run after `.eval()` on the wrapper or on the model; the
        # wrapper is assigned anew right after the model is (DARTS's best model loaded for the
        # test), and a parameter of that name in another function is another variable
        "import torch\n"
        "import torch.nn as nn\n"
        "from models import Net\n"
        "model = Net()\n"
        "runner = nn.DataParallel(model).cuda()\n"
        "def warm_start(model, path):\n"
        "    model.load(path)\n"
        "def evaluate(loader):\n"
        "    model.eval()\n"
        "    for x in loader:\n"
        "        print(runner(x).mean().item())  # expect: TL406\n"
        "def test(loader):\n"
        "    runner.eval()\n"
        "    for x in loader:\n"
        "        print(runner(x).argmax(1).tolist())  # expect: TL406\n"
        "model = torch.load('best.pt')\n"
        "runner = model.cuda()\n",
        # the wrapper of `self.model`, wrapped anew where a method gives the model another object
        "import torch.nn as nn\n"
        "from models import Net\n"
        "class Tester:\n"
        "    def __init__(self):\n"
        "        self.model = Net()\n"
        "        self.net = nn.DataParallel(self.model)\n"
        "    def reload(self, path):\n"
        "        self.model = Net.load(path)\n"
        "        self.net = nn.DataParallel(self.model)\n"
        "    def evaluate(self, loader):\n"
        "        self.model.eval()\n"
        "        for x in loader:\n"
        "            print(self.net(x).mean().item())  # expect: TL406\n",
        # an epoch loop that hands the model to a training phase (which puts it back in train mode
        # itself), then scores it through a helper that knows it by another name
        "import torch\n"
        "def run_epoch(model, batches, opt):\n"
        "    model.train()\n"
        "    for inputs, targets in batches:\n"
        "        opt.zero_grad()\n"
        "        model(inputs, targets).backward()\n"
        "        opt.step()\n"
        "def score(net, batches):\n"
        "    return sum(net(inputs, targets).item() for inputs, targets in batches)\n"
        "def main(model, train_batches, val_batches, epochs):\n"
        "    opt = torch.optim.Adam(model.parameters())\n"
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, train_batches, opt)\n"
        "        model.eval()\n"
        "        print(score(model, val_batches))  # expect: TL406\n",
        # beside a training phase, what the helper gives is bound by a walrus, then only compared and printed
        "import torch\n"
        "def run_epoch(model, batches, opt):\n"
        "    model.train()\n"
        "    for inputs, targets in batches:\n"
        "        opt.zero_grad()\n"
        "        model(inputs, targets).backward()\n"
        "        opt.step()\n"
        "def score(net, batches):\n"
        "    return sum(net(inputs, targets).item() for inputs, targets in batches)\n"
        "def main(model, train_batches, val_batches, epochs):\n"
        "    opt = torch.optim.Adam(model.parameters())\n"
        '    best = float("inf")\n'
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, train_batches, opt)\n"
        "        model.eval()\n"
        "        if (loss := score(model, val_batches)) < best:  # expect: TL406\n"
        "            best = loss\n"
        "        print(epoch, best)\n",
        # the encoder's output, bound after the inner loop, is only logged: the inner loop binds
        # `code` anew before every append, so none of what is returned holds a graph
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    net.eval()\n"
        "    codes = []\n"
        "    for batch in batches:\n"
        "        for inputs in batch.split(1):\n"
        "            code = inputs.flatten(1)\n"
        "            codes.append(code)\n"
        "        code = net(batch)  # expect: TL406\n"
        "        print(code.norm().item())\n"
        "    return codes\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        codes = encode(encoder, batches)\n"
        "        run_head(head, codes, opt)\n",
    )
    good = (
        # forwards in a loop whose graphs the backward after it uses (BatchNorm frozen)
        "import torch\n"
        "def train_step(model, chunks, optimizer):\n"
        "    model.eval()\n"
        "    outs = []\n"
        "    for chunk in chunks:\n"
        "        outs.append(model(chunk))\n"
        "    torch.stack(outs).mean().backward()\n"
        "    optimizer.step()\n",
        # the called function runs under no_grad; an unknown decorator may set it
        "import torch\n"
        "from project.utils import in_eval_context\n"
        "model = torch.load('model.pt')\n"
        "model.eval()\n"
        "@torch.no_grad()\n"
        "def evaluate(loader):\n"
        "    outputs = []\n"
        "    for x in loader:\n"
        "        outputs.append(model(x))\n"
        "    return outputs\n"
        "@in_eval_context\n"
        "def score(loader):\n"
        "    for x in loader:\n"
        "        print(model(x))\n"
        "evaluate(test_loader)\n"
        "score(test_loader)\n",
        # every parameter frozen: no graph is recorded
        "import torch\n"
        "def embed(encoder, loader):\n"
        "    for _, p in encoder.named_parameters():\n"
        "        p.requires_grad = False\n"
        "    encoder.eval()\n"
        "    for x in loader:\n"
        "        yield encoder(x)\n"
        "def score(model, loader):\n"
        "    model.eval().requires_grad_(False)\n"
        "    for x in loader:\n"
        "        yield model(x)\n",
        # the decorator, bare or called, under an alias
        "import torch as th\n"
        "@th.no_grad\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    return [model(x) for x in loader]\n"
        "@th.inference_mode()\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n",
        # no_grad entered at the call site of the evaluation function
        "import torch\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "def main():\n"
        "    with torch.no_grad():\n"
        "        validate(model, val_loader)\n",
        # eval() to freeze BatchNorm while training
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer):\n"
        "    model.train()\n"
        "    model.backbone.eval()\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = model(x, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a project's own wrapper around no_grad, and one that cannot be resolved
        "import torch\n"
        "from utils import evaluation_mode\n"
        "def no_grad_eval(fn):\n"
        "    def wrapped(*args, **kwargs):\n"
        "        with torch.no_grad():\n"
        "            return fn(*args, **kwargs)\n"
        "    return wrapped\n"
        "@no_grad_eval\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "@evaluation_mode\n"
        "def test(model, loader):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n",
        # the train/val phase loop; back in train mode before the next loop
        "import torch\n"
        "for phase in ['train', 'val']:\n"
        "    model.train() if phase == 'train' else model.eval()\n"
        "    for x, y in loaders[phase]:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.set_grad_enabled(phase == 'train'):\n"
        "            loss = criterion(model(x), y)\n"
        "            if phase == 'train':\n"
        "                loss.backward()\n"
        "                optimizer.step()\n"
        "model.eval()\n"
        "model.train()\n"
        "for x in loader:\n"
        "    out = model(x)\n",
        # input gradients of an evaluated model need the graph
        "import torch\n"
        "def saliency(model, loader):\n"
        "    model.eval()\n"
        "    maps = []\n"
        "    for x, y in loader:\n"
        "        x.requires_grad_()\n"
        "        score = model(x).gather(1, y[:, None]).sum()\n"
        "        maps.append(torch.autograd.grad(score, x)[0])\n"
        "    return maps\n",
        # gradients switched off by a statement, not a `with`
        "import torch\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    torch.set_grad_enabled(False)\n"
        "    for x in loader:\n"
        "        model(x)\n"
        "    torch.set_grad_enabled(True)\n",
        # an object of another kind stepped in the loop may be an optimizer's wrapper
        "import gymnasium as gym\n"
        "import torch\n"
        "def run(model, stepper, obs):\n"
        "    envs = gym.make('CartPole-v1') if stepper is None else stepper\n"
        "    model.eval()\n"
        "    for _ in range(10):\n"
        "        loss = model(obs).sum()\n"
        "        envs.step(loss)\n",
        # an optimizer cleared in the loop: another module's call may back-propagate
        "from adapt import apply_update\n"
        "def adapt(model, optimizer, loader):\n"
        "    model.eval()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        apply_update(model(x), optimizer)\n",
        # the model's own clear, then code out of sight handed the optimizer: it may step (BatchNorm frozen by `eval()`)
        "from engine import backward_and_step\n"
        "def finetune(model, loader, optimizer):\n"
        "    model.eval()\n"
        "    for images, targets in loader:\n"
        "        model.zero_grad()\n"
        "        loss = sum(model(images, targets).values())\n"
        "        backward_and_step(loss, optimizer)\n",
        # a forward in eval mode whose output the training step reads after the if
        "import torch\n"
        "for t in range(steps):\n"
        "    if t % 10 == 0:\n"
        "        net.eval()\n"
        "        anchor = net(x_ref)\n"
        "        net.train()\n"
        "    loss = criterion(net(x), y) + (net(x_ref) - anchor).pow(2).mean()\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "for t in range(steps):\n"
        "    loss = criterion(net(x), y)\n"
        "    if t % 10 == 0:\n"
        "        net.eval()\n"
        "        loss = loss + criterion(net(x_clean), y)\n"
        "        net.train()\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "for t in range(steps):\n"
        "    loss = criterion(net(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    if t % 10 == 0:\n"
        "        net.eval()\n"
        "        with torch.no_grad():\n"
        "            test_pred = net(test_x)\n"
        "        print(float(criterion(test_pred, test_y)))\n"
        "        net.train()\n",
        # the look's output kept on the trainer and added to the loss after the if
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        self.aux = None\n"
        "        for step, (x, y) in enumerate(loader):\n"
        "            if step % 10 == 0:\n"
        "                self.model.eval()\n"
        "                self.aux = self.model(self.anchor_x).pow(2).mean()\n"
        "                self.model.train()\n"
        "            loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "            if self.aux is not None:\n"
        "                loss = loss + 0.1 * self.aux\n"
        "                self.aux = None\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n",
        "import torch\n"
        "aux = None\n"
        "for step, (x, y) in enumerate(loader):\n"
        "    if step % 10 == 0:\n"
        "        model.eval()\n"
        "        print((aux := model(anchor_x).pow(2).mean()).item())\n"
        "        model.train()\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    if aux is not None:\n"
        "        loss = loss + 0.1 * aux\n"
        "        aux = None\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a grad-mode context imported from a module of the project: what it does is unknown
        "import torch\n"
        "from helpers import inference_ctx\n"
        "\n"
        "\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    with inference_ctx():\n"
        "        for x, y in loader:\n"
        "            model(x)\n"
        "\n"
        "\n"
        "def train(model, loader, optimizer):\n"
        "    for epoch in range(3):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        evaluate(model, loader)\n",
        # the model's own forward runs the inference branch under no_grad (SPADE)
        "import torch\n"
        "from torch import nn\n"
        "class Pix2PixModel(nn.Module):\n"
        "    def forward(self, data, mode):\n"
        "        semantics = self.preprocess_input(data)\n"
        "        if mode == 'generator':\n"
        "            return self.compute_generator_loss(semantics)\n"
        "        elif mode == 'inference':\n"
        "            with torch.no_grad():\n"
        "                fake_image, _ = self.generate_fake(semantics)\n"
        "            return fake_image\n"
        "        else:\n"
        "            raise ValueError(mode)\n"
        "model = Pix2PixModel()\n"
        "model.eval()\n"
        "for data_i in dataloader:\n"
        "    generated = model(data_i, mode='inference')\n",
        # a forward that always runs without grad: decorated, or every return under no_grad
        "import torch\n"
        "from torch import nn\n"
        "class Teacher(nn.Module):\n"
        "    @torch.no_grad()\n"
        "    def forward(self, x):\n"
        "        return self.net(x)\n"
        "class Embedder(nn.Module):\n"
        "    def forward(self, x, normalize=True):\n"
        "        with torch.inference_mode():\n"
        "            out = self.encoder(x)\n"
        "            return out / out.norm() if normalize else out\n"
        "def score(loader):\n"
        "    teacher = Teacher()\n"
        "    embedder = Embedder()\n"
        "    teacher.eval()\n"
        "    embedder.eval()\n"
        "    for x in loader:\n"
        "        print(teacher(x), embedder(x, normalize=False))\n",
        # the branch is chosen by an argument the file cannot read: it may be the one under no_grad
        "import torch\n"
        "from torch import nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, mode='train'):\n"
        "        if 'infer' == mode:\n"
        "            with torch.no_grad():\n"
        "                return self.body(x)\n"
        "        return self.body(x)\n"
        "def run(loader, mode, **options):\n"
        "    net = Net()\n"
        "    net.eval()\n"
        "    for x in loader:\n"
        "        print(net(x, mode), net(x, **options))\n",
        # the no_grad context built once and entered through a variable
        "import torch\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    ctx = torch.no_grad()\n"
        "    outputs = []\n"
        "    for x in loader:\n"
        "        with ctx:\n"
        "            outputs.append(model(x).argmax(-1))\n"
        "    return outputs\n",
        # methods with their own no_grad (decorated or inside), and one that runs no layer
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class LM(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(100, 16)\n"
        "        self.out = nn.Linear(16, 100)\n"
        "\n"
        "    def forward(self, w):\n"
        "        return self.out(self.emb(w))\n"
        "\n"
        "    @torch.no_grad()\n"
        "    def predict(self, w):\n"
        "        return self.out(self.emb(w)).argmax(-1)\n"
        "\n"
        "    def score(self, w):\n"
        "        with torch.no_grad():\n"
        "            return torch.log_softmax(self(w), -1)\n"
        "\n"
        "    def size(self):\n"
        "        return sum(p.numel() for p in self.parameters())\n"
        "\n"
        "\n"
        "def evaluate(loader, lm_model):\n"
        "    lm_model.eval()\n"
        "    hits, total = 0, 0\n"
        "    for words, labels in loader:\n"
        "        hits += (lm_model.predict(words) == labels).sum().item()\n"
        "        total += lm_model.score(words).sum().item() + lm_model.size()\n"
        "    return hits, total\n"
        "\n"
        "\n"
        "def train(loader, lm_model, opt):\n"
        "    for epoch in range(3):\n"
        "        lm_model.train()\n"
        "        for words, labels in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(lm_model(words), labels).backward()\n"
        "            opt.step()\n"
        "        evaluate(loader, lm_model)\n",
        # helpers of the evaluation loop with a grad mode of their own, a backward, a switch back
        # to train mode, or handed another model or a frozen one
        "import torch\n"
        "def run(model, x):\n"
        "    return model(x)\n"
        "class Tester:\n"
        "    def _infer(self, x):\n"
        "        with torch.no_grad():\n"
        "            return self.model(x)\n"
        "    @torch.inference_mode()\n"
        "    def _predict(self, x):\n"
        "        return self.model(x).argmax(-1)\n"
        "    def _adapt(self, x):\n"
        "        self.model(x).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "    def _train_forward(self, x):\n"
        "        self.model.train()\n"
        "        return self.model(x)\n"
        "    def test(self, loader, teacher, frozen):\n"
        "        frozen.requires_grad_(False)\n"
        "        self.model.eval()\n"
        "        frozen.eval()\n"
        "        for x in loader:\n"
        "            print(self._infer(x), self._predict(x), run(teacher, x), run(frozen, x))\n"
        "    def adapt(self, loader):\n"
        "        self.model.eval()\n"
        "        for x in loader:\n"
        "            self._adapt(x)\n"
        "    def probe(self, loader):\n"
        "        self.model.eval()\n"
        "        for x in loader:\n"
        "            print(self._train_forward(x))\n",
        # a `.step()` of an object the file cannot tell from an optimizer, in the loop that holds the forward
        "import torch\n"
        "def train(model, train_loader, test_loader, stepper, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        for x, y in train_loader:\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        model.eval()\n"
        "        for x, y in test_loader:\n"
        "            logits = model(x)\n"
        "        stepper.step()\n",
        # a perceptual network whose class freezes its parameters in its constructor, kept by a wrapper class: no graph is recorded
        "import torch\n"
        "import torchvision\n"
        "\n"
        "\n"
        "class VGGFeatures(torch.nn.Module):\n"
        "    def __init__(self, requires_grad=False):\n"
        "        super().__init__()\n"
        "        self.features = torchvision.models.vgg16().features[:16]\n"
        "        if not requires_grad:\n"
        "            for param in self.parameters():\n"
        "                param.requires_grad = False\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.features(x)\n"
        "\n"
        "\n"
        "class PerceptualDistance(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = VGGFeatures(requires_grad=False)\n"
        "        self.shift = torch.tensor([-0.03, -0.088, -0.188]).view(1, 3, 1, 1)\n"
        "\n"
        "    def forward(self, a, b):\n"
        "        return (self.net(a - self.shift) - self.net(b - self.shift)).pow(2).mean()\n"
        "\n"
        "\n"
        "def distance(a, b, net):\n"
        "    return net(a, b)\n"
        "\n"
        "\n"
        "def score(pairs):\n"
        "    net = PerceptualDistance().to(\"cuda\")\n"
        "    net.eval()\n"
        "    return [distance(a, b, net).item() for a, b in pairs]\n"
        "\n"
        "\n"
        "def score_all(folders):\n"
        "    net = PerceptualDistance()\n"
        "    net.eval()\n"
        "    total = 0.0\n"
        "    for a, b in folders:\n"
        "        total += net(a, b).item()\n"
        "    return total\n",
        # the factory builds a learner, not an environment: its step() may train the policy
        "from agents import make_learner\n"
        "def adapt(policy, batches):\n"
        "    learner = make_learner(policy)\n"
        "    policy.eval()\n"
        "    for batch in batches:\n"
        "        action = policy(batch).argmax(-1)\n"
        "        learner.step(action)\n",
        # the evaluator's method runs under no_grad, or adapts the model it was built with (it trains)
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    @torch.no_grad()\n"
        "    def evaluate(self, loader):\n"
        "        return [self.model(x).argmax(1) for x, _ in loader]\n"
        "    def adapt(self, loader):\n"
        "        for x, _ in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.model(x).logsumexp(1).mean().backward()\n"
        "            self.optimizer.step()\n"
        "def fit(model, val_loader, optimizer):\n"
        "    evaluator = Evaluator(model, optimizer)\n"
        "    model.eval()\n"
        "    evaluator.adapt(val_loader)\n"
        "    print(evaluator.evaluate(val_loader))\n",
        # two calls down, the innermost helper runs the model under no_grad
        "import torch\n"
        "@torch.no_grad()\n"
        "def predict(model, x):\n"
        "    return model(x)\n"
        "def run_batch(model, x):\n"
        "    return predict(model, x).argmax(-1)\n"
        "def score(model, loader):\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct = correct + (run_batch(model, x) == y).sum()\n"
        "    return correct\n"
        "def main(model, loader):\n"
        "    model.eval()\n"
        "    print(score(model, loader))\n",
        # helpers named for eval mode: one that also turns grad off, one that puts the model in train mode
        "import torch\n"
        "def to_eval(net):\n"
        "    net.eval()\n"
        "    torch.set_grad_enabled(False)\n"
        "def set_eval_mode(net):\n"
        "    net.train()\n"
        "def evaluate(model, loader):\n"
        "    to_eval(model)\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        total += model(x).sum()\n"
        "    return total\n"
        "def probe(model, loader):\n"
        "    set_eval_mode(model)\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        total += model(x).sum()\n"
        "    return total\n",
        # the same chains under a grad mode: at the caller, in the wrapper, or on the wrapped function
        "import torch\n"
        "def _run_eval(model, loader):\n"
        "    correct = 0\n"
        "    for x, y in loader:\n"
        "        correct += (model(x).argmax(1) == y).sum().item()\n"
        "    return correct\n"
        "@torch.inference_mode()\n"
        "def _run_eval_fast(model, loader):\n"
        "    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)\n"
        "def validate(model, loader):\n"
        "    return _run_eval(model, loader)\n"
        "def validate_guarded(model, loader):\n"
        "    with torch.no_grad():\n"
        "        return _run_eval(model, loader)\n"
        "def validate_fast(model, loader):\n"
        "    return _run_eval_fast(model, loader)\n"
        "def restart(model, loader):\n"
        "    model.train()\n"
        "    return _run_eval(model, loader)\n"
        "def fit(net, optimizer, loader, val_loader):\n"
        "    for epoch in range(10):\n"
        "        net.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(net(x), y).backward()\n"
        "            optimizer.step()\n"
        "        net.eval()\n"
        "        with torch.no_grad():\n"
        "            print(validate(net, val_loader))\n"
        "        print(validate_guarded(net, val_loader))\n"
        "        print(validate_fast(net, val_loader))\n"
        "        print(restart(net, val_loader))\n",
        # the trainer validates under no_grad, or the model handed on is frozen
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, backbone, loader, val_loader):\n"
        "        self.model, self.backbone, self.loader, self.val_loader = model, backbone, loader, val_loader\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        self.backbone.requires_grad_(False)\n"
        "    def _score(self, model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += (model(x).argmax(1) == y).sum().item()\n"
        "        return total\n"
        "    def validate(self):\n"
        "        return self._score(self.model, self.val_loader)\n"
        "    def probe(self):\n"
        "        self.backbone.eval()\n"
        "        return self._score(self.backbone, self.val_loader)\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.model.train()\n"
        "            for x, y in self.loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                torch.nn.functional.cross_entropy(self.model(x), y).backward()\n"
        "                self.optimizer.step()\n"
        "            self.model.eval()\n"
        "            with torch.no_grad():\n"
        "                self.validate()\n"
        "            self.probe()\n",
        # a forward that back-propagates under a flag of its own, not `self.training`: in eval mode too
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Trainer(nn.Module):\n"
        "    def __init__(self, model, optimizer):\n"
        "        super().__init__()\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        loss = nn.functional.mse_loss(self.model(x), y)\n"
        "        if self.accumulate:\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n"
        "        return loss.item()\n"
        "\n"
        "\n"
        "def main(model, train_loader, val_loader):\n"
        "    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))\n"
        "    for epoch in range(10):\n"
        "        trainer.train()\n"
        "        for x, y in train_loader:\n"
        "            trainer(x, y)\n"
        "        trainer.eval()\n"
        "        total = 0.0\n"
        "        for x, y in val_loader:\n"
        "            total += trainer(x, y)\n",
        # the forward hands its loss to a method that back-propagates outside `if self.training:`
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Trainer(nn.Module):\n"
        "    def __init__(self, model, optimizer):\n"
        "        super().__init__()\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        loss = nn.functional.mse_loss(self.model(x), y)\n"
        "        self._update(loss)\n"
        "        return loss.item()\n"
        "\n"
        "    def _update(self, loss):\n"
        "        loss.backward()\n"
        "        if self.training:\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n"
        "\n"
        "\n"
        "def main(model, train_loader, val_loader):\n"
        "    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))\n"
        "    for epoch in range(10):\n"
        "        trainer.train()\n"
        "        for x, y in train_loader:\n"
        "            trainer(x, y)\n"
        "        trainer.eval()\n"
        "        total = 0.0\n"
        "        for x, y in val_loader:\n"
        "            total += trainer(x, y)\n",
        # one epoch function for both phases, whose forward runs under the phase's grad mode
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    model.train() if train else model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        with torch.set_grad_enabled(train):\n"
        "            loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss.item()\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, train=False)\n",
        # the evaluator's staticmethod loop, called under no_grad, or itself under no_grad
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, loader):\n"
        "        self.loader = loader\n"
        "    def evaluate(self, model):\n"
        "        return self._run(model, self.loader)\n"
        "    @staticmethod\n"
        "    def _run(model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += torch.nn.functional.cross_entropy(model(x), y).item()\n"
        "        return total\n"
        "def train(model, loader, val_loader, optimizer):\n"
        "    evaluator = Evaluator(val_loader)\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            evaluator.evaluate(model)\n",
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, loader):\n"
        "        self.loader = loader\n"
        "    def evaluate(self, model):\n"
        "        return self._run(model, self.loader)\n"
        "    @staticmethod\n"
        "    @torch.no_grad()\n"
        "    def _run(model, loader):\n"
        "        total = 0.0\n"
        "        for x, y in loader:\n"
        "            total += torch.nn.functional.cross_entropy(model(x), y).item()\n"
        "        return total\n"
        "def train(model, loader, val_loader, optimizer):\n"
        "    evaluator = Evaluator(val_loader)\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        evaluator.evaluate(model)\n",
        # the eval call's outputs back-propagated by the caller: their graphs are used
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    if train:\n"
        "        model.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    outs = []\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "        loss = torch.nn.functional.mse_loss(out, y)\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        outs.append(out)\n"
        "    return outs\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        outs = run_epoch(model, val_loader, optimizer, train=False)\n"
        "        sum(o.sum() for o in outs).backward()\n",
        # the same samples after the step, under no_grad / inference_mode
        "import torch\n"
        "class Trainer:\n"
        "    def train_step(self, batch, probe):\n"
        "        self.vae.train()\n"
        "        self.vae(batch).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            with torch.no_grad():\n"
        "                for model in (self.ema_vae, self.vae):\n"
        "                    model.eval()\n"
        "                    save_image(model(probe).cpu(), f'{self.steps}.png')\n",
        "import torch\n"
        "class Trainer:\n"
        "    @torch.inference_mode()\n"
        "    def sample(self, probe):\n"
        "        for model in (self.ema_vae, self.vae):\n"
        "            model.eval()\n"
        "            save_image(model(probe).cpu(), f'{self.steps}.png')\n"
        "    def train_step(self, batch, probe):\n"
        "        self.vae.train()\n"
        "        self.vae(batch).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            self.sample(probe)\n",
        # the samples' outputs back-propagated after them: their graphs are used
        "import torch\n"
        "class Trainer:\n"
        "    def train_step(self, batch, probe):\n"
        "        self.vae.train()\n"
        "        self.vae(batch).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            outs = []\n"
        "            for model in (self.ema_vae, self.vae):\n"
        "                model.eval()\n"
        "                outs.append(model(probe))\n"
        "            sum(o.mean() for o in outs).backward()\n",
        # a loop that steps, then samples in the same iteration: the next iteration's backward
        # may use what the samples recorded
        "import torch\n"
        "def fit(vae, ema_vae, optimizer, loader, probe):\n"
        "    for i, batch in enumerate(loader):\n"
        "        vae.train()\n"
        "        vae(batch).mean().backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        if i % 100 == 0:\n"
        "            for model in (ema_vae, vae):\n"
        "                model.eval()\n"
        "                recons = model(probe)\n",
        # the outputs of a phase's run back-propagated on the spot: its backward wraps the call
        "import torch\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    model.train(train)\n"
        "    outs = []\n"
        "    for x in loader:\n"
        "        out = model(x)\n"
        "        if train:\n"
        "            out.mean().backward()\n"
        "            optimizer.step()\n"
        "        outs.append(out.mean())\n"
        "    return torch.stack(outs).sum()\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    run_epoch(model, train_loader, optimizer)\n"
        "    run_epoch(model, val_loader, optimizer, train=False).backward()\n",
        "import torch\n"
        "def score(model, loader):\n"
        "    outs = []\n"
        "    for x in loader:\n"
        "        outs.append(model(x))\n"
        "    return torch.stack(outs).sum()\n"
        "def fit(net, optimizer, loader, val_loader):\n"
        "    for x in loader:\n"
        "        net(x).mean().backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    net.eval()\n"
        "    score(net, val_loader).backward()\n",
        # a step, then samples returned (or kept on the trainer): the caller may back-propagate them
        "import torch\n"
        "def train_step(model, optimizer, x, probe):\n"
        "    model(x).mean().backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    model.eval()\n"
        "    outs = []\n"
        "    for p in probe:\n"
        "        outs.append(model(p))\n"
        "    return outs\n"
        "def fit(model, optimizer, loader, probe):\n"
        "    outs = []\n"
        "    for x in loader:\n"
        "        if outs:\n"
        "            sum(o.mean() for o in outs).backward()\n"
        "        outs = train_step(model, optimizer, x, probe)\n",
        "import torch\n"
        "class Trainer:\n"
        "    def train_step(self, batch, probe):\n"
        "        self.model(batch).mean().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "        self.model.eval()\n"
        "        for p in probe:\n"
        "            recon = self.model(p)\n"
        "            self.samples[p] = recon.mean()\n"
        "        self.model.train()\n",
        # the flag is handed on to a batch method that runs its forward under
        # `torch.set_grad_enabled(learn)`: the evaluation call records no graph
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(self, inputs, labels, learn):\n"
        "        with torch.set_grad_enabled(learn):\n"
        "            loss = torch.nn.functional.cross_entropy(self.model(inputs), labels)\n"
        "        if learn:\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)\n",
        # the epoch function hands the step a constant, not its flag: every call trains
        "import torch.nn.functional as F\n"
        "def step(net, batch, optimizer, update):\n"
        "    inputs, targets = batch\n"
        "    loss = F.mse_loss(net(inputs), targets)\n"
        "    if update:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return loss.item()\n"
        "def run_epoch(model, loader, optimizer, train=True):\n"
        "    model.train() if train else model.eval()\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += step(model, batch, optimizer, True)\n"
        "    return total\n"
        "def fit(model, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader, optimizer, train=False)\n",
        # the flag is handed on with a model the evaluation switch leaves alone
        "import torch.nn.functional as F\n"
        "def step(net, batch, optimizer, update):\n"
        "    inputs, targets = batch\n"
        "    loss = F.mse_loss(net(inputs), targets)\n"
        "    if update:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return loss.item()\n"
        "def run_epoch(model, student, loader, optimizer, train=True):\n"
        "    model.train() if train else model.eval()\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += step(student, batch, optimizer, train)\n"
        "    return total\n"
        "def fit(teacher, student, train_loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(teacher, student, train_loader, optimizer)\n"
        "        run_epoch(teacher, student, val_loader, optimizer, train=False)\n",
        # the batch method, whose first parameter is not named `self`, runs its forward under the flag
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(trainer, inputs, labels, learn):\n"
        "        with torch.set_grad_enabled(learn):\n"
        "            loss = torch.nn.functional.cross_entropy(trainer.model(inputs), labels)\n"
        "        if learn:\n"
        "            trainer.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            trainer.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)\n",
        # a decorator that may wrap the batch function: what it runs is not known
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    @timed\n"
        "    def _batch(model, optimizer, inputs, labels, learn):\n"
        "        loss = torch.nn.functional.cross_entropy(model(inputs), labels)\n"
        "        if learn:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, learn=True):\n"
        "        self.model.train(learn)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += self._batch(self.model, self.optimizer, inputs, labels, learn)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, learn=False)\n",
        # a method called on its class, handed the epoch's flag as another flag of its own: it always
        # back-propagates
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def _batch(self, verbose, learn, inputs, labels):\n"
        "        loss = torch.nn.functional.cross_entropy(self.model(inputs), labels)\n"
        "        if verbose:\n"
        "            print(loss)\n"
        "        if learn:\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return loss.item()\n"
        "    def _epoch(self, loader, train=True):\n"
        "        self.model.train(train)\n"
        "        total = 0.0\n"
        "        for inputs, labels in loader:\n"
        "            total += Trainer._batch(self, train, True, inputs, labels)\n"
        "        return total\n"
        "    def fit(self, train_loader, test_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self._epoch(train_loader)\n"
        "            self._epoch(test_loader, train=False)\n",
        # the batch method (first parameter not named `self`) runs under `torch.no_grad()`
        "import torch\n"
        "class Exp:\n"
        "    def _process_one_batch(exp, batch_x, batch_y):\n"
        "        return exp.model(batch_x.to(exp.device)), batch_y.to(exp.device)\n"
        "    def vali(self, loader, criterion):\n"
        "        self.model.eval()\n"
        "        losses = []\n"
        "        with torch.no_grad():\n"
        "            for batch_x, batch_y in loader:\n"
        "                pred, true = self._process_one_batch(batch_x, batch_y)\n"
        "                losses.append(criterion(pred.detach(), true).item())\n"
        "        self.model.train()\n"
        "        return sum(losses)\n"
        "    def train(self, loader, criterion):\n"
        "        self.model.train()\n"
        "        for batch_x, batch_y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            pred, true = self._process_one_batch(batch_x, batch_y)\n"
        "            criterion(pred, true).backward()\n"
        "            self.optimizer.step()\n",
        # the training call's flag equals the constant its `if`s test (`True == 1`, as
        # Python compares them): it trains, in train mode
        "import torch\n"
        "def run_epoch(model, optimizer, loader, train=0):\n"
        "    model.train() if train == 1 else model.eval()\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if train == 1:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, optimizer, train_loader, train=True)\n"
        "        with torch.no_grad():\n"
        "            run_epoch(model, optimizer, valid_loader)\n",
        # the same comprehensions under `torch.no_grad()`, in a function run under `inference_mode`, and
        # after the model is put back in train mode
        "import torch\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        return [model(x).argmax(-1) for x, _ in loader]\n"
        "@torch.inference_mode()\n"
        "def all_logits(model, val_loader):\n"
        "    model.eval()\n"
        "    return torch.cat([model(x) for x in val_loader])\n"
        "def train_loss(model, loader, criterion):\n"
        "    model.eval()\n"
        "    model.train()\n"
        "    return sum(criterion(model(x), y).item() for x, y in loader)\n",
        # comprehensions that train with BatchNorm frozen: the backward uses their graphs, or each item steps
        "import torch\n"
        "def accumulate(model, chunks, target, optimizer):\n"
        "    model.eval()\n"
        "    loss = sum(torch.nn.functional.mse_loss(model(x), target) for x in chunks)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "def accumulate_inline(model, chunks, target, optimizer):\n"
        "    model.eval()\n"
        "    sum(torch.nn.functional.mse_loss(model(x), target) for x in chunks).backward()\n"
        "    optimizer.step()\n"
        "def train_step(model, optimizer, batch):\n"
        "    x, y = batch\n"
        "    optimizer.zero_grad()\n"
        "    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n"
        "def fine_tune(model, optimizer, loader):\n"
        "    model.eval()\n"
        "    return sum(train_step(model, optimizer, batch) for batch in loader)\n",
        # the forward in what a loop iterates over runs once, before its iterations, not in a loop
        "import torch\n"
        "def heads(model, x):\n"
        "    model.eval()\n"
        "    scores = [row.softmax(-1) for row in model(x)]\n"
        "    for row in model(x):\n"
        "        print(row.argmax())\n"
        "    return scores\n",
        # a module-level training loop (BatchNorm frozen) whose comprehension runs the forwards it
        # back-propagates: the loop around the comprehension trains
        "import torch\n"
        "model = torch.load(\"model.pt\")\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model.eval()\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = sum(torch.nn.functional.mse_loss(model(v), y) for v in x)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # training only when handed an optimizer, but the model is never put in eval mode; and a call
        # handing a variable that may hold one
        "import torch\n"
        "def run_epoch(model, loader, optimizer=None):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        if optimizer is not None:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss.item()\n"
        "    return total\n"
        "def run_phase(model, loader, optimizer=None):\n"
        "    model.train(optimizer is not None)\n"
        "    return run_epoch(model, loader, optimizer)\n"
        "def fit(model, train_loader, val_loader, optimizer, epochs, finetune):\n"
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, train_loader, optimizer)\n"
        "        run_epoch(model, val_loader)\n"
        "        run_phase(model, val_loader, optimizer if finetune else None)\n",
        # a comprehension whose element back-propagates (BatchNorm frozen while fine-tuning)
        "import torch\n"
        "def fine_tune(model, loader, optimizer):\n"
        "    model.eval()\n"
        "    optimizer.zero_grad()\n"
        "    [torch.nn.functional.cross_entropy(model(x), y).backward() for x, y in loader]\n"
        "    optimizer.step()\n",
        # a loop over extra batches inside a training step, its outputs added to the loss back-propagated
        # after it; and one that leaves the model in eval mode for the steps after it
        "import torch\n"
        "def train(model, optimizer, loader, extra_batches):\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        model.train()\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        if step % 10 == 0:\n"
        "            model.eval()\n"
        "            for extra in extra_batches:\n"
        "                loss = loss + model(extra).pow(2).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "def train_frozen(model, optimizer, loader, val_loader):\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        if step == 1000:\n"
        "            model.eval()\n"
        "            for vx, vy in val_loader:\n"
        "                print(model(vx).argmax(-1))\n",
        # a script's training loop (BatchNorm frozen) whose inner loop runs the forwards it back-propagates
        "import torch\n"
        "model = torch.load(\"model.pt\")\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model.eval()\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    outs = []\n"
        "    for v in x:\n"
        "        outs.append(model(v))\n"
        "    torch.nn.functional.mse_loss(torch.stack(outs), y).backward()\n"
        "    optimizer.step()\n",
        # generator expressions handed to a function that runs them under no_grad, in the call or
        # bound first: their forwards run where they are consumed
        "import torch\n"
        "def consume(gen):\n"
        "    with torch.no_grad():\n"
        "        return list(gen)\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    return consume(model(x) for x in loader)\n"
        "def evaluate_bound(model, loader):\n"
        "    model.eval()\n"
        "    gen = (model(x) for x in loader)\n"
        "    return consume(gen)\n",
        # helpers returning the outputs of their loop of forwards (a comprehension, or a `for` appending)
        # to a caller that back-propagates them (BatchNorm frozen), one also serving an evaluating caller
        "import torch\n"
        "def forward_all(model, chunks):\n"
        "    model.eval()\n"
        "    return [model(x) for x in chunks]\n"
        "def train(model, chunks, y, optimizer):\n"
        "    loss = torch.nn.functional.mse_loss(torch.stack(forward_all(model, chunks)), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "def predict_all(model, inputs):\n"
        "    out = []\n"
        "    for x in inputs:\n"
        "        out.append(model(x).softmax(-1))\n"
        "    return out\n"
        "def check(model, inputs):\n"
        "    model.eval()\n"
        "    return predict_all(model, inputs)\n"
        "def train_frozen(model, inputs, opt):\n"
        "    model.eval()\n"
        "    torch.stack(predict_all(model, inputs)).sum().backward()\n"
        "    opt.step()\n",
        # a helper's comprehension whose outputs its caller hands, through variables, to a function
        # that back-propagates them
        "import torch\n"
        "def forward_all(model, chunks):\n"
        "    model.eval()\n"
        "    return [model(x) for x in chunks]\n"
        "def update(loss, optimizer):\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "def train(model, chunks, y, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        outs = forward_all(model, chunks)\n"
        "        loss = torch.nn.functional.mse_loss(torch.stack(outs), y)\n"
        "        update(loss, optimizer)\n",
        # the same method called under `torch.no_grad()` for the validation pass; and one that puts
        # the model back in train mode itself before its loop
        "import torch\n"
        "\n"
        "\n"
        "class Solver:\n"
        "    def __init__(self, model, optimizer, tr_loader, cv_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.tr_loader = tr_loader\n"
        "        self.cv_loader = cv_loader\n"
        "\n"
        "    def train(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.model.train()\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()\n"
        "            with torch.no_grad():\n"
        "                val_loss = self._run_one_epoch(epoch, cross_valid=True)\n"
        "            print(val_loss)\n"
        "\n"
        "    def _run_one_epoch(self, epoch, cross_valid=False):\n"
        "        total = 0\n"
        "        loader = self.tr_loader if not cross_valid else self.cv_loader\n"
        "        for x, y in loader:\n"
        "            loss = torch.nn.functional.cross_entropy(self.model(x), y)\n"
        "            if not cross_valid:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            total += loss.item()\n"
        "        return total\n",
        "import torch\n"
        "\n"
        "\n"
        "class Solver:\n"
        "    def __init__(self, model, optimizer, tr_loader, cv_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.tr_loader = tr_loader\n"
        "        self.cv_loader = cv_loader\n"
        "\n"
        "    def train(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.model.train()\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()\n"
        "            val_loss = self._run_one_epoch(epoch, cross_valid=True)\n"
        "            print(val_loss)\n"
        "\n"
        "    def _run_one_epoch(self, epoch, cross_valid=False):\n"
        "        self.model.train()\n"
        "        total = 0\n"
        "        loader = self.tr_loader if not cross_valid else self.cv_loader\n"
        "        for x, y in loader:\n"
        "            loss = torch.nn.functional.cross_entropy(self.model(x), y)\n"
        "            if not cross_valid:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            total += loss.item()\n"
        "        return total\n",
        # the same looks where the training step never puts the model back in train mode (it stays in
        # eval mode from the first look on), or puts another model in train mode
        "import torch\n"
        "\n"
        "def train_step(model, opt, x, y):\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        train_step(model, opt, x, y)\n"
        "        if i % 500 == 0:\n"
        "            model.eval()\n"
        "            score = [model(vx).sum() for vx, _ in val_loader]\n"
        "            print(score)\n",
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, teacher):\n"
        "        self.model, self.opt, self.teacher = model, opt, teacher\n"
        "\n"
        "    def step(self, x, y):\n"
        "        self.teacher.train()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        for i, (x, y) in enumerate(loader):\n"
        "            self.step(x, y)\n"
        "            if i % 500 == 0 and i > 0:\n"
        "                self.model.eval()\n"
        "                score = [self.model(vx).sum() for vx, _ in val_loader]\n"
        "                print(score)\n",
        # the same helper's validation loop under `torch.no_grad()`; its loss kept and back-propagated by
        # the loop; and one batch only, outside any loop
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model = model\n"
        "        self.opt = opt\n"
        "\n"
        "    def run_batch(self, x, y, train):\n"
        "        out = self.model(x)\n"
        "        loss = (out - y).pow(2).mean()\n"
        "        if train:\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "        return loss.item()\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        self.model.train()\n"
        "        for x, y in loader:\n"
        "            self.run_batch(x, y, True)\n"
        "        self.model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                self.run_batch(x, y, False)\n",
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model = model\n"
        "        self.opt = opt\n"
        "\n"
        "    def run_batch(self, x, y, train):\n"
        "        out = self.model(x)\n"
        "        loss = (out - y).pow(2).mean()\n"
        "        if train:\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "        return loss\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        self.model.train()\n"
        "        for x, y in loader:\n"
        "            self.run_batch(x, y, True)\n"
        "        self.model.eval()\n"
        "        for x, y in val_loader:\n"
        "            loss = self.run_batch(x, y, False)\n"
        "            loss.backward()\n",
        "import torch\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model = model\n"
        "        self.opt = opt\n"
        "\n"
        "    def run_batch(self, x, y, train):\n"
        "        out = self.model(x)\n"
        "        loss = (out - y).pow(2).mean()\n"
        "        if train:\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "        return loss.item()\n"
        "\n"
        "    def fit(self, loader, val_loader):\n"
        "        self.model.train()\n"
        "        for x, y in loader:\n"
        "            self.run_batch(x, y, True)\n"
        "        self.model.eval()\n"
        "        vx, vy = next(iter(val_loader))\n"
        "        self.run_batch(vx, vy, False)\n",
        # what the look every N steps computes is what the next steps train on (a target
        # refreshed in eval mode, read by the step before the `if` on the next pass)
        "import torch\n"
        "def train_step(model, opt, x, target):\n"
        "    model.train()\n"
        "    loss = torch.nn.functional.mse_loss(model(x), target)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "def fit(model, opt, loader, x_ref):\n"
        "    target = None\n"
        "    for i, x in enumerate(loader):\n"
        "        train_step(model, opt, x, target)\n"
        "        if i % 500 == 0:\n"
        "            model.eval()\n"
        "            target = model(x_ref)\n"
        "def fit_inline(model, opt, loader, x_ref):\n"
        "    target = None\n"
        "    for i, x in enumerate(loader):\n"
        "        model.train()\n"
        "        loss = torch.nn.functional.mse_loss(model(x), target)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        if i % 500 == 0:\n"
        "            model.eval()\n"
        "            target = model(x_ref)\n",
        # the same loop where the second helper is called with `train=True`: it back-propagates there
        "import torch\n"
        "def evaluate_batch(model, opt, x, y, train):\n"
        "    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss.item()\n"
        "def log_metrics(model, opt, x, y, train):\n"
        "    acc = (model(x).argmax(-1) == y).float().mean()\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        (1 - acc).backward()\n"
        "        opt.step()\n"
        "    print(acc.item())\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        evaluate_batch(model, opt, x, y, True)\n"
        "    model.eval()\n"
        "    total = 0.0\n"
        "    for x, y in val_loader:\n"
        "        loss = evaluate_batch(model, opt, x, y, train=False)\n"
        "        log_metrics(model, opt, x, y, train=True)\n"
        "        total += loss\n"
        "    return total\n",
        # generators of forwards bound to a name and then handed on, consumed under `torch.no_grad()`, consumed
        # only under an `if`, wrapped in another generator returned, back-propagated through, or read twice
        "import torch\n"
        "def consume(gen):\n"
        "    with torch.no_grad():\n"
        "        return list(gen)\n"
        "def handed(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    return consume(outs)\n"
        "def under_no_grad(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    with torch.no_grad():\n"
        "        total = sum(o.sum().item() for o in outs)\n"
        "    return total\n"
        "def maybe(model, val_loader, verbose):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    if verbose:\n"
        "        print(list(outs))\n"
        "def lazy(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    sums = (o.sum() for o in outs)\n"
        "    return sums\n"
        "def trained(model, val_loader, opt):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    for o in outs:\n"
        "        o.sum().backward()\n"
        "    opt.step()\n"
        "def trained_after(model, val_loader, opt):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    loss = sum(o.sum() for o in outs)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "def read_twice(model, val_loader):\n"
        "    model.eval()\n"
        "    outs = (model(x) for x, _ in val_loader)\n"
        "    print(outs)\n"
        "    return list(outs)\n",
        # generators of forwards handed to a join of unknown receiver, to `torch.cat` (which raises on a
        # generator), to `extend` of a parameter, to `itertools.chain` (lazy)
        "import itertools\n"
        "import torch\n"
        "def report(model, val_loader, sep, sink):\n"
        "    model.eval()\n"
        "    line = sep.join(str(model(x).argmax().item()) for x, _ in val_loader)\n"
        "    logits = torch.cat(model(x) for x, _ in val_loader)\n"
        "    sink.extend(model(x).argmax(-1) for x, _ in val_loader)\n"
        "    chained = itertools.chain(model(x) for x, _ in val_loader)\n"
        "    return line, logits, chained\n",
        # a list grown by a generator of forwards that outlives the call, a global or kept on
        # `self`: the training step back-propagates through what it holds
        "import torch\n"
        "preds = []\n"
        "def collect(model, val_loader):\n"
        "    model.eval()\n"
        "    preds.extend(model(x) for x, _ in val_loader)\n"
        "def train_on_preds(opt):\n"
        "    torch.stack(preds).sum().backward()\n"
        "    opt.step()\n"
        "class Runner:\n"
        "    def collect(self, model, val_loader):\n"
        "        model.eval()\n"
        "        buf = []\n"
        "        buf.extend(model(x) for x, _ in val_loader)\n"
        "        self.preds = buf\n"
        "    def train(self, opt):\n"
        "        torch.stack(self.preds).sum().backward()\n"
        "        opt.step()\n",
        # the same forward beside the helper called with its training flag on: the loop trains
        "import torch\n"
        "def evaluate_batch(model, opt, x, y, train):\n"
        "    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "    if train:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss.item()\n"
        "def fit(model, opt, loader, val_loader):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        evaluate_batch(model, opt, x, y, True)\n"
        "    model.eval()\n"
        "    for x, y in val_loader:\n"
        "        loss = evaluate_batch(model, opt, x, y, train=True)\n"
        "        preds = model(x).argmax(-1)\n"
        "        print(loss, preds)\n",
        # a model built in train mode, or switched back to it in the chain, or put in eval mode as it is
        # built and then run under `torch.no_grad()`
        "import torch\n"
        "from models import Generator\n"
        "def fit(loader, device):\n"
        "    model = Generator(4).to(device).train()\n"
        "    for lr, _ in loader:\n"
        "        print(model(lr).shape)\n"
        "def fit_switched_back(loader, device):\n"
        "    model = Generator(4).eval().train()\n"
        "    for lr, _ in loader:\n"
        "        print(model(lr).shape)\n"
        "def benchmark(loader, device):\n"
        "    model = Generator(4).eval()\n"
        "    with torch.no_grad():\n"
        "        for lr, _ in loader:\n"
        "            print(model(lr).shape)\n",
        # a copy, put in eval mode, of a model frozen before it (stylegan2-ada's G_ema): its forwards record
        # no graph
        "import copy\n"
        "import torch\n"
        "from models import Generator\n"
        "def snapshots(grid_z, device):\n"
        "    G = Generator().train().requires_grad_(False).to(device)\n"
        "    G_ema = copy.deepcopy(G).eval()\n"
        "    for z in grid_z:\n"
        "        print(G_ema(z).mean().item())\n",
        # a class of the file's own `eval()` built and switched in one chain (no module),
        # and a name bound to a fresh model after one built in eval mode: nothing shows it in
        # eval mode
        "import torch\n"
        "from models import Net\n"
        "class Metric:\n"
        "    def eval(self):\n"
        "        return self\n"
        "    def __call__(self, x):\n"
        "        return x.sum()\n"
        "def score(loader):\n"
        "    metric = Metric().eval()\n"
        "    for x in loader:\n"
        "        print(metric(x))\n"
        "def run(loader, device):\n"
        "    model = Net().eval()\n"
        "    model = Net().to(device)\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        print(loss.item())\n"
        "def again(loader):\n"
        "    model = Net()\n"
        "    model.eval()\n"
        "    model = Net()\n"
        "    for x in loader:\n"
        "        print(model(x).mean().item())\n",
        # a variable that may hold another model than the one in eval mode, one that wraps a
        # local model of the same name, and the wrapper's forwards under no_grad
        "import torch\n"
        "import torch.nn as nn\n"
        "from models import LanguageModel\n"
        "lm = LanguageModel(1000)\n"
        "draft = LanguageModel(10)\n"
        "if small:\n"
        "    runner = draft.cuda()\n"
        "else:\n"
        "    runner = nn.DataParallel(lm)\n"
        "def perplexity(batches):\n"
        "    lm.eval()\n"
        "    for x, y in batches:\n"
        "        print(runner(x).mean().item())\n"
        "wrapped = nn.DataParallel(lm)\n"
        "def score(batches):\n"
        "    lm = LanguageModel(10)\n"
        "    lm.eval()\n"
        "    for x in batches:\n"
        "        print(wrapped(x).mean().item())\n"
        "def validate(batches):\n"
        "    lm.eval()\n"
        "    with torch.no_grad():\n"
        "        for x in batches:\n"
        "            print(wrapped(x).mean().item())\n",
        # a wrapper whose model variable is given another object after it is built: again at
        # module level, in a loop, or through `global` in a function; and a wrapper put back
        # in train mode, which puts its model back too
        "import torch.nn as nn\n"
        "from models import Net\n"
        "model = Net()\n"
        "runner = nn.DataParallel(model)\n"
        "model = Net()\n"
        "def evaluate(loader):\n"
        "    model.eval()\n"
        "    for x in loader:\n"
        "        print(runner(x).mean().item())\n"
        "def evaluate_all(paths, loader):\n"
        "    net = Net()\n"
        "    net_runner = nn.DataParallel(net)\n"
        "    for p in paths:\n"
        "        net = Net.load(p)\n"
        "        net.eval()\n"
        "        for x in loader:\n"
        "            print(net_runner(x).mean().item())\n"
        "critic = Net()\n"
        "critic_runner = nn.DataParallel(critic)\n"
        "def reload(loader):\n"
        "    global critic\n"
        "    critic = Net()\n"
        "    critic.eval()\n"
        "    for x in loader:\n"
        "        print(critic_runner(x).mean().item())\n"
        "teacher = Net()\n"
        "teacher_runner = nn.DataParallel(teacher)\n"
        "def distill_step(loader):\n"
        "    teacher.eval()\n"
        "    teacher_runner.train()\n"
        "    for x in loader:\n"
        "        print(teacher_runner(x).mean().item())\n",
        # the wrapper of `self.model` where another method, or a subclass, gives `self.model`
        # another object
        "import torch.nn as nn\n"
        "from models import Net\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.model = Net()\n"
        "        self.net = nn.DataParallel(self.model).cuda()\n"
        "    def swap(self):\n"
        "        self.model = Net()\n"
        "    def evaluate(self, loader):\n"
        "        self.model.eval()\n"
        "        for x in loader:\n"
        "            print(self.net(x).mean().item())\n"
        "class Scorer:\n"
        "    def __init__(self):\n"
        "        self.encoder = Net()\n"
        "        self.runner = nn.DataParallel(self.encoder)\n"
        "    def score(self, loader):\n"
        "        self.encoder.eval()\n"
        "        for x in loader:\n"
        "            print(self.runner(x).mean().item())\n"
        "class Finetuner(Scorer):\n"
        "    def load(self, path):\n"
        "        self.encoder = Net.load(path)\n"
        "class Reloader:\n"
        "    def __init__(self):\n"
        "        self.model = Net()\n"
        "        self.net = nn.DataParallel(self.model)\n"
        "    def reload(self, path, wrap):\n"
        "        self.model = Net.load(path)\n"
        "        if not wrap:\n"
        "            return\n"
        "        self.net = nn.DataParallel(self.model)\n"
        "    def evaluate(self, loader):\n"
        "        self.model.eval()\n"
        "        for x in loader:\n"
        "            print(self.net(x).mean().item())\n",
        # the training phase beside it back-propagates what the helper gives (BatchNorm frozen)
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        codes = encode(encoder, batches)\n"
        "        run_head(head, codes, opt)\n",
        # the training phase beside it trains on what the helper gives, bound by a walrus
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        if (codes := encode(encoder, batches)):\n"
        "            run_head(head, codes, opt)\n",
        # what the helper gives, bound by a `for`, is stored in the container the training phase reads
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, codes, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        for i, code in enumerate(encode(encoder, batches)):\n"
        "            codes[i] = code\n"
        "        run_head(head, codes, opt)\n",
        # what the helper gives is handed to a method that may keep it for the training phase
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, bank, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        codes = encode(encoder, batches)\n"
        "        bank.refresh(codes)\n"
        "        run_head(head, bank, opt)\n",
        # what the helper gives is bound to a global that the training phase reads
        "import torch\n"
        "CODES = []\n"
        "def run_head(head, opt):\n"
        "    head.train()\n"
        "    for code in CODES:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, epochs):\n"
        "    global CODES\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        CODES = encode(encoder, batches)\n"
        "        run_head(head, opt)\n",
        # what the helper gives is bound to a variable that the training phase, defined in the function, reads
        "import torch\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    codes = []\n"
        "    def run_head(net):\n"
        "        net.train()\n"
        "        for code in codes:\n"
        "            opt.zero_grad()\n"
        "            net(code).mean().backward()\n"
        "            opt.step()\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        codes = encode(encoder, batches)\n"
        "        run_head(head)\n",
        # what the helper gives is handed to a method of the project that stores it outside
        # its `__init__`, on the object the training phase reads
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "class CodeBank:\n"
        "    def __init__(self):\n"
        "        self.codes = []\n"
        "    def refresh(self, codes):\n"
        "        self.codes = codes\n"
        "    def __iter__(self):\n"
        "        return iter(self.codes)\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    bank = CodeBank()\n"
        "    for epoch in range(epochs):\n"
        "        run_head(head, bank, opt)\n"
        "        encoder.eval()\n"
        "        bank.refresh(encode(encoder, batches))\n",
        # what the helper gives extends in place a list that the training phase's loader holds
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    pool = []\n"
        "    loader = torch.utils.data.DataLoader(pool, batch_size=None)\n"
        "    for epoch in range(epochs):\n"
        "        run_head(head, loader, opt)\n"
        "        encoder.eval()\n"
        "        pool += encode(encoder, batches)\n",
        # what the helper gives is written by `out=` into the buffer the training phase reads
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    return [net(inputs) for inputs, _ in batches]\n"
        "def main(encoder, head, batches, buffer, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        run_head(head, buffer, opt)\n"
        "        encoder.eval()\n"
        "        torch.stack(encode(encoder, batches), out=buffer)\n",
        # an input skipped by the branch appends the `code` of the pass before: the encoder's
        # output, which the head back-propagates
        "import torch\n"
        "def run_head(head, codes, opt):\n"
        "    head.train()\n"
        "    for code in codes:\n"
        "        opt.zero_grad()\n"
        "        head(code).mean().backward()\n"
        "        opt.step()\n"
        "def encode(net, batches):\n"
        "    net.eval()\n"
        "    codes = []\n"
        "    for batch in batches:\n"
        "        for inputs in batch.split(1):\n"
        "            if inputs.any():\n"
        "                code = inputs.flatten(1)\n"
        "            codes.append(code)\n"
        "        code = net(batch)\n"
        "        print(code.norm().item())\n"
        "    return codes\n"
        "def main(encoder, head, batches, epochs):\n"
        "    opt = torch.optim.Adam([*encoder.parameters(), *head.parameters()])\n"
        "    for epoch in range(epochs):\n"
        "        encoder.eval()\n"
        "        codes = encode(encoder, batches)\n"
        "        run_head(head, codes, opt)\n",
    )

    def finish(self) -> None:
        self._frozen = _frozen_models(self.ctx)
        self._switched = {_last_name(mode[0]) for mode in (self._switch(call) for call in self.ctx.nodes_of(cst.Call)) if mode}
        summaries = (*self.ctx.summaries.closed.values(), *self.ctx.summaries.external.values())
        # methods that back-propagate only in train mode (see `_uses_graph`)
        self._training_only = any(summary.graph_when_training for summary in summaries)
        # calls of functions that leave a model they are handed in eval mode (`set_eval(model)`),
        # with the models they leave so (see `_left_in_eval`), read once per call
        self._left: dict[cst.CSTNode, tuple[str, ...]] = {}
        if any(summary.leaves_eval for summary in summaries):
            self._left = {call: left for call in self.ctx.nodes_of(cst.Call) if (left := self._left_in_eval(call))}
            self._switched |= {name.rpartition(".")[2] for left in self._left.values() for name in left}
        # functions that evaluate, in a loop of their own, a model they are handed (see `_evaluated_elsewhere`)
        self._forwarding = any(summary.forwards or summary.method_forwards for summary in summaries)
        # functions of other modules that run the forward of a model they are handed (see `_runs_elsewhere`)
        self._running = any(summary.called_forwards for summary in self.ctx.summaries.external.values())
        # calls of the file's functions made with a model in eval mode, by callee; the
        # calls reported as running a helper's forward; forwards in the loops of such
        # helpers, reported once the walks tell whether a reported call runs them
        self._entries: dict[cst.FunctionDef, list[cst.Call]] = {}
        self._reported_calls: set[cst.Call] = set()
        self._in_helpers: list[tuple[cst.Call, cst.FunctionDef]] = []
        # calls reported as running one phase of a function, and the flags of each function
        # (see `_evaluates_by_flag`)
        self._by_flag: set[cst.Call] = set()
        self._phases: dict[cst.FunctionDef, frozenset[str]] = {}
        # whether each loop's body needs a graph (see `_loop_needs_graph`)
        self._training_loops: dict[cst.CSTNode, bool] = {}
        # the innermost loop around each node of a function (see `_innermost_loops`)
        self._loops_within: dict[cst.CSTNode, dict[int, cst.CSTNode | None]] = {}
        # what each call serving one phase by its flag runs (see `_run_by_flag`), the
        # statements of each loop that need a graph (see `_graph_statements`), and the
        # functions that do
        self._flag_runs: dict[cst.CSTNode, tuple[cst.FunctionDef, list[Ran]] | None] = {}
        self._graph_needed: dict[tuple[cst.CSTNode, Facts], list[cst.BaseStatement]] = {}
        self._functions_needing_graph: dict[cst.FunctionDef, bool] = {}  # see `_body_of_needs_graph`
        # what each call's result flows to in a function, its assignments and names (see `_flow_of`)
        self._flows: dict[tuple[cst.CSTNode, cst.Call], tuple[dict[int, cst.CSTNode], set[str]]] = {}
        self._binders: dict[cst.CSTNode, list[tuple[int, cst.CSTNode, frozenset[str], frozenset[str]]]] = {}
        self._names: dict[cst.CSTNode, dict[str, list[cst.Name]]] = {}
        self._graph_nodes_of: dict[cst.CSTNode, list[tuple[cst.CSTNode, cst.FunctionDef | None, bool]]] = {}
        for body in code_bodies(self.ctx):
            self._body = body
            CallFlow(self.ctx, self._transfer, events=self._is_event).run_if_events(body)
        for call, helper in self._in_helpers:
            if not self._runs_under_reported(helper, set()):
                self.report(call)
        if any(summary.evaluated_forwards for summary in summaries):
            for call in self.ctx.nodes_of(cst.Call):
                if self._evaluates_elsewhere(call):  # type: ignore[arg-type]
                    self.report(call, _ELSEWHERE.format(self.ctx.code(call.func)))  # type: ignore[attr-defined]
        for call in self.ctx.nodes_of(cst.Call):
            if call not in self._by_flag and self._evaluates_by_flag(call):  # type: ignore[arg-type]
                self.report(call, _ELSEWHERE.format(self.ctx.code(call.func)))  # type: ignore[attr-defined]

    def _evaluates_by_flag(self, call: cst.Call, models: Facts = frozenset()) -> bool:
        """`call` runs a function of the file that serves both phases by a flag
        (`run_epoch(model, val_loader, train=False)` of a `def run_epoch(model, loader,
        train)` that back-propagates only `if train:`), giving the flag a constant that
        skips everything needing a graph (see `trainlint.analysis.phases`), while what
        it then runs puts a model in eval mode, or is handed one of `models` (in eval
        mode here) that it switches to no other mode, and runs its forward in a loop (of
        its own, or the caller's: see `_repeated_by_caller`) with no grad mode around it (`torch.set_grad_enabled(train)` is one). Not under
        a grad mode here, nor for a function with a decorator (see `decorated`)."""
        flagged = self._run_by_flag(call)
        if flagged is None or grad_mode_at(self.ctx, call) is not None:
            return False
        function, run = flagged
        # what it returns, when kept, may be back-propagated here (see `_evaluated_elsewhere`)
        caller = self.ctx.enclosing_function(call)
        if type(self.ctx.parent(call)) is not cst.Expr and self._function_needs_graph(
                caller if caller is not None else self.ctx.module, call, besides=function):
            return False
        given = dict(bound_arguments(self.ctx, call, function)[0])
        handed = {name for name, value in given.items() if self.ctx.code(value) in models}
        # a method called on `self` names the caller's `self.model` through its own first parameter
        for param, receiver in handed_receiver(self.ctx, call, function).items():
            handed |= {param + model[len(receiver.value):] for model in models
                       if model.startswith(receiver.value + ".")}
        evaluated = self._evaluated_by_flag(run, handed)
        repeated = self._repeated_by_caller(call)
        for ran in run:
            node = ran.node
            if type(node) is not cst.Call or not (repeated or self._ran_in_loop(ran, function)) \
                    or self._forward_without_grad(node):
                continue
            if any(lexical_grad_mode(self.ctx, at) is not None for at in (*ran.calls, node)):
                continue
            at = self._ran_at(ran)
            model = next((f for f in self._models_called(node.func)
                          if (text := in_callers_terms(ran, self.ctx.code(f))) in evaluated
                          and evaluated[text] < at), None)  # type: ignore[index]
            if model is None:
                continue
            argument = given.get(in_callers_terms(ran, self.ctx.code(model)) or "")
            if self._records_graph(model) and (argument is None or self._records_graph(argument)):
                return True
        return False

    def _run_by_flag(self, call: cst.CSTNode) -> tuple[cst.FunctionDef, list[Ran]] | None:
        """The function of the file that `call` runs, serving both phases by a flag, with
        the code it runs (see `run_under`) where the call gives the flag a constant that
        skips everything needing a graph; None for any other call, or one with a
        decorator (see `decorated`). Walked once per call: every forward of a loop asks
        about each call beside it."""
        if call not in self._flag_runs:
            self._flag_runs[call] = self._walk_by_flag(call)
        return self._flag_runs[call]

    def _walk_by_flag(self, call: cst.CSTNode) -> tuple[cst.FunctionDef, list[Ran]] | None:
        """What `_run_by_flag` gives, walked anew."""
        function = self.ctx.local_callee(call)
        if function is None or decorated(function) or self.ctx.enclosing_function(call) is function:
            return None
        params = self._phase_flags(function)
        flags = fixed_flags(self.ctx, call, function, params) if params else {}  # type: ignore[arg-type]
        if not flags:
            return None
        run: list[Ran] = []
        for ran in run_under(self.ctx, function, flags, self._phase_flags):
            if self._uses_graph(ran.node):
                return None  # most often in the function called: the rest is not walked
            run.append(ran)
        # a call followed on one path is judged by the walk on every path
        followed = {id(ran.node) for ran in run if ran.followed}
        if any(id(ran.node) not in followed and self._helper_needs_graph(ran.node) for ran in run):
            return None
        return function, run

    def _repeated_by_caller(self, call: cst.Call) -> bool:
        """`call` is a statement of a loop of its caller (`for x, y in val_loader:
        self.run_batch(x, y, train=False)`) whose other statements need no graph (what
        the call runs is judged by the walk under its flags; so is another such call
        beside it, `log_metrics(model, y, train=False)`, judged by its own flags)."""
        loop = repeating_loop(self.ctx, call)
        if type(loop) not in (cst.For, cst.While) or type(loop.body) is not cst.IndentedBlock:  # type: ignore[union-attr]
            return False
        holder = next((a for a in self.ctx.ancestors(call) if self.ctx.parent(a) is loop.body), None)  # type: ignore[union-attr]
        return holder is not None and _statement_call(holder) is call \
            and all(s is holder for s in self._graph_statements(loop))  # type: ignore[arg-type]

    def _body_needs_graph(self, loop: cst.CSTNode, evaluated: Facts) -> bool:
        """Whether an iteration of `loop` needs a graph (see `_needs_graph`), with the
        models of `evaluated` in eval mode; a call alone whose flag skips all that does
        (`evaluate_batch(model, x, y, train=False)`) needs none."""
        if type(loop) in (cst.For, cst.While) and type(loop.body) is cst.IndentedBlock:  # type: ignore[attr-defined]
            return bool(self._graph_statements(loop, evaluated))  # type: ignore[arg-type]
        return self._needs_graph(loop_body(loop), evaluated)  # type: ignore[arg-type]

    def _graph_statements(self, loop: cst.For | cst.While, evaluated: Facts = frozenset()) -> list[cst.BaseStatement]:
        """The statements of `loop`'s body that need a graph with the models of `evaluated`
        in eval mode, but for a call alone whose flag skips all that does (see
        `_skips_graph`): found once per loop, which each call in it asks about."""
        key = (loop, evaluated)
        if key not in self._graph_needed:
            self._graph_needed[key] = [
                statement for statement in loop.body.body  # type: ignore[union-attr]
                if self._needs_graph(statement, evaluated) and not self._skips_graph(_statement_call(statement))]
        return self._graph_needed[key]

    def _skips_graph(self, call: cst.Call | None) -> bool:
        """`call` runs a function of the file serving both phases by a flag with a constant
        that skips everything needing a graph (see `_run_by_flag`), and its arguments need
        none either."""
        return call is not None and self._run_by_flag(call) is not None \
            and not any(self._needs_graph(arg.value) for arg in call.args)

    def _ran_in_loop(self, ran: Ran, function: cst.FunctionDef) -> bool:
        """The node runs in a loop (see `repeating_loop`): of its own function, or around a
        call it runs through."""
        return any(repeating_loop(self.ctx, at) is not None for at in (*ran.calls, ran.node))

    def _ran_at(self, ran: Ran) -> tuple[int, ...]:
        """Where the node runs, in the order of the first function called: the calls it runs
        through, then its place in its own function."""
        return tuple(self.ctx.order_index(at) for at in (*ran.calls, ran.node))

    def _phase_flags(self, function: cst.FunctionDef) -> frozenset[str]:
        """The flags of `function` (see `flag_parameters`), where it needs a graph on
        some path (a backward, a step, a clear, in it or in what it calls): a function
        of one phase only is judged where its forwards are."""
        found = self._phases.get(function)
        if found is None:
            params = flag_parameters(self.ctx, function)
            found = self._phases[function] = params if params and any(
                self._uses_graph(node) or self._helper_needs_graph(node)
                for node in self.ctx.own_nodes(function.body)) else frozenset()
        return found

    def _evaluated_by_flag(self, run: list[Ran], handed: set[str]) -> dict[str, tuple[int, ...]]:
        """The models (as the function first called writes them) that the code `run`
        puts in eval mode, with where it first does (see `_ran_at`), and the parameters
        `handed` a model in eval mode (from the start): none that it may also switch to
        train mode, or to a mode it does not know."""
        evaluated: dict[str, tuple[int, ...]] = dict.fromkeys(handed, (-1,))
        other: set[str | None] = set()
        for ran in run:
            if mode_switch(self.ctx, ran.node) is None:
                continue
            mode = fixed_mode(self.ctx, ran.node, ran.flags)
            if mode is None or mode[1]:
                other.add(in_callers_terms(ran, self.ctx.code(train_mode_call(ran.node)[0])))  # type: ignore[index]
            else:
                text = in_callers_terms(ran, self.ctx.code(mode[0]))
                if text is not None:  # the walk goes nearest first, not in the order code runs
                    at = self._ran_at(ran)
                    evaluated[text] = min(evaluated.get(text, at), at)
        if None in other:
            return {}  # a switch to train mode of a model the first function called cannot name
        return {model: at for model, at in evaluated.items() if model not in other}

    def _helper_needs_graph(self, node: cst.CSTNode) -> bool:
        callee = self.ctx.local_callee(node)
        return callee is not None and self._body_of_needs_graph(callee)

    def _body_of_needs_graph(self, function: cst.FunctionDef) -> bool:
        """Whether running `function` needs a graph (see `_needs_graph`): worked out once
        per function, which each forward asks of every function its own calls."""
        if function not in self._functions_needing_graph:
            self._functions_needing_graph[function] = self._needs_graph(function.body)
        return self._functions_needing_graph[function]

    def _models_called(self, func: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
        """`models_called`, and the model whose forward-like method of a module class
        a call runs: of this file (`lm_model.log_prob(words)`, see `_forward_methods`),
        or of another module of the project (`actor_critic.act(obs)` of an
        `actor_critic = Policy(...)`: its summary's `runs_layers`)."""
        if type(func) is cst.Attribute and func.attr.value in self.ctx.shared(_forward_methods):
            return (func.value,)
        if type(func) is cst.Attribute and self.ctx.summaries.external:
            call = self.ctx.parent(func)
            summary = self.ctx.summaries.of_external_call(call) if type(call) is cst.Call else None
            if summary is not None and summary.runs_layers:
                return (func.value,)
        held = self._held_by(func)
        return models_called(func) if held is None else (*models_called(func), held)

    def _switched_with(self, receiver: cst.BaseExpression) -> frozenset[str]:
        """The models (as written) that `.train()` / `.eval()` on `receiver` switches: it, and
        the model it holds moved or wrapped (`runner.train()` of a `runner =
        nn.DataParallel(model)` puts `model` back in train mode)."""
        held = self._held_by(receiver)
        return frozenset({self.ctx.code(receiver)} if held is None else {self.ctx.code(receiver), self.ctx.code(held)})

    def _held_by(self, variable: cst.BaseExpression) -> cst.BaseExpression | None:
        """The model (see `wrapped_module`) that `variable` holds moved or wrapped, as it
        is written where `variable` is read."""
        held = wrapped_module(self.ctx, variable) if type(variable) in (cst.Name, cst.Attribute) else None
        return held if held is not None and self._read_here(held, variable) else None

    def _read_here(self, model: cst.BaseExpression, at: cst.BaseExpression) -> bool:
        """`model`, as written, names the same variable where `at` is read: the model a
        wrapper variable holds (`parallel_model = nn.DataParallel(model)`) is the `model`
        put in eval mode around the wrapper's call, not a local one of that name."""
        if type(model) is not cst.Name:
            return True  # `self.model`: assigned once, in `__init__` (see `wrapped_module`)
        scope = binding_scope(model.value, self.ctx.scope_of(at))
        binding = self.ctx.receivers.binding(model)
        return scope is not None and binding is not None and scope.node is binding.owner

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to: `.train()` / `.eval()`, and
        calls of something that is switched by them somewhere in the file."""
        if self._switch(node) is not None or node in self._left:
            return True
        if type(node) is cst.Assign:
            return any(_last_name(target) in self._switched for target in assignment_targets(node))
        return type(node) is cst.Call and (
            any(_last_name(f) in self._switched for f in self._models_called(node.func))
            # a function of the file handed such a model (`forward(model, x)`)
            or (self.ctx.local_callee(node) is not None
                and any(_last_name(arg.value) in self._switched for arg in node.args))
            # a function of another module, or a method, that evaluates what it is handed
            or (self._forwarding and self._evaluating(node, "forwards") is not None)
            # or calls a method of one handed to it in its loop (`model.predict(x)`)
            or (self._forwarding and any(_last_name(arg.value) in self._switched for arg in node.args)
                and self._evaluating(node, "method_forwards") is not None)
            # a function of another module that runs the forward of what it is handed
            or (self._running and any(_last_name(model) in self._switched for model in self._run_elsewhere(node))))

    def _bound_anew(self, assign: cst.Assign) -> frozenset[str]:
        """The models (as written) `assign` binds to something else, whose mode the file does
        not show (`model = Net()`, `model = load(path)`): not one switched as it is built
        (`model = Net().eval()`), nor one loaded by `from_pretrained` (Hugging Face
        returns it in eval mode), nor one made of the model itself (`model =
        model.to(device)`, `model = torch.compile(model)`)."""
        nodes = list(iter_nodes(assign.value))
        if any(type(node) is cst.Call and (built_in_mode(self.ctx, node) is not None or _loads_pretrained(node))
               for node in nodes):
            return frozenset()
        read = {node.value for node in nodes if type(node) is cst.Name}
        return frozenset(self.ctx.code(target) for target in assignment_targets(assign)
                         if type(target) in (cst.Name, cst.Attribute)
                         and (head := head_name(target)) is not None and head.value not in read)

    def _switch(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, bool | None] | None:
        """`mode_switch`, or the switch of a module as it is built and bound (see
        `built_in_mode`: `model = Net(...).eval()`)."""
        return mode_switch(self.ctx, node) or built_in_mode(self.ctx, node)

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        mode = self._switch(node)
        if mode is not None:
            switched = self._switched_with(mode[0])
            return facts | switched if mode[1] is False else facts - switched
        evaluated = self._left.get(node)
        if evaluated:
            return facts | frozenset(evaluated)
        if type(node) is cst.Assign:
            return facts - self._bound_anew(node)
        if type(node) is cst.Call and facts:
            callee = self.ctx.local_callee(node)
            if callee is not None:
                self._entries.setdefault(callee, []).append(node)
            model = next((f for f in self._models_called(node.func) if self.ctx.code(f) in facts), None)
            if model is not None:
                if _model_key(self.ctx, model) not in self._frozen and self._in_evaluation_loop(node, facts):
                    function = self.ctx.enclosing_function(node)
                    if function is not None and function.body is not self._body:
                        # reached through a call: judged once every walk is done
                        self._in_helpers.append((node, function))
                    else:
                        self.report(node)
            elif (self._helper_runs_forward(node, facts) or self._runs_elsewhere(node, facts)) \
                    and self._in_evaluation_loop(node, facts):
                self._reported_calls.add(node)
                self.report(node)
            elif self._forwarding and (self._evaluated_elsewhere(node, facts)
                                       or self._methods_evaluated_elsewhere(node, facts)):
                self.report(node, _ELSEWHERE.format(self.ctx.code(node.func)))
            elif node not in self._by_flag and self._evaluates_by_flag(node, facts):
                self._by_flag.add(node)
                self.report(node, _ELSEWHERE.format(self.ctx.code(node.func)))
        return facts

    def _left_in_eval(self, node: cst.CSTNode) -> tuple[str, ...]:
        """The models (as written) a call of a function of the project leaves in eval mode,
        as its summary tells (`set_eval(model)`, `utils.prepare_eval(self.model)` of a
        `def prepare_eval(model): model.eval()`; `trainer.to_eval()` of a method that puts
        `self.model` in eval mode: `trainer.model`): none where the function, or one it
        calls, also switches some model to train mode."""
        if type(node) is not cst.Call or self._switch(node) is not None:
            return ()
        summary = self.ctx.summaries.of_call(node)
        if summary is None or not summary.leaves_eval or summary.does(TRAIN):
            return ()
        found = [self.ctx.code(arg.value) for slot, arg in argument_slots(node)
                 if summary.slot(slot) in summary.leaves_eval and type(arg.value) in (cst.Name, cst.Attribute)]
        owner = node.func.value if type(node.func) is cst.Attribute else None  # type: ignore[attr-defined]
        if owner is not None and type(owner) in (cst.Name, cst.Attribute) and self.ctx.qualified_name(owner) is None:
            found += [self.ctx.code(owner) + name[len("self"):] for name in summary.leaves_eval if name.startswith("self.")]
        return tuple(found)

    def _runs_under_reported(self, function: cst.FunctionDef, seen: set[cst.FunctionDef]) -> bool:
        """Every call that entered `function` with a model in eval mode is reported (its
        own forwards outside loops), or lies in a function run only by such calls: the
        `no_grad` the report asks for around that call covers what `function` runs, its
        loops included, so a forward in them is the same finding (a decoder's loop in
        `greedy_decode(model, src)` called from the evaluation loop)."""
        entries = self._entries.get(function)
        if not entries or function in seen:
            return False
        seen.add(function)
        for call in entries:
            if call in self._reported_calls:
                continue
            caller = self.ctx.enclosing_function(call)
            if caller is None or not self._runs_under_reported(caller, seen):
                return False
        return True

    def _evaluated_elsewhere(self, call: cst.Call, models: Facts) -> bool:
        """`call` runs code out of the walk (a function of another module, a method:
        `evaluator.evaluate(loader)`) whose loop runs the forward of a model it is
        handed with grad on, and hands it one of `models`, in eval mode here: its
        summary's `forwards`. Not under a grad mode here, nor when that code trains or
        switches a mode (a helper it calls may)."""
        summary = self._evaluating(call, "forwards")
        renamed = summary is None and self.ctx.local_callee(call) is not None
        if renamed:
            # a function of the file handed the model under another name (`evaluate(net,
            # loader)` of a `def evaluate(model, loader)`, or a wrapper of such): the walk,
            # which follows the model by its name, does not see it run there
            summary = self._evaluating(call, "forwards", local=True)
        if summary is None or not self._may_evaluate_at(call, summary):
            return False
        if renamed:
            return any(self.ctx.code(arg.value) in models and self.ctx.code(arg.value) != summary.slot(slot)
                       and self._records_graph(arg.value)
                       for slot, arg in argument_slots(call) if summary.slot(slot) in summary.forwards)
        return any(self.ctx.code(model) in models and self._records_graph(model)
                   for model in self._handed(call, summary, summary.forwards))

    def _may_evaluate_at(self, call: cst.Call, summary: Summary) -> bool:
        """What `call` runs, as `summary` tells, may evaluate what it is handed with grad on:
        it switches no model to train mode, no grad mode is set here, and nothing around the
        call needs the graph (what it returns may be back-propagated here: a recurrent unroll
        of a model whose BatchNorm is frozen in eval mode)."""
        if summary.does(TRAIN) or grad_mode_at(self.ctx, call) is not None:
            return False
        function = self.ctx.enclosing_function(call)
        scope = function if function is not None else self.ctx.module
        needs, needs_besides_phases = self._graph_users(scope, call)
        if not needs:
            return True
        # a training phase of its own beside the call (`train_one_epoch(model, ...)` in the
        # epoch loop, which puts the model back in train mode) uses no graph the call records,
        # unless it, or anything else there, back-propagates what the call gives, or may
        # find it where it is kept
        return not needs_besides_phases and not self._back_propagated(scope, call) and not self._kept(scope, call)

    def _methods_evaluated_elsewhere(self, call: cst.Call, models: Facts) -> bool:
        """`call` runs code out of the walk whose loop calls a method of a model it is
        handed (its summary's `method_forwards`: SASRec's `evaluate(model, dataset, args)`
        running `model.predict(...)` per user), and hands it one of `models`, in eval mode
        here, built as an instance of a class of the project that runs its layers in that
        method (see `_runs_layers_in`). With the conditions of `_evaluated_elsewhere`."""
        summary = self._evaluating(call, "method_forwards")
        if summary is None or not self._may_evaluate_at(call, summary):
            return False
        return any(self.ctx.code(arg.value) in models and self._records_graph(arg.value)
                   and self._runs_layers_in(arg.value, method)
                   for slot, arg in argument_slots(call)
                   for param, method in summary.method_forwards if summary.slot(slot) == param)

    def _runs_layers_in(self, model: cst.BaseExpression, method: str) -> bool:
        """`model` is built by one call of a class of the project (of this file, or
        imported from another module) that defines `method` and runs its layers there, as
        its constructor's summary tells (`layer_methods`); not a class whose constructor it
        inherits (that summary tells of the base's methods)."""
        targets = self.ctx.summaries.targets
        built = targets.construction(model)
        constructor = self.ctx.summaries.of_constructor(built) if built is not None else None
        target = targets.target(built) if constructor is not None else None  # type: ignore[arg-type]
        cls = target.removesuffix(".__init__").rpartition(".")[2] if target is not None else ""
        return bool(cls) and f"{cls}.{method}" in constructor.layer_methods  # type: ignore[union-attr]

    def _evaluates_elsewhere(self, call: cst.Call) -> bool:
        """`call` runs code out of the walk that puts a model it is handed in eval mode
        and runs its forward in a loop of its own, with no grad mode of its own, that
        its module does not report (every call of it there runs it under `torch.no_grad()`:
        RAFT's `validate`), here with grad on: its summary's `evaluated_forwards`."""
        summary = self._evaluating(call, "evaluated_forwards")
        if summary is None or grad_mode_at(self.ctx, call) is not None:
            return False
        return any(self._records_graph(model) for model in self._handed(call, summary, summary.evaluated_forwards))

    def _evaluating(self, node: cst.CSTNode, field: str, local: bool = False) -> Summary | None:
        """The summary of what `node` calls out of the walk (`local`: a function of the
        file, in it), when it evaluates models it is handed (`field` of it is not empty)
        and needs no graph."""
        summary = (self.ctx.summaries.of_call(node) if type(node) is cst.Call else None) if local \
            else self.ctx.summaries.of_unwalked_call(node)
        if summary is None or not getattr(summary, field):
            return None
        return None if any(summary.does(effect) for effect in (BACKWARD, STEP, ZERO_GRAD, MAY_ZERO_GRAD)) else summary

    def _handed(self, call: cst.Call, summary: Summary, names: frozenset[str]) -> list[cst.BaseExpression]:
        """The models of `names` (parameters of what `call` runs, or attributes of its
        `self`) as this file holds them: the arguments given those parameters; for
        `self.evaluate()`, its own `self.model`; for `evaluator.evaluate()`, the argument
        the one construction of `evaluator` handed the parameter its constructor keeps as
        `self.model` (built in the same function, or from an attribute of `self`)."""
        found = [arg.value for slot, arg in argument_slots(call) if summary.slot(slot) in names]
        held = sorted(name for name in names if name.startswith("self."))
        func = call.func
        # a method called on the object (not an attribute of it called: `self.backbone(x)`)
        if not held or type(func) is not cst.Attribute or not (
                self.ctx.summaries.targets.target(call) or "").endswith(f".{func.attr.value}"):
            return found
        receiver = func.value
        if receiver_method(self.ctx, receiver) is not None:
            # the caller's own attribute, as it spells it in the function (or else in the class)
            spelled = {self.ctx.code(receiver) + name[len("self"):] for name in held}
            around = [a for a in self.ctx.ancestors(call) if type(a) in (cst.FunctionDef, cst.ClassDef)][:2]
            for scope in around:
                own = [node for node in self.ctx.subtree(scope) if type(node) is cst.Attribute and dotted_name(node) in spelled]
                if own:
                    return found + own
            return found
        built = self.ctx.summaries.targets.construction(receiver)
        constructor = self.ctx.summaries.of_constructor(built) if built is not None else None
        if constructor is None:
            return found
        kept = {constructor.stored(name) for name in held} - {None}
        same_function = self.ctx.enclosing_function(built) is self.ctx.enclosing_function(call)  # type: ignore[arg-type]
        return found + [arg.value for slot, arg in argument_slots(built) if constructor.slot(slot) in kept  # type: ignore[arg-type]
                        and (same_function or (dotted_name(arg.value) or "").startswith("self."))]

    def _records_graph(self, model: cst.BaseExpression) -> bool:
        """Running `model` records a graph, as far as this file can tell: it is not frozen,
        and it is no instance of a class of the project whose forward may run without
        grad (or whose forward the project does not tell)."""
        if _model_key(self.ctx, model) in self._frozen:
            return False
        known, forward = self.ctx.summaries.instance_forward(model)
        return not known or (forward is not None and not forward.no_grad_when)

    def _helper_runs_forward(self, call: cst.Call, models: Facts, depth: int = 0) -> bool:
        """`call` runs a function of the file that runs the forward of a model in eval
        mode, reported at the call: `self._process_one_batch(x)` running `self.model(x)`,
        `forward(model, x)` running `model(x)`. Only forwards outside the helper's own
        loops count (those are judged where they are), and only in a helper with no
        decorator, no grad mode around the forward, no switch of the model's mode and
        nothing that needs the graph (a backward, a step), followed through helpers
        it calls likewise."""
        helper = self.ctx.local_callee(call)
        if helper is None or helper.decorators or depth > _MAX_HELPER_DEPTH:
            return False
        inside = self._models_inside(call, helper, models)
        if not inside:
            return False
        nodes = self.ctx.own_nodes(helper.body)
        if any((mode := self._switch(node)) is not None and self.ctx.code(mode[0]) in inside
               for node in nodes) or self._needs_graph(helper.body):
            return False
        for node in nodes:
            if type(node) is not cst.Call or repeating_loop(self.ctx, node) is not None \
                    or lexical_grad_mode(self.ctx, node):
                continue
            model = next((f for f in self._models_called(node.func) if self.ctx.code(f) in inside), None)
            if model is None:
                if self._helper_runs_forward(node, inside, depth + 1) or self._runs_elsewhere(node, inside):
                    return True
            elif _model_key(self.ctx, model) not in self._frozen and not self._forward_without_grad(node):
                return True
        return False

    def _runs_elsewhere(self, call: cst.Call, models: Facts) -> bool:
        """`call` runs a function of another module that runs, outside loops of its own,
        the forward of a model of `models` it is handed (its summary's `called_forwards`:
        `predict(model, x)` returning `model(x)` in infer.py), and needs no graph nor
        switches a mode in what it calls."""
        return any(self.ctx.code(model) in models and self._records_graph(model) for model in self._run_elsewhere(call))

    def _run_elsewhere(self, call: cst.CSTNode) -> list[cst.BaseExpression]:
        """The arguments of `call` whose forward the function of another module it calls
        runs (see `_runs_elsewhere`), as this file spells them."""
        summary = self.ctx.summaries.of_external_call(call) if type(call) is cst.Call else None
        if summary is None or not summary.called_forwards or any(
                summary.does(effect) for effect in (BACKWARD, STEP, ZERO_GRAD, MAY_ZERO_GRAD, TRAIN)):
            return []
        handed = [arg.value for slot, arg in argument_slots(call) if summary.slot(slot) in summary.called_forwards]
        # a method the instance inherits from a class of another module (`self.validation_step(batch)`
        # running `self.model(...)`): the instance's attribute, as this class names it
        func = call.func  # type: ignore[attr-defined]
        if type(func) is cst.Attribute and receiver_method(self.ctx, func.value) is not None:
            handed += [own for name in sorted(summary.called_forwards) if name.startswith("self.")
                       and (own := own_attribute(self.ctx, call, name)) is not None]
        return handed

    def _models_inside(self, call: cst.Call, helper: cst.FunctionDef, models: Facts) -> Facts:
        """The models of `models` (spelled as at `call`) as `helper` names them: the
        parameters given one (not frozen), `self.<...>` through the parameter the caller's
        `self` is (the first of a method called on `self`, see `handed_receiver`, or the
        one a call on its class hands `self` to), and a module-level name that neither
        the caller nor the helper binds."""
        pairs = bound_arguments(self.ctx, call, helper)[0]
        inside = {name for name, value in pairs
                  if self.ctx.code(value) in models and _model_key(self.ctx, value) not in self._frozen}
        selves = [(param, value.value) for param, value in (*pairs, *handed_receiver(self.ctx, call, helper).items())
                  if receiver_method(self.ctx, value) is not None]
        caller = self.ctx.enclosing_function(call)
        bound = self.ctx.scopes.scope_for(helper).locals | (
            self.ctx.scopes.scope_for(caller).locals if caller is not None else set())
        here = self.ctx.scope_of(call)
        for model in models:
            head, dot, rest = model.partition(".")
            if any(head == receiver for _, receiver in selves):
                inside.update(param + dot + rest for param, receiver in selves if receiver == head)
            elif head.isidentifier() and head not in bound and binding_scope(head, here) in (
                    None, self.ctx.scopes.module_scope):
                inside.add(model)
        return frozenset(inside)

    def _in_evaluation_loop(self, call: cst.Call, evaluated: Facts) -> bool:
        """`call`, run with the models of `evaluated` in eval mode, lies in a loop that
        needs no graph (or in a look at the model now and then inside a training loop)."""
        loop = repeating_loop(self.ctx, call)
        consumers = consumed_at(self.ctx, call) if loop is not None else None
        # a generator's forwards run where it is consumed, maybe under no_grad
        if consumers is None or any(self._needs_graph(statement) for statement in consumers):
            return False
        body = loop_body(loop)
        if self._training_only:
            # models the loop switches stay in eval mode through it no more
            evaluated = evaluated - {self.ctx.code(mode[0]) for node in self.ctx.subtree(body)
                                     if (mode := self._switch(node)) is not None}
        else:
            evaluated = frozenset()
        if self._body_needs_graph(loop, evaluated):
            return self._evaluation_block(call, loop)
        function = self.ctx.enclosing_function(call)
        if self._function_needs_graph(function if function is not None else self.ctx.module, call, evaluated):
            return self._looked_at_in_training(call, loop)
        if function is not None and self._kept_for_training(function, call, set()):
            return False
        return grad_mode_at(self.ctx, call) is None and not self._forward_without_grad(call)

    def _kept_for_training(self, function: cst.FunctionDef, value: cst.BaseExpression,
                           seen: set[cst.FunctionDef]) -> bool:
        """What `value` gives outlives the call of `function` (see `outlives_call`: the
        outputs of its loop returned, `return [model(x) for x in chunks]`), and a caller
        of it in the file may back-propagate them: it needs a graph where it calls it
        (see `_function_needs_graph`), or hands them on to such a caller in turn. A
        function serving an evaluating caller and a training one is such a function."""
        if function in seen or not outlives_call(self.ctx, function, value):
            return False
        seen.add(function)
        for site in self.ctx.call_sites(function):
            caller = self.ctx.enclosing_function(site)
            if self._back_propagated(caller if caller is not None else self.ctx.module, site) or (
                    caller is not None and self._kept_for_training(caller, site, seen)):
                return True
        return False

    def _back_propagated(self, function: cst.FunctionDef | cst.Module, site: cst.Call) -> bool:
        """What `site` gives may be back-propagated in `function`: a backward (or a call of
        code that back-propagates) reads it, or a variable bound from it, in code that may
        run after it (a training step elsewhere in the epoch loop around `site` is no
        such reader: `valid_loss = valid_epoch(model, loader)` beside `train_epoch(...)`)."""
        for node in self._flow_of(function, site)[0].values():
            if type(node) is not cst.Call:
                continue
            summary = self.ctx.summaries.of_unwalked_call(node)
            if is_backward(node) or self._helper_needs_graph(node) or (summary is not None and summary.does(BACKWARD)):
                return True
        return False

    def _flow_of(self, function: cst.FunctionDef | cst.Module,
                 site: cst.Call) -> tuple[dict[int, cst.CSTNode], set[str]]:
        """The nodes of `function`'s code that may run after `site` (see `_runs_after_from`)
        and read what it gives, by id: the call itself, or a variable bound from it by an
        assignment, a walrus or a `for`, and every node around such a read; and those
        variables. Read once per call and function."""
        key = (function, site)
        if key not in self._flows:
            start = self._runs_after_from(function, site)
            around = {id(node) for node in (site, *ancestors_within(self.ctx, site, function))}
            held = self._held_from(function, start, around)
            by_name = self._names_of(function)
            readers: dict[int, cst.CSTNode] = {}
            for read in (site, *(n for name in held for n in by_name.get(name, ()) if self.ctx.order_index(n) >= start)):
                for node in (read, *ancestors_within(self.ctx, read, function)):
                    if self.ctx.order_index(node) < start or id(node) in readers:
                        break
                    readers[id(node)] = node
            self._flows[key] = (readers, held)
        return self._flows[key]

    def _held_from(self, function: cst.FunctionDef | cst.Module, start: int, around: set[int]) -> set[str]:
        """The variables of `function` bound, at or after `start`, from the call whose
        ancestors are `around` or from such a variable (`out = predict(...)`, `if (out :=
        ...)`, `for i, p in enumerate(...)`, then `outs = [out, 0]`)."""
        binders = [b for b in self._binders_of(function) if b[0] >= start]
        held: set[str] = set()
        changed = True
        while changed:
            changed = False
            for _, value, reads, bound in binders:
                if not bound <= held and (id(value) in around or reads & held):
                    held |= bound
                    changed = True
        return held

    def _binders_of(self, function: cst.FunctionDef | cst.Module
                    ) -> list[tuple[int, cst.CSTNode, frozenset[str], frozenset[str]]]:
        """Each assignment, walrus and `for` of `function`'s code: its place in source order,
        the value it binds (a `for`: what it iterates), the names that value reads, and the
        names it binds. Read once per function."""
        if function not in self._binders:
            found = []
            for node in self._code_of(function):
                if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For):
                    value = node.iter if type(node) is cst.For else node.value  # type: ignore[attr-defined]
                    if value is None:
                        continue
                    reads = frozenset(n.value for n in self.ctx.subtree(value) if type(n) is cst.Name)  # type: ignore[attr-defined]
                    bound = frozenset().union(*(target_names(t) for t in assignment_targets(node)))
                    found.append((self.ctx.order_index(node), value, reads, bound))
            self._binders[function] = found
        return self._binders[function]

    def _names_of(self, function: cst.FunctionDef | cst.Module) -> dict[str, list[cst.Name]]:
        """The names `function`'s code spells, each with where: read once per function."""
        if function not in self._names:
            spelled: dict[str, list[cst.Name]] = {}
            for node in self._code_of(function):
                if type(node) is cst.Name:
                    spelled.setdefault(node.value, []).append(node)
            self._names[function] = spelled
        return self._names[function]

    def _code_of(self, function: cst.FunctionDef | cst.Module) -> Sequence[cst.CSTNode]:
        """The nodes of a function's body (nested code included), or of the module's own code."""
        return self.ctx.subtree(function.body) if type(function) is cst.FunctionDef else self.ctx.own_nodes(function)

    def _kept(self, function: cst.FunctionDef | cst.Module, site: cst.Call) -> bool:
        """What `site` gives (or a variable bound from it) is kept where other code may read
        it: stored on an attribute or in a container (`self.cache = ...`, `ds[i] = p`),
        added in place to a variable (`bank += preds` extends a list that a loader may
        hold), handed to any call but one that only reads (`print(...)`, `len`, logging:
        a function of the project may store it anywhere, `ds.set_labels(preds)`; a torch
        function given `out=` writes into a buffer), returned or yielded, or bound to a
        variable that other code reads (a global, or a variable of the function that a
        function defined in it reads)."""
        readers, held = self._flow_of(function, site)
        for node in readers.values():
            if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign) and id(node.value) in readers \
                    and (type(node) is cst.AugAssign
                         or any(type(part) is not cst.Name  # type: ignore[attr-defined]
                                for target in assignment_targets(node) for part in unpacked(target))):
                return True
            if type(node) is cst.Call and any(id(arg.value) in readers for arg in node.args) \
                    and not reads_only(self.ctx, node):
                return True
            if type(node) in (cst.Return, cst.Yield) and node.value is not None and id(node.value) in readers:  # type: ignore[attr-defined]
                return True
        return any(self._shared_variable(function, site, name) for name in held)

    def _shared_variable(self, function: cst.FunctionDef | cst.Module, at: cst.CSTNode, name: str) -> bool:
        """`name`, a variable bound in `function`'s code at `at`, is one that other code may
        read: a global (declared so, or a variable of the module that a function or class of
        it reads: see `own_variable`), or one that a function, lambda or class defined in
        `function` reads."""
        if type(function) is cst.Module:
            return not own_variable(self.ctx, at, name)
        return name in self.ctx.scopes.scope_for(function).declared_outer or self._read_by_inner_function(function, name)

    def _read_by_inner_function(self, function: cst.FunctionDef, name: str) -> bool:
        """A function, lambda or class defined in `function` reads its variable `name`."""
        return any(self.ctx.enclosing_function(node) is not function
                   or any(type(a) in (cst.Lambda, cst.ClassDef) for a in ancestors_within(self.ctx, node, function))
                   for node in self._names_of(function).get(name, ()))

    def _looked_at_in_training(self, call: cst.Call, loop: Loop) -> bool:
        """`loop`, which runs `call`, lies in a look at the model now and then (see
        `_evaluation_block`) inside the innermost training loop around it (`if step % 500
        == 0: model.eval(); for x in val_loader: ...; model.train()`)."""
        outer = repeating_loop(self.ctx, loop)
        while outer is not None and not self._loop_needs_graph(outer):
            outer = repeating_loop(self.ctx, outer)
        return outer is not None and self._evaluation_block(call, outer, loop)

    def _loop_needs_graph(self, loop: Loop) -> bool:
        """`_needs_graph` of the loop's body, worked out once per loop: every forward of
        every loop inside asks it of the loops around (linear, not quadratic, in a long
        training loop of many inner loops)."""
        if loop not in self._training_loops:
            self._training_loops[loop] = self._needs_graph(loop_body(loop))
        return self._training_loops[loop]

    def _forward_without_grad(self, call: cst.Call) -> bool:
        """The model's own `forward` runs what this call asks of it under no_grad
        (`model(data, mode="inference")`), in a class of this file or of the project."""
        summary = self.ctx.summaries.of_call(call)
        return summary is not None and runs_without_grad(summary, call)

    def _evaluation_block(self, call: cst.Call, loop: Loop, inner: Loop | None = None) -> bool:
        """A look at the model now and then inside the training loop (`if t % 10 == 0:
        net.eval(); pred = net(test_x); print(...); net.train()`): the call (or the
        `inner` loop that runs it) sits in an `if` of the loop that puts the model back in
        train mode after it (or the loop's first statement does, every iteration, or a
        training step the loop calls before the `if` starts so: see `_starts_in_train_mode`),
        runs no backward or step, and binds nothing the loop reads after the `if`."""
        block = next((a for a in self.ctx.ancestors(inner or call) if type(a) is cst.If), None)
        if block is None or not any(a is loop for a in self.ctx.ancestors(block)) or self._needs_graph(block):
            return False
        model = next((f for f in self._models_called(call.func)), None)
        at = self.ctx.order_index(call)
        def puts_back(node: cst.CSTNode) -> bool:
            mode = self._switch(node)
            return (mode is not None and mode[1] is not False and model is not None
                    and self.ctx.code(mode[0]) == self.ctx.code(model))

        restored = any(self.ctx.order_index(node) > at and puts_back(node) for node in self.ctx.subtree(block))
        # or at the top of every iteration, before anything else (`for ...: model.train()`)
        body = loop.body.body if type(loop.body) is cst.IndentedBlock else ()
        first = body[0] if body else None
        restored = restored or (type(first) is cst.SimpleStatementLine and len(first.body) == 1
                                and type(first.body[0]) is cst.Expr and puts_back(first.body[0].value))
        # or by a training step called every iteration before the `if`, which starts so
        # (`train_step(model, ...)` of a `def train_step(model, ...): model.train()`)
        if not restored and model is not None:
            held = (block, *self.ctx.ancestors(block))
            before = body[:next((i for i, s in enumerate(body) if any(a is s for a in held)), 0)]
            restored = any(self._starts_in_train_mode(step, self.ctx.code(model)) for step in before)
        if not restored or grad_mode_at(self.ctx, call) is not None or self._forward_without_grad(call):
            return False
        # what the `if` binds, read elsewhere in the loop, after the `if` or before it on the
        # next pass (`target = model(x_ref)` that the step before the `if` trains on): the
        # graph may be used; but a read before the `if` that the pass itself binds first
        # (`seq, labels = next(dl)`) reads that pass's value, not the look's
        start, end = self.ctx.order_index(block), self.ctx.subtree_end(block)
        bound: set[str] = set()
        first_bound: dict[str, int] = {}  # where the pass first binds each name before the `if`
        reads: list[tuple[str, int]] = []  # the names the loop reads outside the `if`, and where
        for node in self.ctx.subtree(loop.body):  # the `if` lies in the loop's body
            at = self.ctx.order_index(node)
            if not start <= at <= end:
                if type(node) is cst.Name:
                    reads.append((node.value, at))
                elif at < start and type(node) in (cst.Assign, cst.AnnAssign, cst.For):
                    for name in (n for target in assignment_targets(node) for n in target_names(target)):
                        first_bound[name] = min(first_bound.get(name, start), at)
            elif type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr):
                for target in assignment_targets(node):
                    if type(target) is not cst.Name and type(target) not in (cst.Tuple, cst.List):
                        return False  # kept in an attribute or a container (`self.aux = model(x)`): read anywhere
                    bound |= target_names(target)
            elif type(node) is cst.Call and method_call(node, *STORING_METHODS) is not None:
                return False  # `history.append(model(x))`: kept past the `if`
        return not any(name in bound and (at > end or first_bound.get(name, start) > at) for name, at in reads)

    def _starts_in_train_mode(self, statement: cst.BaseStatement, model: str) -> bool:
        """`statement` calls (alone, or to bind what it returns) a function of the file, or a
        method on `self`, whose first statement puts `model` (as the caller writes it) in
        train mode, whatever its arguments."""
        call = _statement_call(statement)
        callee = self.ctx.local_callee(call) if call is not None else None
        statements = callee.body.body if callee is not None and type(callee.body) is cst.IndentedBlock else ()
        first = next((s for s in statements if not is_docstring(s)), None)
        if type(first) is not cst.SimpleStatementLine or type(first.body[0]) is not cst.Expr:
            return False
        mode = self._switch(first.body[0].value)
        return (mode is not None and mode[1] is True
                and as_caller_writes(self.ctx, call, callee, self.ctx.code(mode[0])) == model)  # type: ignore[arg-type]

    def _function_needs_graph(self, function: cst.FunctionDef | cst.Module, call: cst.Call,
                              evaluated: Facts = frozenset(), besides: cst.FunctionDef | None = None) -> bool:
        """Whether the function (or the module's own code) back-propagates or steps other
        than in loops of its own that do not hold the call: a backward after the loop of
        forwards may use their graphs; a training loop beside the evaluation loop (both in
        an epoch loop) does not, nor does what runs before the call outside every loop
        around it (a training step, then a look at the model every N steps), unless what
        the call gives outlives the function's call (see `outlives_call`: returned, kept
        on `self`), which its caller may back-propagate before it runs the function again.
        `evaluated`: the models in eval mode at `call`. Calls of `besides` do not count (a
        function serving both phases, called to train too)."""
        return self._graph_users(function, call, evaluated, besides)[0]

    def _graph_users(self, function: cst.FunctionDef | cst.Module, call: cst.Call,
                     evaluated: Facts = frozenset(), besides: cst.FunctionDef | None = None) -> tuple[bool, bool]:
        """`_function_needs_graph`, then the same with the calls that run a training phase of
        their own (see `_training_phase`) left out."""
        around = {id(ancestor) for ancestor in self.ctx.ancestors(call)}
        innermost = self._innermost_loops(function, self._code_of(function))
        start = self._runs_after_from(function, call)
        # only the call itself is known to run with the model in eval mode
        users = [user for user in self._graph_nodes(function) if user[0] is not call]
        users += self._graph_nodes_at(call, evaluated)
        before = before_besides_phases = after = False
        for node, callee, phase in users:
            loop = innermost[id(node)]
            # in a loop (or a loop itself) that does not hold the call
            if (loop is not None and id(loop) not in around) or (besides is not None and callee is besides):
                continue
            if self.ctx.order_index(node) >= start:
                if not phase:
                    return True, True
                after = True
            else:
                before = True
                before_besides_phases |= not phase
        outlives = before and type(function) is cst.FunctionDef and outlives_call(self.ctx, function, call)
        return after or outlives, before_besides_phases and outlives

    def _graph_nodes(self, function: cst.FunctionDef | cst.Module
                     ) -> list[tuple[cst.CSTNode, cst.FunctionDef | None, bool]]:
        """The nodes of `function`'s code (the module's own code: not its functions') that
        back-propagate, step or clear gradients, or call a function of the file that does,
        each with the function it calls and whether it runs a training phase of its own (see
        `_training_phase`). Read once per function."""
        if function not in self._graph_nodes_of:
            self._graph_nodes_of[function] = [user for node in self._code_of(function)
                                              for user in self._graph_nodes_at(node)]
        return self._graph_nodes_of[function]

    def _graph_nodes_at(self, node: cst.CSTNode, evaluated: Facts = frozenset()
                        ) -> list[tuple[cst.CSTNode, cst.FunctionDef | None, bool]]:
        """`node` as `_graph_nodes` lists it, with the models of `evaluated` in eval mode:
        not at all where it needs no graph."""
        callee = self.ctx.local_callee(node)
        # a call whose flag skips what needs a graph (`log_metrics(model, y, train=False)`) needs none
        if self._uses_graph(node, handing=False, evaluated=evaluated) or (
                callee is not None and self._body_of_needs_graph(callee) and self._run_by_flag(node) is None):
            return [(node, callee, self._training_phase(node))]
        return []

    def _training_phase(self, node: cst.CSTNode) -> bool:
        """`node` calls a function of the project that puts a model in train mode itself and
        trains it (`train_one_epoch(model, loader, optimizer)` of a `def train_one_epoch(...):
        model.train(); ...`): a phase of its own, as its summary tells."""
        summary = self.ctx.summaries.of_call(node) if type(node) is cst.Call else None
        return summary is not None and summary.does(TRAIN)

    def _innermost_loops(self, function: cst.FunctionDef | cst.Module,
                         nodes: Sequence[cst.CSTNode]) -> dict[int, cst.CSTNode | None]:
        """The innermost `for` / `while` statement around each of the function's `nodes`
        (in source order), itself for a loop: worked out once per function, which every
        forward in it asks `_function_needs_graph` about."""
        if function not in self._loops_within:
            innermost: dict[int, cst.CSTNode | None] = {}
            for node in nodes:
                innermost[id(node)] = node if type(node) in (cst.For, cst.While) \
                    else innermost.get(id(self.ctx.parent(node)))
            self._loops_within[function] = innermost
        return self._loops_within[function]

    def _runs_after_from(self, function: cst.FunctionDef | cst.Module, call: cst.Call) -> int:
        """Where, in source order, the code of `function` that may run after `call` starts:
        its outermost loop in the function, or else the statement holding it (a backward of
        what it gives, `evaluate(model, loader).backward()`, runs after it)."""
        within = ancestors_within(self.ctx, call, function)
        loops = [a for a in within if type(a) in (cst.For, cst.While)]
        return self.ctx.order_index(loops[-1] if loops else next(a for a in within if isinstance(a, cst.BaseStatement)))

    def _needs_graph(self, root: cst.CSTNode, evaluated: Facts = frozenset()) -> bool:
        """Whether running `root` back-propagates, steps or clears gradients, in it or
        in the functions of the file it calls, with the models of `evaluated` (as `root`'s
        function spells them) in eval mode."""
        home = self.ctx.enclosing_function(root)
        return any(self._uses_graph(node, evaluated=evaluated if self.ctx.enclosing_function(node) is home else frozenset())
                   for node in reachable_nodes(self.ctx, root))

    def _uses_graph(self, node: cst.CSTNode, handing: bool = True, evaluated: Facts = frozenset()) -> bool:
        """`handing`: an optimizer handed to code out of sight counts (in the loop; the
        function around it builds and hands its optimizer to `accelerator.prepare()`,
        a scheduler, the training loop beside). A call of a model of `evaluated` in eval
        mode (`trainer(x)`, `trainer.forward(x)`) whose method back-propagates and steps
        only under `if self.training:` needs no graph."""
        if is_backward(node) or self._clears(node) or self._training_step(node):
            return True
        if type(node) is not cst.Call:
            return False
        if self.ctx.call_name(node) in _GRAPH_USERS:
            return True
        # a helper object's method, or another module's function (`stepper.apply(loss, opt)`)
        summary = self.ctx.summaries.of_unwalked_call(node)
        if summary is not None:
            if summary.graph_when_training and _receiver(self.ctx, node) in evaluated:
                return False
            return any(summary.does(effect) for effect in (BACKWARD, STEP, ZERO_GRAD, MAY_ZERO_GRAD))
        # code out of sight handed an optimizer may step it (`backward_and_step(loss, optimizer)`)
        return handing and hands_an_optimizer(self.ctx, node)


    def _clears(self, node: cst.CSTNode) -> bool:
        """Clearing gradients, except a model's own `zero_grad()` where that model is put
        in eval mode in the file: a habit of evaluation code, which neither steps nor
        back-propagates (an optimizer's `zero_grad()` still marks a training loop)."""
        if not clears_grads(self.ctx, node):
            return False
        cleared = method_call(node, "zero_grad")
        if type(cleared) is cst.Attribute and cleared.attr.value == "module":
            cleared = cleared.value  # `model.module.zero_grad()` of a DDP-wrapped model
        return cleared is None or _last_name(cleared) not in self._switched or is_optimizer(self.ctx, cleared)

    def _training_step(self, node: cst.CSTNode) -> bool:
        """`x.step()` that may step an optimizer: not one of a scheduler the file
        builds (`scheduler.step()` after the evaluation loop), nor an environment's."""
        stepped = method_call(node, "step")
        return stepped is not None and scheduler_step(self.ctx, node) is None and not self._environment(stepped)

    def _environment(self, receiver: cst.BaseExpression) -> bool:
        """`envs` built only by an environment package (`gym.vector.SyncVectorEnv(...)`,
        `gym.make(...)`) or by a factory named so (`make_vec_envs(...)` of the project):
        its `step(actions)` is a rollout's, not a training step."""
        binding = self.ctx.receivers.binding(receiver)
        values = self.ctx.receivers.assigned(binding) if binding is not None else []
        packages = tuple(f"{package}." for package in _ENVIRONMENT_PACKAGES)
        return bool(values) and all(type(value) is cst.Call and (
            (self.ctx.qualified_name(value.func) or "").startswith(packages)
            or _ENVIRONMENT_FACTORY.match(_called_name(value.func)) is not None) for value in values)


# how deep calls of helpers from an evaluation loop are followed to a forward
_MAX_HELPER_DEPTH = 3



def _forward_methods(ctx: FileContext) -> frozenset[str]:
    """Methods that run a module's layers like its `forward` does (see `runs_layers`),
    defined once in the file."""
    return frozenset(
        method.name.value for method in ctx.nodes_of(cst.FunctionDef)
        if len(ctx.scopes.functions.get(method.name.value, ())) == 1 and runs_layers(ctx, method)  # type: ignore[arg-type]
    )


def _called_name(func: cst.BaseExpression) -> str:
    """`make_env` of `make_env(...)` and of `envs.make_env(...)`."""
    return func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""


def _last_name(expr: cst.BaseExpression) -> str | None:
    """`model` for `self.model` or `model`: the code of two such expressions
    can only be equal when these are."""
    if type(expr) is cst.Attribute:
        return expr.attr.value
    return expr.value if type(expr) is cst.Name else None


def _frozen_models(ctx: FileContext) -> set[Binding | str]:
    """Models whose parameters were all set not to require grad:
    `m.requires_grad_(False)` (also chained: `m.eval().requires_grad_(False)`,
    `m = Net().requires_grad_(False)`), a copy of one made after (`m_ema =
    copy.deepcopy(m).eval()`), and `for p in m.parameters():` /
    `for name, p in m.named_parameters():` setting `p.requires_grad = False`
    or calling `p.requires_grad_(False)`. Keyed by variable where one is
    known, so a model frozen in one function says nothing of a namesake in
    another."""
    frozen: set[Binding | str] = set()
    classes = _frozen_classes(ctx)
    for node in ctx.nodes_of(cst.Call, cst.Assign, cst.For):
        if type(node) is cst.Call and _freezes(node) is not None:
            frozen.add(_model_key(ctx, unchain_module(_freezes(node))))  # type: ignore[arg-type]
        elif type(node) is cst.Assign and (_freezes(node.value) is not None or _built_from(node.value, classes)
                                           or _copies_frozen(ctx, node.value, frozen)):
            for target in node.targets:
                frozen.add(_model_key(ctx, target.target))
        elif type(node) is cst.For:
            owner = method_call(node.iter, "parameters", "named_parameters")
            if owner is not None and _freezes_each(node):
                frozen.add(_model_key(ctx, unchain_module(owner)))
    return frozen


def _frozen_classes(ctx: FileContext) -> set[str]:
    """Classes of the file whose constructor freezes the parameters of what it builds:
    `self.requires_grad_(False)` or a loop over `self.parameters()` setting
    `requires_grad = False` (also under a condition, as a `requires_grad=False`
    argument asks), or one that keeps only instances of such classes (a perceptual
    loss holding a frozen VGG; an attribute built as one of several classes by a
    flag counts when one of them is) and tensors, and builds no layer of its own."""
    inits = {cls.name.value: init for cls in ctx.nodes_of(cst.ClassDef)  # type: ignore[attr-defined]
             for init in cls.body.body  # type: ignore[attr-defined]
             if type(init) is cst.FunctionDef and init.name.value == "__init__"}
    frozen: set[str] = set()
    for name, init in inits.items():
        for node in ctx.subtree(init.body):
            receiver = _freezes(node) if type(node) is cst.Call else None
            owner = (method_call(node.iter, "parameters", "named_parameters")  # type: ignore[attr-defined]
                     if type(node) is cst.For and _freezes_each(node) else None)
            if any(x is not None and receiver_method(ctx, x) is init for x in (receiver, owner)):
                frozen.add(name)
                break
    changed = True
    while changed:  # classes that keep only frozen ones
        changed = False
        for name, init in inits.items():
            if name in frozen:
                continue
            # what each attribute of `self` may be built as (`self.net = vgg16(...)` or
            # `alexnet(...)`, by a flag: frozen when one of them is, the flag unknown)
            built: dict[str, list[cst.Call]] = {}
            for node in ctx.subtree(init.body):
                if type(node) is cst.Assign and type(node.value) is cst.Call:  # type: ignore[attr-defined]
                    for t in node.targets:  # type: ignore[attr-defined]
                        if type(t.target) is cst.Attribute and receiver_method(ctx, t.target.value) is init:
                            moved = unchain_module(node.value)  # type: ignore[attr-defined]
                            if type(moved) is cst.Attribute and ctx.code(moved) == ctx.code(t.target):
                                continue  # `self.shift = self.shift.cuda()`: what it was
                            built.setdefault(t.target.attr.value, []).append(node.value)  # type: ignore[attr-defined]
            kinds = [any(_built_from(v, frozen) for v in values) or all(_makes_a_tensor(ctx, v) for v in values)
                     for values in built.values()]
            if kinds and all(kinds) and any(any(_built_from(v, frozen) for v in values) for values in built.values()):
                frozen.add(name)
                changed = True
    return frozen


def _copies_frozen(ctx: FileContext, value: cst.BaseExpression, frozen: set[Binding | str]) -> bool:
    """`value` copies a model frozen before it (`copy.deepcopy(G).eval()` of a `G =
    Net().requires_grad_(False)`): the copy's parameters do not require grad either,
    unless the chain turns them on again (`.requires_grad_()`, `.requires_grad_(True)`)."""
    link = value
    while (receiver := method_call(link, *MODULE_CHAIN)) is not None:
        if method_call(link, "requires_grad_") is not None and not _freezes(link):
            return False
        link = receiver
    value = unchain_module(value)
    return type(value) is cst.Call and ctx.qualified_name(value.func) == "copy.deepcopy" and bool(value.args) \
        and _model_key(ctx, value.args[0].value) in frozen


def _built_from(value: cst.BaseExpression, classes: set[str]) -> bool:
    """`value` builds an instance of one of `classes` (moved: `PNet().to("cuda")`)."""
    value = unchain_module(value)
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value in classes


def _makes_a_tensor(ctx: FileContext, value: cst.Call) -> bool:
    """A tensor, not a layer (`torch.Tensor([...]).view(1, 3, 1, 1)`, `torch.zeros(3)`)."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute and ctx.call_name(value) is None:
        value = value.func.value  # type: ignore[assignment]
    name = ctx.call_name(value) if type(value) is cst.Call else None
    return name is not None and name.startswith("torch.") and not name.startswith("torch.nn.")


def _freezes(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The receiver of `x.requires_grad_(False)`, possibly followed by
    `.eval()` / `.to(...)`-style calls (`x.requires_grad_(False).eval()`)."""
    while type(node) is cst.Call:
        receiver = method_call(node, "requires_grad_")
        if receiver is not None:
            return receiver if node.args and is_constant(node.args[0].value, "False") else None
        inner = method_call(node, *MODULE_CHAIN)
        if inner is None:
            return None
        node = inner
    return None


def _freezes_each(loop: cst.For) -> bool:
    """The body sets `requires_grad` off on the loop's (last) target."""
    target = loop.target
    if type(target) is cst.Tuple and target.elements:
        target = target.elements[-1].value
    if type(target) is not cst.Name:
        return False
    for node in iter_nodes(loop.body):
        if type(node) is cst.Assign and is_constant(node.value, "False"):
            for t in node.targets:
                lhs = t.target
                if type(lhs) is cst.Attribute and lhs.attr.value == "requires_grad" and _is_name(lhs.value, target):
                    return True
        receiver = _freezes(node) if type(node) is cst.Call else None
        if receiver is not None and _is_name(receiver, target):
            return True
    return False


def _is_name(expr: cst.BaseExpression, name: cst.Name) -> bool:
    return type(expr) is cst.Name and expr.value == name.value


def _model_key(ctx: FileContext, expr: cst.BaseExpression) -> Binding | str:
    binding = ctx.receivers.binding(expr)
    return binding if binding is not None else ctx.code(expr)


def _receiver(ctx: FileContext, call: cst.Call) -> str:
    """The object a call runs a method of, as written: `trainer` of `trainer.forward(x)`
    and of `trainer(x)`."""
    return ctx.code(call.func.value if type(call.func) is cst.Attribute else call.func)  # type: ignore[attr-defined]


def _statement_call(statement: cst.BaseStatement) -> cst.Call | None:
    """The call a statement is, alone or bound to names (`run_batch(x, y, False)`,
    `loss = run_batch(x, y, False)`)."""
    small = statement.body[0] if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 else None
    value = small.value if type(small) in (cst.Expr, cst.Assign) else None  # type: ignore[union-attr]
    return value if type(value) is cst.Call else None


def _loads_pretrained(call: cst.Call) -> bool:
    """`AutoModel.from_pretrained(path)`: a Hugging Face model, returned in eval mode."""
    return type(call.func) is cst.Attribute and call.func.attr.value == "from_pretrained"

