import libcst as cst

from trainlint.analysis.flow import Facts
from trainlint.analysis.loops import CallFlow, grad_mode_at, is_backward, lexical_grad_mode, mode_switch, optimizer_step
from trainlint.analysis.phases import Flags, fixed_flags, flag_parameters, ruled_out
from trainlint.analysis.scopes import argument_slots
from trainlint.analysis.receivers import Binding
from trainlint.analysis.trained_models import construction_of_receiver, trained_models
from trainlint.analysis.training import MODULE_CHAIN, code_bodies, method_call, module_behind, replaced_parameter
from trainlint.rule import Rule
from trainlint.rules._missing_train_mode_built import left_in_eval_by_the_script, left_in_eval_mode, new_module
from trainlint.rules._missing_train_mode_calls import (
    evaluated_held_models,
    handed_away,
    evaluated_object,
    evaluated_own_models,
    mode_setting_calls,
)
from trainlint.rules._missing_train_mode_models import trained_receiver
from trainlint.rules._missing_train_mode_switches import (
    after_backward_in_a_loop,
    container_switched,
    each_item_put_back,
    every_n_steps,
    mode_saved_and_restored,
    one_of_its_layers,
    train_mode_methods,
)
from trainlint.summaries import BACKWARD, EVAL, STEP, TRAIN, Summary

_EVAL = "eval"
# pending evals of one model the walk carries, apart from their eval node (see `MissingTrainMode._bounded`)
_PENDING_PER_MODEL = 4


class MissingTrainMode(Rule):
    """
    ## What it does
    Flags a `.eval()` call (or `.train(False)`) made for validation inside a
    training loop when the loop goes back to training, on some path, with
    no `.train()` / `.train(True)` in between. The loop may be split across
    the functions of the file: `train_one_epoch()` and `validate()` called
    from the epoch loop of `main()` are followed. Also flags a model that a
    class puts in eval mode where it sets it up (`self.model =
    Net().eval()` in `__init__`, or `self.model.eval()` in a method that its
    training method calls first, `self.setup()`) and trains in a loop of
    another method (run forward with gradients, back-propagated, an
    optimizer that the class builds for it stepped), when nothing may put
    it back in train mode: no code of the file calls `.train()` on it or on
    anything of its name, and the class on nothing but a module it builds
    itself (`self.head = nn.Linear(...)`). Not when the model, or an
    attribute of its name outside the class (`trainer.net`), is handed to
    a call (`set_train(self.net)`), walked (`.modules()`, `.apply(...)`)
    or kept under another name, the instance is handed on
    (`callback(self)`), the class or its training method is decorated,
    the class has base classes (their methods may switch modes) or
    subclasses in the file, the `.eval()` runs under a condition, a
    method assigns the model anew, or the class freezes the model's
    parameters (a linear probe; a frozen teacher's or an input's
    `requires_grad` is not the model's). So does a script that puts a name
    of the module in eval mode in a statement of the module's own code (`model =
    Net().eval()`, or `model.eval()`; the body of an `if __name__ ==
    "__main__":` block goes on from that code) and trains it in a later loop
    of that code (a forward with gradients, a backward, a step of an
    optimizer handed all its parameters, `model.parameters()` itself or as
    a parameter group's `params`: not a frozen teacher, nor a backbone under
    a probe whose optimizer holds a part of it or a selection of its
    parameters, `list(model.parameters())[-2:]`), and a function that does the
    same in statements of its own body with a model it builds: a class of
    `torch.nn`, a model of torchvision or timm or a class of the file or of
    another module of the project that derives from `nn.Module` (`from
    models import Net`), moved or wrapped (`model = Net()`,
    `DDP(Net().cuda())`, `resnet18().eval()`), also sized by the function's
    parameters known to be settings (`nn.Linear(512, hidden)` of `hidden:
    int`, or of any `hidden` passed by position for a size of a layer of
    `torch.nn`, `Net(width)` of `width=64`, `resnet18(num_classes=classes)`); not
    a parameter, a global, one read from an attribute
    (`DataParallel(self.model)`), a wrapper of a parameter that may be a
    module (`Wrapper(backbone)`, `FasterRCNN(backbone, num_classes=3)`,
    `ConvBn2d(conv, bn)`, `nn.Sequential(head)` of `head=0`), nor one a call returns
    (`self.build_model()`, `get_model("resnet")`) or a class the project
    does not hold builds, which other code may switch. Only when
    the file puts nothing in train mode and freezes none of the model's
    parameters (`for p in model.parameters(): p.requires_grad = False`,
    `model.requires_grad_(False)`: a linear probe keeps its backbone in
    eval mode on purpose; `requires_grad = True` freezes nothing), the name
    is only run forward, read or moved (`model = model.to(device)`): not handed to a
    call (`prepare(model)`), walked, kept under another name or assigned
    anew after the `.eval()`, and the file runs no code from text
    (`exec(...)`, `eval(...)`). An `.eval()` under a condition (`if
    args.freeze_bn: model.eval()`) is not read there.

    ## Why is this bad?
    `eval()` switches dropout off and makes BatchNorm use its running
    statistics instead of the batch's. If nothing switches the model back,
    every epoch after the first validation trains without dropout and with
    frozen normalization statistics: the model overfits or stalls, and no
    error says why.

    ## Example
    ```python
    import torch
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            validate(model, val_loader)
    ```

    ## Use instead
    ```python
    for epoch in range(epochs):
        model.train()
        train_one_epoch(model, train_loader, optimizer)
        model.eval()
        validate(model, val_loader)
    ```

    ## Fix safety
    No fix: `model.train()` belongs at the start of the training phase,
    which may be in another function than the `.eval()`.

    ## Limitations
    Any `.train()` counts, whatever model it is called on, also through a
    chain (`model.to(device).train()`), and so does a call of a method,
    the file's only function of its name, that calls `.train()` itself
    (`discriminator.train_custom()` putting its trainable head back in train
    mode); `trainer.train(epoch)` of a `trainer = Trainer(...)` whose class,
    in this file and with no base class, has a `train` method of its own is
    that method, not a mode switch. An `.eval()` followed by a backward
    pass in the same iteration (BatchNorm frozen on purpose, a frozen teacher)
    is not flagged, unless it runs every N steps (under an `if` that tests a
    remainder, `step % eval_interval == 0`, there or at the call of its
    function: validation), nor is one of layers picked from a model's `modules()` or
    `children()` (`for m in model.modules(): if isinstance(m, nn.BatchNorm2d):
    m.eval()`: some layers frozen while the rest trains), and a later `.eval()`
    of the same model replaces an
    earlier one (a linear probe whose training step puts the backbone in eval
    mode on purpose). Only models the file trains count: put in train mode
    somewhere, their parameters read (for an optimizer), handed to an
    optimizer factory, or run in a forward pass that is back-propagated (not
    one assigned under `torch.no_grad()`: a frozen teacher's targets), also
    by a function of the file whose result is (`loss = self._forward(x)`
    returning `self.model(x).mean()`, a helper handed the model; not what it
    returns under `torch.no_grad()`); a constructor's parameter counts as the
    attribute of `self` it is kept in (`self.model = model` beside
    `SGD(model.parameters())`), and a model handed to the constructor of an
    object of a class of the project counts when that constructor hands its
    `.parameters()` (or those of the attribute it keeps it in) to an optimizer
    it builds and the file calls a method of the object that steps
    (`agent = PPO(actor_critic)`, then `agent.update(rollouts)`), not one the
    object only keeps (a DQN's target network); an EMA copy that only samples
    is left alone, and so is a parameter the function rebinds, before its
    `.eval()`, to another object than the model it was given (`model =
    copy.deepcopy(model)`); moved, unwrapped, wrapped or copied shallowly
    (`model.to(device)`, `model.module`, `DDP(model)`, `copy.copy(model)`,
    whose submodules are the model's own), it is still that model. A model put back in train mode
    only on some branches of an `if` (`if finetune: model.train() elif freeze:
    model.eval()`) is still flagged when no branch covers every case; an
    `else: assert False` ends the other cases, as a `raise` does (an `assert`
    that can pass does not). Evaluation and training that are never reached
    from one code path of the file (functions called only from other modules)
    are not connected. A function of another module that puts a model it is
    given in eval mode (`evaluate(model, loader)` of `engine.py`) counts as an
    `.eval()` at its call, reported there, and one that calls `.train()`
    (`train_one_epoch()` starting with `model.train()`) as a `.train()`;
    the model must be one this file steps (put in train mode, or its
    parameters given to an optimizer, also through a call that builds its
    parameter groups: `AdamW(param_groups_lrd(model, wd))`), not only one it
    runs forward. A model handed to a function that the file imports and no
    module of the project tells (a library's `enable_training(model)`, a
    module out of reach, or a function of the project that hands it on to
    one: `helpers.prepare(model)` calling `dropout_tools.configure(model)`)
    may be put back in train mode there: no `.eval()` of it is reported past
    that call. The model itself counts, a part of it (`model.backbone`), a
    name it was assigned to (`net = model`) and a list or tuple written in
    the call (`[model]`), not what is read from it
    (`save_file(model.state_dict(), path)`); torch's and Python's own functions, and methods of objects
    (`ema.update(model)`), are no such calls. So does
    a method inherited from another module's class that puts an attribute of
    `self` in eval mode (`self.evaluate()` running `self.model.eval()`),
    called on `self`, and a method of an object built from the model
    (`evaluator = Evaluator(model, val_loader)`) that puts the `self.model`
    its constructor keeps in eval mode (`evaluator.run()`, or
    `Evaluator(model).run()` built in place). An `.eval()` whose function
    saved the mode before it (`was_training = model.training`) and puts it
    back after it (`if was_training: model.train()`, also in a `finally:`, or
    `model.train(was_training)`) leaves the model in the mode it came in, when
    the restore always runs after it: in a block around it with no `return`,
    `raise`, `break` or `continue` written between, or in a `finally:`.
    A model kept in a container (`self.model["generator"].eval()`, or each
    one: `for key in self.model: self.model[key].eval()`) counts when the
    container is trained as written (an item of it run in a back-propagated
    forward makes the whole container trained: a frozen teacher kept beside
    the trained models in one dict is not told apart). A loop over the
    container's keys, values or items that calls `.train()` on the item of
    every iteration (`for key in models: models[key].train()`, `for m in
    models.values(): m.train()`) puts back every item switched, by key or in
    such a loop, wherever a `.train()` would: after the `.eval()`, at the top
    of the next epoch, in a function called; the path that skips its body is
    not taken (the container holds the item switched). A `.train()` under an
    `if` of its body (`if key == "discriminator":`), or after a `break` there,
    does not put back every item. A local name the evaluating function binds
    to the model counts as the model: in one assignment (`net = model.module`,
    `net = ema if use_ema else model`) or in each arm of an `if` statement
    (`if use_ema: net = ema` / `else: net = model`, also unwrapped there:
    `net = net.module`); a name assigned twice one after the other (`net =
    model`, then `net = copy.deepcopy(net)`) is not followed. A module that
    trains itself (a GAIL discriminator: its constructor hands its own layers'
    parameters, or all of its own, `self.parameters()`, to an optimizer,
    `update()` steps it) and puts itself in eval
    mode in another method (`predict_reward()` calling `self.eval()`) is
    flagged at the call of that method when a later call of a method of the
    same object that steps it back-propagates with no `.train()` between.
    A name imported on the branches of an `if` from one of several functions
    of the project (`if dense: from train.epochs import train_epoch_dense as
    train_epoch` / `else: ... train_epoch_sparse as train_epoch`) does what
    they all do when they set modes alike; otherwise the file is judged by the
    run that imports the one that back-propagates without `.train()`, when it
    is the file's only such name (with two, which alternatives run together
    is not told, and neither is followed). A method of a module of the project
    whose every backward pass and step runs under `if self.training:` (its own,
    or in what it calls there: DALLE2-pytorch's `DecoderTrainer.forward`),
    called on that module in eval mode (`trainer(x)`, `trainer.forward(x)`
    after `trainer.eval()`), computes a loss and trains nothing. So does a
    call of a function of the file that serves both phases by a flag, where
    the call gives the flag (or leaves it to a default) a constant that skips
    every backward: `run_epoch(loader, train=False)` of a function that
    back-propagates under `if train:`, `if not cross_valid:` or `if phase ==
    "train":` (its constant compared as Python compares it: `1 == True`), in the
    `else:` of an `if not train:`, or after an `if not train: continue`; also
    where it hands the flag on to a function of the file that does
    (`run_batch(x, train)`). A call that unpacks arguments (`**kwargs`) may set
    the flag either way: it counts as training.
    """

    code = "TL405"
    name = "missing-train-mode"
    severity = "error"
    message = "the model is switched to `.eval()` for validation and training resumes without `.train()`: dropout and BatchNorm stay in eval mode"
    triggers = ("eval", "train")  # the names any switch to eval mode is spelled with
    bad = (
        # a trainer's own `eval()` puts the model in eval mode: reported once, where it does
        "import torch\n"
        "class Trainer:\n"
        "    def eval(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            return sum(self.model(x).mean().item() for x in self.val_loader)\n"
        "    def fit(self):\n"
        "        self.model.train()\n"
        "        for step, batch in enumerate(self.loader):\n"
        "            self.model(batch).mean().backward()\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n"
        "            if step % self.eval_interval == 0:\n"
        "                print(self.eval())\n",
        # only the BatchNorm layers are put back in train mode: dropout stays off
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for module in model.modules():\n"
        "        if isinstance(module, torch.nn.BatchNorm2d):\n"
        "            module.train()\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    model.eval()  # expect: TL405\n"
        "    validate(model)\n",
        # validation every N steps inside the step loop (nanoGPT's `estimate_loss()`)
        "import torch\n"
        "@torch.no_grad()\n"
        "def estimate_loss():\n"
        "    model.eval()  # expect: TL405\n"
        "    return model(val_batch).mean().item()\n"
        "for step in range(max_steps):\n"
        "    if step % eval_interval == 0:\n"
        "        print(estimate_loss())\n"
        "    model(next(batches)).mean().backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        "import torch\n"
        "model.train()\n"
        "for epoch in range(10):\n"
        "    for x, y in train_loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        val = sum(criterion(model(x), y).item() for x, y in val_loader)\n",
        # eval mode spelled `train(mode=False)`
        "import torch\n"
        "for epoch in range(3):\n"
        "    for x, y in train_batches:\n"
        "        opt.zero_grad()\n"
        "        crit(net(x), y).backward()\n"
        "        opt.step()\n"
        "    net.train(mode=False)  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        total = sum(crit(net(x), y).item() for x, y in val_batches)\n",
        # the loop split across functions of the file
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x, y).backward()\n"
        "        optimizer.step()\n"
        "@torch.no_grad()\n"
        "def validate(model, loader):\n"
        "    model.eval()  # expect: TL405\n"
        "    return [model(x) for x, _ in loader]\n"
        "def main():\n"
        "    for epoch in range(100):\n"
        "        train_one_epoch(model, train_loader, optimizer)\n"
        "        validate(model, val_loader)\n",
        # periodic evaluation inside the step loop of a Trainer
        "import torch\n"
        "class Trainer:\n"
        "    def evaluate(self):\n"
        "        self.model.train(False)  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            return [self.model(b) for b in self.val_loader]\n"
        "    def fit(self):\n"
        "        step = 0\n"
        "        while step < self.max_steps:\n"
        "            for batch in self.loader:\n"
        "                self.model(batch).backward()\n"
        "                self.opt.step()\n"
        "                self.opt.zero_grad()\n"
        "                step += 1\n"
        "                if step % 1000 == 0:\n"
        "                    self.evaluate()\n",
        # the file's method freezes the encoder but never calls train()
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def freeze_encoder(self):\n"
        "        self.encoder.requires_grad_(False)\n"
        "net = Net()\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "for epoch in range(10):\n"
        "    net.freeze_encoder()\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        criterion(net(x), y).backward()\n"
        "        opt.step()\n"
        "    net.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        validate(net)\n",
        # train() only on the branch that never validated
        "import torch\n"
        "for epoch in range(10):\n"
        "    if epoch == 0:\n"
        "        model.train()\n"
        "    for x, y in loader:\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "    if epoch % 2 == 0:\n"
        "        model.eval()  # expect: TL405\n"
        "        evaluate(model)\n",
        # an assert that can pass does not end the path: the model trains on in eval mode
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    if freeze_backbone:\n"
        "        model.eval()\n"
        "    else:\n"
        "        assert finetune\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    model.eval()  # expect: TL405\n"
        "    validate(model)\n",
        # a method defined twice, a stub then the real one: the class keeps the last
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, model, train_loader, val_loader):\n"
        "        self.model = model\n"
        "        self.optim = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for self.epoch in range(self.max_epochs):\n"
        "            self.fit_epoch(train_loader, val_loader)\n"
        "    def fit_epoch(self, train_loader, val_loader):\n"
        "        raise NotImplementedError\n"
        "    def fit_epoch(self, train_loader, val_loader):\n"
        "        for x, y in train_loader:\n"
        "            self.optim.zero_grad()\n"
        "            torch.nn.functional.mse_loss(self.model(x), y).backward()\n"
        "            self.optim.step()\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                self.model(x)\n",
        # an evaluator object built from the model puts it in eval mode
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "    @torch.no_grad()\n"
        "    def run(self):\n"
        "        self.model.eval()\n"
        "        for x in self.loader:\n"
        "            self.model(x)\n"
        "def fit(model, loader, val_loader, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    evaluator = Evaluator(model, val_loader)\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        evaluator.run()  # expect: TL405\n",
        # the validation also runs once before the epochs (checking resumed weights)
        "import torch\n"
        "def main(model, train_loader, val_loader, resume):\n"
        "    optimizer = torch.optim.AdamW(model.parameters())\n"
        "    if resume:\n"
        "        validate(val_loader, model)\n"
        "    for epoch in range(10):\n"
        "        train_one_epoch(model, train_loader, optimizer)\n"
        "        validate(val_loader, model)\n"
        "def train_one_epoch(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        optimizer.step()\n"
        "@torch.no_grad()\n"
        "def validate(loader, model):\n"
        "    model.eval()  # expect: TL405\n"
        "    for x, y in loader:\n"
        "        model(x)\n",
        # the model evaluated is the trained one or its EMA copy, picked by a flag
        "import torch\n"
        "def train(model, ema, loader, test_loader, optimizer, use_ema):\n"
        "    model.train()\n"
        "    for epoch in range(100):\n"
        "        for x, y in loader:\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "        test_model = ema.module if use_ema else model\n"
        "        test(test_loader, test_model)\n"
        "@torch.no_grad()\n"
        "def test(loader, model):\n"
        "    model.eval()  # expect: TL405\n"
        "    for x, y in loader:\n"
        "        model(x)\n",
        # the same, without the model put back in train mode: the next epoch trains in eval mode
        "import torch\n"
        "class Solver:\n"
        "    def train(self):\n"
        "        self.model.train()\n"
        "        for epoch in range(10):\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()  # expect: TL405\n"
        "            with torch.no_grad():\n"
        "                self._run_one_epoch(epoch, train=False)\n"
        "    def _run_one_epoch(self, epoch, train=True):\n"
        "        for x in self.loader:\n"
        "            loss = self.model(x).mean()\n"
        "            if train:\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "                self.optimizer.zero_grad()\n",
        # the evaluator built in place, once per epoch
        "import torch\n"
        "class Evaluator:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "    def run(self, loader):\n"
        "        self.model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x in loader:\n"
        "                self.model(x)\n"
        "def fit(model, loader, val_loader, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        Evaluator(model).run(val_loader)  # expect: TL405\n",
        # the evaluation names the model anew: the DDP wrapper's module, or the model itself
        "import torch\n"
        "from torch import nn\n"
        "def evaluate(model, val_loader):\n"
        "    net = model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model\n"
        "    net.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        for x, y in val_loader:\n"
        "            net(x)\n"
        "def main(model, loader, val_loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        evaluate(model, val_loader)\n",
        # the trained model among models written out in a loop (DALLE2's VQGAN trainer samples every 100 steps)
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, vae, ema, dl):\n"
        "        self.vae, self.ema, self.dl, self.steps = vae, ema, dl, 0\n"
        "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
        "    def train_step(self):\n"
        "        self.vae(next(self.dl)).backward()\n"
        "        self.optim.step()\n"
        "        self.optim.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            for model in (self.ema, self.vae):\n"
        "                model.eval()  # expect: TL405\n"
        "                with torch.no_grad():\n"
        "                    model(next(self.dl))\n"
        "        self.steps += 1\n"
        "    def fit(self, n):\n"
        "        for _ in range(n):\n"
        "            self.train_step()\n",
        # gradients off for the run, turned back on by the step around its backward
        "import torch\n"
        "def train_step(model, batch, opt):\n"
        "    with torch.enable_grad():\n"
        "        model(batch).mean().backward()\n"
        "    opt.step()\n"
        "    opt.zero_grad()\n"
        "@torch.no_grad()\n"
        "def run(model, loader, val_loader, opt, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            train_step(model, batch, opt)\n"
        "        model.eval()  # expect: TL405\n"
        "        for x in val_loader:\n"
        "            model(x)\n",
        # models written out with their names
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, vae, ema, dl):\n"
        "        self.vae, self.ema, self.dl, self.steps = vae, ema, dl, 0\n"
        "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
        "    def train_step(self):\n"
        "        self.vae(next(self.dl)).backward()\n"
        "        self.optim.step()\n"
        "        self.optim.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            for name, model in ((\"ema\", self.ema), (\"vae\", self.vae)):\n"
        "                model.eval()  # expect: TL405\n"
        "                with torch.no_grad():\n"
        "                    print(name, model(next(self.dl)).mean().item())\n"
        "        self.steps += 1\n"
        "    def fit(self, n):\n"
        "        for _ in range(n):\n"
        "            self.train_step()\n",
        # models written out through zip()
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for x, y in loader:\n"
        "        criterion(disc(gen(x)), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    for label, net in zip((\"gen\", \"disc\"), (gen, disc)):\n"
        "        net.eval()  # expect: TL405\n"
        "    validate(gen, disc)\n",
        # the mode saved on entry is put back only under a second condition: not on every path
        "import torch\n"
        "def validate(model, loader, epoch):\n"
        "    was_training = model.training\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        total = sum(model(x).sum().item() for x in loader)\n"
        "    if was_training and epoch > 10:\n"
        "        model.train()\n"
        "    return total\n"
        "def main(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        validate(model, val_loader, epoch)\n",
        # the mode saved is another model's: the trained one is never put back
        "import torch\n"
        "def validate(model, ema, loader):\n"
        "    was_training = ema.training\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        total = sum(model(x).sum().item() for x in loader)\n"
        "    if was_training:\n"
        "        ema.train()\n"
        "    return total\n"
        "def main(model, ema, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        validate(model, ema, val_loader)\n",
        # the mode saved, but a return before it is put back
        "import torch\n"
        "def validate(model, vx):\n"
        "    was_training = model.training\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        out = model(vx)\n"
        "    if out.isnan().any():\n"
        "        return None\n"
        "    if was_training:\n"
        "        model.train()\n"
        "    return out\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    validate(model, val_x)\n",
        # put back only when the evaluation raises
        "import torch\n"
        "def validate(model, vx):\n"
        "    was_training = model.training\n"
        "    model.eval()  # expect: TL405\n"
        "    try:\n"
        "        with torch.no_grad():\n"
        "            return model(vx)\n"
        "    except RuntimeError:\n"
        "        if was_training:\n"
        "            model.train()\n"
        "        raise\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    validate(model, val_x)\n",
        # a trainer object of the file whose own `train(epoch)` method (no module's) runs the epoch, and whose `evaluate()` leaves its model in eval mode
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader, test_loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "        self.test_loader = test_loader\n"
        "        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)\n"
        "\n"
        "    def train(self, epoch):\n"
        "        for x, y in self.loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            torch.nn.functional.l1_loss(self.model(x), y).backward()\n"
        "            self.optimizer.step()\n"
        "\n"
        "    def evaluate(self):\n"
        "        self.model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in self.test_loader:\n"
        "                self.model(x)\n"
        "\n"
        "\n"
        "def main(model, loader, test_loader, epochs):\n"
        "    trainer = Trainer(model, loader, test_loader)\n"
        "    for epoch in range(epochs):\n"
        "        trainer.train(epoch)\n"
        "        trainer.evaluate()  # expect: TL405\n",
        # a trainer handed its model and optimizer, its forward in a method of its own (kospeech)
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, train_loader, valid_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.train_loader = train_loader\n"
        "        self.valid_loader = valid_loader\n"
        "\n"
        "    def _forward(self, x):\n"
        "        return self.model(x).mean()\n"
        "\n"
        "    def train(self, num_epochs):\n"
        "        for epoch in range(num_epochs):\n"
        "            for x in self.train_loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss = self._forward(x)\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            self._validate()\n"
        "\n"
        "    def _validate(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in self.valid_loader:\n"
        "                self._forward(x)\n",
        # the optimizer built from the constructor's parameter, the attribute trained by a function of the file
        "import torch\n"
        "\n"
        "\n"
        "def train_one_epoch(net, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(net(x), y).backward()\n"
        "        optimizer.step()\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader, val_loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "        self.val_loader = val_loader\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            train_one_epoch(self.model, self.loader, self.optimizer)\n"
        "            self.model.eval()  # expect: TL405\n"
        "            with torch.no_grad():\n"
        "                print(sum(self.model(x).sum() for x, _ in self.val_loader))\n",
        # the parameter rebound to the model the DDP wrapper holds, or to itself: still the caller's
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    model = model.module if hasattr(model, 'module') else model\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        for x in val_loader:\n"
        "            model(x)\n"
        "def main(model, loader, val_loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        evaluate(model, val_loader)\n",
        # the teacher's targets computed without gradients; the student, back-propagated, is validated
        "import torch\n"
        "def perturb(model, x):\n"
        "    x = x.clone().requires_grad_(True)\n"
        "    model(x).sum().backward()\n"
        "    return (x + 0.01 * x.grad.sign()).detach()\n"
        "for step in range(100):\n"
        "    x = next(batches)\n"
        "    if step % 2 == 0:\n"
        "        x = perturb(model, x)\n"
        "    with torch.no_grad():\n"
        "        target = teacher(x)\n"
        "    out = model(x)\n"
        "    (out - target).pow(2).mean().backward()\n"
        "    opt.step()\n"
        "    opt.zero_grad()\n"
        "    if step % 10 == 0:\n"
        "        model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            print(model(val_x).mean().item())\n",
        # a shallow copy shares the model's submodules: its .eval() switches the model's dropout
        "import copy\n"
        "\n"
        "import torch\n"
        "\n"
        "\n"
        "def validate(model, loader):\n"
        "    model = copy.copy(model)\n"
        "    model.eval()  # expect: TL405\n"
        "    with torch.no_grad():\n"
        "        for x in loader:\n"
        "            model(x)\n"
        "\n"
        "\n"
        "def main(model, loader, val_loader, epochs):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        validate(model, val_loader)\n",
        # the models kept in a dict (ParallelWaveGAN's trainer), each put in eval mode
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader, dev_loader):\n"
        "        self.model = model  # {\"generator\": G, \"discriminator\": D}\n"
        "        self.optimizer = optimizer\n"
        "        self.loader = loader\n"
        "        self.dev_loader = dev_loader\n"
        "    def _train_step(self, x, y):\n"
        "        loss = torch.nn.functional.l1_loss(self.model[\"generator\"](x), y)\n"
        "        self.optimizer[\"generator\"].zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer[\"generator\"].step()\n"
        "    @torch.no_grad()\n"
        "    def _eval_epoch(self):\n"
        "        for key in self.model.keys():\n"
        "            self.model[key].eval()  # expect: TL405\n"
        "        for x, y in self.dev_loader:\n"
        "            self.model[\"generator\"](x)\n"
        "    def run(self):\n"
        "        for epoch in range(10):\n"
        "            for x, y in self.loader:\n"
        "                self._train_step(x, y)\n"
        "            self._eval_epoch()\n",
        # one model of the dict put in eval mode
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader, dev_loader):\n"
        "        self.model = model  # {\"generator\": G, \"discriminator\": D}\n"
        "        self.optimizer = optimizer\n"
        "        self.loader = loader\n"
        "        self.dev_loader = dev_loader\n"
        "    def _train_step(self, x, y):\n"
        "        loss = torch.nn.functional.l1_loss(self.model[\"generator\"](x), y)\n"
        "        self.optimizer[\"generator\"].zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer[\"generator\"].step()\n"
        "    @torch.no_grad()\n"
        "    def _eval_epoch(self):\n"
        "        self.model[\"generator\"].eval()  # expect: TL405\n"
        "        for x, y in self.dev_loader:\n"
        "            self.model[\"generator\"](x)\n"
        "    def run(self):\n"
        "        for epoch in range(10):\n"
        "            for x, y in self.loader:\n"
        "                self._train_step(x, y)\n"
        "            self._eval_epoch()\n",
        # the loop over the dict's keys puts back only the discriminator: the generator stays in eval mode
        "import torch\n"
        "def main(generator, discriminator, loader, val_loader, epochs):\n"
        "    models = {\"generator\": generator, \"discriminator\": discriminator}\n"
        "    optimizer = torch.optim.Adam(generator.parameters())\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            models[\"generator\"](x).mean().backward()\n"
        "            optimizer.step()\n"
        "        models[\"generator\"].eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                models[\"generator\"](x)\n"
        "        for key in models:\n"
        "            if key == \"discriminator\":\n"
        "                models[key].train()\n",
        # the model evaluated under a name each arm of an `if` statement binds: the EMA
        # copy, or the trained model (unwrapped from DDP in that arm)
        "import torch\n"
        "def train(model, ema, optimizer, loader, val_loader, use_ema):\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            optimizer.step()\n"
        "        if use_ema:\n"
        "            evalmodel = ema\n"
        "        else:\n"
        "            evalmodel = model\n"
        "        evalmodel.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                evalmodel(x)\n",
        "import torch\n"
        "class Trainer:\n"
        "    def evaluate(self):\n"
        "        if self.use_ema:\n"
        "            evalmodel = self.ema.module\n"
        "        else:\n"
        "            evalmodel = self.model\n"
        "            if self.distributed:\n"
        "                evalmodel = evalmodel.module\n"
        "        evalmodel.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            self.evaluator.run(evalmodel)\n"
        "    def fit(self, loader, epochs):\n"
        "        self.model.train()\n"
        "        for epoch in range(epochs):\n"
        "            for x in loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self.model(x).mean().backward()\n"
        "                self.optimizer.step()\n"
        "            self.evaluate()\n",
        # a module that trains itself in one method and puts itself in eval mode in another
        # (a GAIL discriminator): reported at the call of the evaluating method
        "import torch\n"
        "import torch.nn as nn\n"
        "class Discriminator(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.trunk = nn.Sequential(nn.Linear(dim, 64), nn.Dropout(0.1), nn.Linear(64, 1))\n"
        "        self.optimizer = torch.optim.Adam(self.trunk.parameters())\n"
        "    def update(self, batches):\n"
        "        for x in batches:\n"
        "            loss = self.trunk(x).mean()\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "    def predict_reward(self, x):\n"
        "        with torch.no_grad():\n"
        "            self.eval()\n"
        "            return self.trunk(x)\n"
        "def main(rollouts):\n"
        "    discr = Discriminator(10)\n"
        "    for j in range(100):\n"
        "        discr.update(rollouts.batches())\n"
        "        rollouts.rewards = discr.predict_reward(rollouts.obs)  # expect: TL405\n",
        # a module that builds its own optimizer over `self.parameters()`: its `evaluate()`
        # switches itself to eval mode and its `train_step()` never switches back
        "import torch\n"
        "from torch import nn\n"
        "class Regressor(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1), nn.Linear(8, 1))\n"
        "        self.optimizer = torch.optim.Adam(self.parameters())\n"
        "    def train_step(self, x, y):\n"
        "        loss = nn.functional.mse_loss(self.net(x), y)\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def evaluate(self, x, y):\n"
        "        self.eval()\n"
        "        with torch.no_grad():\n"
        "            return nn.functional.mse_loss(self.net(x), y).item()\n"
        "def main(loader, val):\n"
        "    model = Regressor()\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            model.train_step(x, y)\n"
        "        print(model.evaluate(*val))  # expect: TL405\n",
        # the other arm of the `if` expression puts another model in train mode
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    ema.train() if split == \"train\" else model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # the function that switches to eval mode also trains, stepping through a helper
        "import torch\n"
        "def apply_update(optimizer):\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "def fit(model, loader, val_loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            apply_update(optimizer)\n"
        "        model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            print(sum(model(x).sum().item() for x, _ in val_loader))\n",
        # the trainer's forward in a method whose first parameter is not named `self`: called on
        # `self`, it trains `self.model`
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, train_loader, valid_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.train_loader = train_loader\n"
        "        self.valid_loader = valid_loader\n"
        "\n"
        "    def _forward(trainer, x):\n"
        "        return trainer.model(x).mean()\n"
        "\n"
        "    def train(self, num_epochs):\n"
        "        for epoch in range(num_epochs):\n"
        "            for x in self.train_loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss = self._forward(x)\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            self._validate()\n"
        "\n"
        "    def _validate(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in self.valid_loader:\n"
        "                self._forward(x)\n",
        # the trainer's forward, a method called on its class (`Trainer._forward(self, x)`)
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, train_loader, valid_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.train_loader = train_loader\n"
        "        self.valid_loader = valid_loader\n"
        "\n"
        "    def _forward(self, x):\n"
        "        return self.model(x).mean()\n"
        "\n"
        "    def train(self, num_epochs):\n"
        "        for epoch in range(num_epochs):\n"
        "            for x in self.train_loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss = Trainer._forward(self, x)\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            self._validate()\n"
        "\n"
        "    def _validate(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in self.valid_loader:\n"
        "                self._forward(x)\n",
        # the validation pass of one epoch function skips its backward under `if not
        # cross_valid:`, and the model is put in train mode once, before the epochs
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        run_one_epoch(model, optimizer, train_loader)\n"
        "        model.eval()  # expect: TL405\n"
        "        run_one_epoch(model, optimizer, valid_loader, cross_valid=True)\n"
        "def run_one_epoch(model, optimizer, loader, cross_valid=False):\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if not cross_valid:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # the validation call's flag equals the constant the backward tests (`True == 1`,
        # as Python compares them): it trains, in eval mode
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, train=1)\n"
        "        model.eval()  # expect: TL405\n"
        "        run_epoch(model, optimizer, valid_loader, train=True)\n"
        "def run_epoch(model, optimizer, loader, train=False):\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if train == 1:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # `**kw` may set `train=True`: the call may train
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader, kw):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, train=True)\n"
        "        model.eval()  # expect: TL405\n"
        "        run_epoch(model, optimizer, valid_loader, **kw)\n"
        "def run_epoch(model, optimizer, loader, train=False):\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # the same trainer, its methods calling their instance `trainer`: `trainer.model` is what
        # its constructor kept and built the optimizer on
        "import torch\n"
        "\n"
        "\n"
        "def train_one_epoch(net, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(net(x), y).backward()\n"
        "        optimizer.step()\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(trainer, model, loader, val_loader):\n"
        "        trainer.model = model\n"
        "        trainer.loader = loader\n"
        "        trainer.val_loader = val_loader\n"
        "        trainer.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "\n"
        "    def fit(trainer, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            train_one_epoch(trainer.model, trainer.loader, trainer.optimizer)\n"
        "            trainer.model.eval()  # expect: TL405\n"
        "            with torch.no_grad():\n"
        "                print(sum(trainer.model(x).sum() for x, _ in trainer.val_loader))\n",
        # the step reads the epoch function's `phase`, but a warm-up set it to 'train' first
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, 'train')\n"
        "        model.eval()  # expect: TL405\n"
        "        run_epoch(model, optimizer, valid_loader, 'val')\n"
        "def run_epoch(model, optimizer, loader, phase):\n"
        "    def warm_up():\n"
        "        nonlocal phase\n"
        "        phase = 'train'\n"
        "    def step(loss):\n"
        "        if phase == 'train':\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "    warm_up()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        step(model(x).mean())\n",
        # the epoch function's step, defined in it, reads its `phase`; but the name is bound
        # again to another step that always back-propagates: the validation pass may train
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, 'train')\n"
        "        model.eval()  # expect: TL405\n"
        "        run_epoch(model, optimizer, valid_loader, 'val')\n"
        "def run_epoch(model, optimizer, loader, phase):\n"
        "    def step(loss):\n"
        "        if phase == 'train':\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "    def step_always(loss):\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    if phase == 'val':\n"
        "        step = step_always\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        step(model(x).mean())\n",
        # a trainer that builds its model in eval mode, or puts it there in the setup its
        # training method runs first, and never calls `.train()`: every step trains in eval mode
        "import torch\n"
        "import torch.nn as nn\n"
        "class Trainer:\n"
        "    def __init__(self, loader):\n"
        "        self.model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()  # expect: TL405\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Finetuner:\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.AdamW(self.model.parameters())\n"
        "    def setup(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "    def run(self):\n"
        "        self.setup()\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.cross_entropy(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a model built in eval mode beside a head the class builds itself and puts in train
        # mode: `self.head.train()` does not put `self.net` back
        "import torch\n"
        "import torch.nn as nn\n"
        "class Trainer:\n"
        "    def __init__(self, loader):\n"
        "        self.net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()  # expect: TL405\n"
        "        self.head = nn.Linear(8, 8)\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        self.head.train()\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.head(self.net(x)), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a script that builds its model in eval mode and trains it in a loop of its own
        # code, moved to the device under the same name: nothing puts it in train mode
        "import torch\n"
        "import torch.nn as nn\n"
        "model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()  # expect: TL405\n"
        "model = model.to(\"cuda\")\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        loss = nn.functional.mse_loss(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    torch.save(model.state_dict(), \"last.pt\")\n",
        # the same with `model.eval()` as a statement of its own, the weights restored first
        "import torch\n"
        "from torch import nn\n"
        "net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))\n"
        "net.load_state_dict(torch.load(\"pretrained.pt\"))\n"
        "net.eval()  # expect: TL405\n"
        "opt = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()))\n"
        "while True:\n"
        "    x, y = next(batches)\n"
        "    opt.zero_grad()\n"
        "    nn.functional.cross_entropy(net(x), y).backward()\n"
        "    opt.step()\n",
        # what torch, Python's own library and the methods of an object are handed leaves
        # its mode alone: an EMA copy updated from the model, a snapshot of it
        "import copy\n"
        "import torch\n"
        "from timm.utils import ModelEmaV2\n"
        "def fit(model, loader, val_loader, optimizer, epochs):\n"
        "    ema = ModelEmaV2(model)\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n"
        "        ema.update(model)\n"
        "        best = copy.deepcopy(model)\n"
        "        torch.save(model.state_dict(), \"last.pt\")\n",
        # a library's functions handed what is read from the model, its weights, not the
        # model itself: they cannot put it back in train mode
        "import numpy as np\n"
        "import safetensors.torch\n"
        "import torch\n"
        "def fit(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n"
        "        safetensors.torch.save_file(model.state_dict(), \"last.safetensors\")\n"
        "        np.save(\"head.npy\", model.head.weight.detach().cpu().numpy())\n",
        # a script whose code is in its `if __name__ == "__main__":` block: the block goes
        # on from the module's code, the model built there or before it
        "import torch\n"
        "import torch.nn as nn\n"
        "backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))\n"
        "if __name__ == \"__main__\":\n"
        "    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "    model.eval()  # expect: TL405\n"
        "    backbone.eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    backbone_opt = torch.optim.Adam(backbone.parameters())\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            loss = nn.functional.mse_loss(model(x), y)\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        for images, labels in image_loader:\n"
        "            backbone_opt.zero_grad()\n"
        "            nn.functional.cross_entropy(backbone(images), labels).backward()\n"
        "            backbone_opt.step()\n",
        # a function that builds its model in eval mode and trains it in a loop of its own:
        # whoever calls it, every step trains in eval mode
        "import torch\n"
        "import torchvision\n"
        "from torch import nn\n"
        "def main(args):\n"
        "    device = torch.device(\"cuda\")\n"
        "    model = torchvision.models.resnet18(num_classes=args.classes).to(device).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)\n"
        "    for epoch in range(args.epochs):\n"
        "        for images, labels in train_loader:\n"
        "            loss = nn.functional.cross_entropy(model(images.to(device)), labels.to(device))\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        torch.save(model.state_dict(), f\"epoch{epoch}.pt\")\n"
        "if __name__ == \"__main__\":\n"
        "    main(parse_args())\n",
        # a function's model of a class of the file that derives from `nn.Module`, built and
        # wrapped there: nothing out of the file's sight holds it
        "import torch\n"
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "class Wide(Net):\n"
        "    pass\n"
        "def fit(loader):\n"
        "    model = nn.DataParallel(Wide().cuda())\n"
        "    model.eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a class freezing its teacher's parameters, not those of the student it trains
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "class Distill:\n"
        "    def __init__(self, teacher):\n"
        "        self.teacher = teacher\n"
        "        for p in self.teacher.parameters():\n"
        "            p.requires_grad = False\n"
        "        self.student = Net().eval()  # expect: TL405\n"
        "        self.opt = torch.optim.SGD(self.student.parameters(), lr=0.1)\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.opt.zero_grad()\n"
        "            F.mse_loss(self.student(x), self.teacher(x)).backward()\n"
        "            self.opt.step()\n",
        # a function's model, where another function freezes another model and the loop
        # an input tensor: neither is the trained model's
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "def frozen_teacher():\n"
        "    teacher = Net()\n"
        "    teacher.requires_grad_(False)\n"
        "    return teacher\n"
        "def fit(loader):\n"
        "    model = Net().eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        x.requires_grad_(False)\n"
        "        optimizer.zero_grad()\n"
        "        F.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # parameters set to require gradients, all of them trained: nothing is frozen
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "def fit(loader):\n"
        "    model = torchvision.models.resnet50().eval()  # expect: TL405\n"
        "    model.requires_grad_(True)\n"
        "    for p in model.parameters():\n"
        "        p.requires_grad = True\n"
        "        p.requires_grad_()\n"
        "    optimizer = torch.optim.SGD([{\"params\": model.parameters()}], lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # all of the model's parameters handed on in a chain, in a parameter group written
        # with dict() (beside a group whose key does not decode), or filtered on
        # requires_grad alone with nothing frozen: it is trained
        "import itertools\n"
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()  # expect: TL405\n"
        "head = nn.Linear(8, 2)\n"
        "optimizer = torch.optim.SGD(itertools.chain(backbone.parameters(), head.parameters()), lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    F.cross_entropy(head(backbone(x)), y).backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()  # expect: TL405\n"
        "optimizer = torch.optim.SGD([{\"\\N{NOTACHAR}\": 1}, dict(params=backbone.parameters(), lr=0.1)])\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    F.cross_entropy(backbone(x), y).backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()  # expect: TL405\n"
        "optimizer = torch.optim.SGD([p for p in backbone.parameters() if p.requires_grad], lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    F.cross_entropy(backbone(x), y).backward()\n"
        "    optimizer.step()\n",
        # a model built around a backbone the function builds itself (a local), sized by
        # settings (`args.hidden`), is new here
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "from torch import nn\n"
        "def fit(loader, args):\n"
        "    backbone = torchvision.models.resnet18()\n"
        "    model = nn.Sequential(backbone, nn.Linear(1000, args.hidden), nn.Dropout(0.5), nn.Linear(args.hidden, 10)).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a model sized by the function's parameters: a layer of `torch.nn` is handed one
        # annotated as a number, a class of the file one with a number for default
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, hidden):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(8, hidden), nn.Dropout(0.1), nn.Linear(hidden, 2))\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "def fit(loader, hidden: int, width=64):\n"
        "    model = nn.Sequential(nn.Linear(512, hidden), nn.Dropout(0.5), Net(width)).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a model of torchvision given a parameter as its number of classes, an argument
        # that names a size: the function builds the model
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torchvision.models import resnet18\n"
        "def fit(loader, classes):\n"
        "    model = resnet18(num_classes=classes).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the same of a layer of `torch.nn` given a parameter as its output size, and of
        # timm's factory given one as its number of classes
        "import timm\n"
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit_head(loader, classes):\n"
        "    model = nn.Sequential(nn.Dropout(0.5), nn.Linear(512, out_features=classes)).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "def fit(loader, classes):\n"
        "    model = timm.create_model(\"resnet18\", num_classes=classes).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a wrapper of a module the function builds is that module: built here
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, rank):\n"
        "    model = nn.Sequential(nn.parallel.DistributedDataParallel(nn.Linear(8, 8), device_ids=[rank]), nn.Dropout(0.5)).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # another model put back in train mode (`ema.train()`) leaves this one in eval mode,
        # from the previous call's validation
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # the model moved and assigned back to its name (`model = model.to(device)`) is still
        # its own: putting `ema` back in train mode leaves it in eval mode
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "model = model.to(device)\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout()).cuda()\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # nor do printing it, formatting it, asking its class or reading its `training` flag
        # hand the model to anything that `ema.train()` may put back in train mode
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "print(model)\n"
        "print(f\"{type(model).__name__}: {sum(p.numel() for p in model.parameters())} parameters\")\n"
        "assert model.training and not isinstance(model, torch.nn.DataParallel)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a wrapper of the model assigned back to its name holds that model alone
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "model = torch.nn.DataParallel(model.to(device))\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a deep copy of the model shares none of its layers: its `train()` leaves the model's alone
        "import copy\n"
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = copy.deepcopy(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a parameter passed by position for a size of a layer of `torch.nn` (`nn.Linear`'s
        # `out_features`) is a setting, not a module: the function builds the model itself
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, hidden, classes):\n"
        "    model = nn.Sequential(nn.Linear(512, hidden), nn.ReLU(), nn.Dropout(0.5), nn.Linear(hidden, classes)).eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # so is one passed for a convolution's channels or a BatchNorm's features
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, channels, width, classes):\n"
        "    model = nn.Sequential(\n"
        "        nn.Conv2d(channels, width, 3), nn.BatchNorm2d(width), nn.ReLU(),\n"
        "        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, classes),\n"
        "    )\n"
        "    model.eval()  # expect: TL405\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a head sized by such a parameter is built apart from the model: putting it back in
        # train mode leaves the model, switched where the class sets it up, in eval mode
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "import torchvision\n"
        "class Probe:\n"
        "    def __init__(self, hidden, classes):\n"
        "        self.model = torchvision.models.resnet18().eval()  # expect: TL405\n"
        "        self.head = nn.Sequential(nn.Linear(1000, hidden), nn.ReLU(), nn.Linear(hidden, classes))\n"
        "        self.optimizer = torch.optim.SGD([*self.model.parameters(), *self.head.parameters()], lr=0.1)\n"
        "    def fit(self, loader):\n"
        "        self.head.train()\n"
        "        for x, y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            F.cross_entropy(self.head(self.model(x)), y).backward()\n"
        "            self.optimizer.step()\n",
        # moved under its own name with an annotation, the model is still one the other holds not
        "import torch\n"
        "from torch import nn\n"
        "device = torch.device(\"cuda\")\n"
        "model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "model: nn.Module = model.to(device)\n"
        "ema = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()  # expect: TL405\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # more evals of one model pending than are carried (five validation helpers, four of
        # them only in later epochs): the one dropped on the longer path is still reported
        # from the path that carries it
        "import torch\n"
        "from torch import nn\n"
        "model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "ema = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def check_a(flag):\n"
        "    if flag:\n"
        "        model.eval()  # expect: TL405\n"
        "def check_b(flag):\n"
        "    if flag:\n"
        "        model.eval()  # expect: TL405\n"
        "def check_c(flag):\n"
        "    if flag:\n"
        "        model.eval()  # expect: TL405\n"
        "def check_d(flag):\n"
        "    if flag:\n"
        "        model.eval()  # expect: TL405\n"
        "def check_e(flag):\n"
        "    if flag:\n"
        "        model.eval()  # expect: TL405\n"
        "for epoch in range(3):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "    check_a(epoch % 2)\n"
        "    if epoch > 1:\n"
        "        check_b(epoch % 2)\n"
        "        check_c(epoch % 2)\n"
        "        check_d(epoch % 2)\n"
        "        check_e(epoch % 2)\n"
        "    ema.train()\n",
    )
    good = (
        # a trainer's own method named `eval` that leaves the model's mode alone
        "import torch\n"
        "class Trainer:\n"
        "    @torch.no_grad()\n"
        "    def eval(self):\n"
        "        return sum(self.model(x).mean().item() for x in self.val_loader)\n"
        "    def fit(self):\n"
        "        self.model.train()\n"
        "        for step, batch in enumerate(self.loader):\n"
        "            self.model(batch).mean().backward()\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n"
        "            if step % self.eval_interval == 0:\n"
        "                print(self.eval())\n",
        # train mode put back module by module (the walk meets the model itself), or
        # applied to every module
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for module in model.modules():\n"
        "        module.train()\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    model.eval()\n"
        "    validate(model)\n",
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    model.apply(lambda m: m.train())\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    model.eval()\n"
        "    validate(model)\n",
        # the periodic validation runs the training helper (its backward skipped under
        # no_grad) and restores train mode in the same block
        "import torch\n"
        "def forward_backward(batch):\n"
        "    loss = model(batch).mean()\n"
        "    if loss.requires_grad:\n"
        "        loss.backward()\n"
        "for step in range(max_steps):\n"
        "    forward_backward(next(batches))\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    if not step % eval_interval:\n"
        "        with torch.no_grad():\n"
        "            model.eval()\n"
        "            forward_backward(next(val_batches))\n"
        "            model.train()\n",
        # the periodic validation puts the model back in train mode
        "import torch\n"
        "@torch.no_grad()\n"
        "def estimate_loss():\n"
        "    model.eval()\n"
        "    loss = model(val_batch).mean().item()\n"
        "    model.train()\n"
        "    return loss\n"
        "for step in range(max_steps):\n"
        "    if step % eval_interval == 0:\n"
        "        print(estimate_loss())\n"
        "    model(next(batches)).mean().backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        # BatchNorm layers frozen on purpose from some epoch on: not a validation switch
        "import torch\n"
        "from torch import nn\n"
        "def build_optimizer(heads):\n"
        "    return torch.optim.SGD([p for m in heads for p in m.parameters()], lr=0.1)\n"
        "def freeze_bn(model):\n"
        "    model.train()\n"
        "    for m in model.modules():\n"
        "        if isinstance(m, nn.BatchNorm2d):\n"
        "            m.eval()\n"
        "def fit(model, loader, epochs):\n"
        "    optimizer = build_optimizer([model])\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        if epoch == 5:\n"
        "            freeze_bn(model)\n",
        # each epoch sets the mode for how the backbone is trained; any other value cannot get there
        "import torch\n"
        "def fit(model, loader, val_loader, optimizer, weights, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        if weights == 'finetune':\n"
        "            model.train()\n"
        "        elif weights == 'freeze':\n"
        "            model.eval()\n"
        "        else:\n"
        "            assert False, weights\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            accuracy = [model(x) for x, _ in val_loader]\n",
        # back in train mode through a chained call; an EMA copy that is never trained
        "import torch\n"
        "ema = build_model()\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(net(x), y).backward()\n"
        "        optimizer.step()\n"
        "        if step % 100 == 0:\n"
        "            with torch.no_grad():\n"
        "                ema.eval()\n"
        "                samples = ema(noise)\n"
        "    net.eval().cpu()\n"
        "    torch.save(net.state_dict(), 'ckpt.pt')\n"
        "    net.to('cuda').train()\n",
        # a method of the file puts the trainable head back in train mode
        "import torch\n"
        "class Discriminator(torch.nn.Module):\n"
        "    def train_custom(self):\n"
        "        for param in self.encoder.parameters():\n"
        "            param.requires_grad = False\n"
        "        self.classifier_head.train()\n"
        "def train_epoch(loader, discriminator, optimizer):\n"
        "    discriminator.train_custom()\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(discriminator(x), y).backward()\n"
        "        optimizer.step()\n"
        "def evaluate(loader, discriminator):\n"
        "    discriminator.eval()\n"
        "    with torch.no_grad():\n"
        "        return [discriminator(x) for x, _ in loader]\n"
        "optimizer = torch.optim.Adam(discriminator.parameters())\n"
        "for epoch in range(10):\n"
        "    train_epoch(train_loader, discriminator, optimizer)\n"
        "    evaluate(test_loader, discriminator)\n",
        # a linear probe: the training step runs the backbone in eval mode on purpose
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        return [model(x) for x, _ in loader]\n"
        "for epoch in range(90):\n"
        "    train(model, train_loader, optimizer)\n"
        "    validate(model, val_loader)\n",
        # `.train()` at the top of train_one_epoch (the chapter's template)
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x, y).backward()\n"
        "        optimizer.step()\n"
        "@torch.no_grad()\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    return [model(x) for x, _ in loader]\n"
        "for epoch in range(100):\n"
        "    train_one_epoch(model, train_loader, optimizer)\n"
        "    validate(model, val_loader)\n",
        # BatchNorm frozen during training, and a frozen teacher
        "import torch\n"
        "teacher.eval()\n"
        "for epoch in range(10):\n"
        "    student.train()\n"
        "    student.backbone.eval()\n"
        "    for x, y in loader:\n"
        "        with torch.no_grad():\n"
        "            t = teacher(x)\n"
        "        kd_loss(student(x), t).backward()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n",
        # the evaluation helper switches back itself
        "import torch\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        score = sum(model(x).sum().item() for x in loader)\n"
        "    model.train()\n"
        "    return score\n"
        "for step, batch in enumerate(loader):\n"
        "    model(batch).backward()\n"
        "    opt.step()\n"
        "    opt.zero_grad()\n"
        "    if step % 100 == 0:\n"
        "        evaluate(model, val_loader)\n",
        # evaluation only after training has finished; `train(mode)` on a flag
        "import torch\n"
        "for x, y in loader:\n"
        "    model(x).sum().backward()\n"
        "    opt.step()\n"
        "    opt.zero_grad()\n"
        "model.eval()\n"
        "test(model)\n"
        "for epoch in range(3):\n"
        "    model.train(epoch < 2)\n"
        "    for x, y in loader:\n"
        "        model(x).sum().backward()\n"
        "    model.eval()\n",
        # the phase loop: `train()` or `eval()` chosen per phase
        "import torch\n"
        "for epoch in range(25):\n"
        "    for phase in ['train', 'val']:\n"
        "        if phase == 'train':\n"
        "            model.train()\n"
        "        else:\n"
        "            model.eval()\n"
        "        for x, y in loaders[phase]:\n"
        "            with torch.set_grad_enabled(phase == 'train'):\n"
        "                loss = criterion(model(x), y)\n"
        "                if phase == 'train':\n"
        "                    loss.backward()\n"
        "                    optimizer.step()\n",
        # the evaluator's model is one it builds itself, not the trained one
        "import torch\n"
        "class Probe:\n"
        "    def __init__(self, model, make):\n"
        "        self.trained = model\n"
        "        self.model = make()\n"
        "    def run(self):\n"
        "        self.model.eval()\n"
        "def fit(model, loader, make, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    probe = Probe(model, make)\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        probe.run()\n",
        # validation of a fresh copy loaded with the trained weights (pytorch-YOLOv4)
        "import torch\n"
        "def train(model, loader, val_loader, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        eval_model = Net()\n"
        "        eval_model.load_state_dict(model.state_dict())\n"
        "        evaluate(eval_model, val_loader)\n"
        "@torch.no_grad()\n"
        "def evaluate(model, data_loader):\n"
        "    model.eval()\n"
        "    for x, y in data_loader:\n"
        "        model(x)\n",
        # an EMA copy updated by hand and put in eval mode to validate: never trained
        "import torch\n"
        "def main(model, ema, loader, val_loader, epochs):\n"
        "    opt = torch.optim.AdamW(model.parameters())\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n"
        "            with torch.no_grad():\n"
        "                for pe, pm in zip(ema.parameters(), model.parameters()):\n"
        "                    pe.mul_(0.999).add_(pm, alpha=0.001)\n"
        "        ema.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                ema(x)\n",
        # a periodic validation through the training helper, put back in train mode at once
        "import torch\n"
        "def main(model, opt, data, val_data, steps):\n"
        "    def forward_backward(loader):\n"
        "        for sub_batch in next(loader):\n"
        "            loss = model(sub_batch).mean()\n"
        "            if loss.requires_grad:\n"
        "                loss.backward()\n"
        "    for step in range(steps):\n"
        "        opt.zero_grad()\n"
        "        forward_backward(data)\n"
        "        opt.step()\n"
        "        if not step % 100:\n"
        "            with torch.no_grad():\n"
        "                model.eval()\n"
        "                forward_backward(val_data)\n"
        "                model.train()\n",
        # only the EMA copy is evaluated, under another name
        "import torch\n"
        "def train(model, ema, loader, test_loader, optimizer):\n"
        "    model.train()\n"
        "    for epoch in range(100):\n"
        "        for x, y in loader:\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "        test_model = ema.module\n"
        "        test(test_loader, test_model)\n"
        "@torch.no_grad()\n"
        "def test(loader, model):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        model(x)\n",
        # one epoch function for training and validation, switched by a flag
        "import torch\n"
        "class Solver:\n"
        "    def train(self):\n"
        "        for epoch in range(10):\n"
        "            self.model.train()\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()\n"
        "            with torch.no_grad():\n"
        "                self._run_one_epoch(epoch, train=False)\n"
        "    def _run_one_epoch(self, epoch, train=True):\n"
        "        for x in self.loader:\n"
        "            loss = self.model(x).mean()\n"
        "            if train:\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "                self.optimizer.zero_grad()\n",
        # the evaluation's local name holds a fresh copy, not the trained model
        "import copy\n"
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    net = copy.deepcopy(model)\n"
        "    net.eval()\n"
        "    with torch.no_grad():\n"
        "        for x in val_loader:\n"
        "            net(x)\n"
        "def main(model, loader, val_loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n"
        "        evaluate(model, val_loader)\n",
        # a loop over models none of which the file trains, and one whose models go back to train mode
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, vae, ema, dl):\n"
        "        self.vae, self.ema, self.dl, self.steps = vae, ema, dl, 0\n"
        "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
        "    def train_step(self):\n"
        "        self.vae(next(self.dl)).backward()\n"
        "        self.optim.step()\n"
        "        self.optim.zero_grad()\n"
        "        if self.steps % 100 == 0:\n"
        "            for model in (self.ema, self.teacher):\n"
        "                model.eval()\n"
        "                with torch.no_grad():\n"
        "                    model(next(self.dl))\n"
        "            for model in (self.ema, self.vae):\n"
        "                model.eval()\n"
        "                model(next(self.dl))\n"
        "                model.train()\n"
        "        self.steps += 1\n"
        "    def fit(self, n):\n"
        "        for _ in range(n):\n"
        "            self.train_step()\n",
        # a loss helper asked only for the losses, under no_grad, in validation: no backward runs from there (`.train()` each iteration)
        "import torch\n"
        "class LossCompute:\n"
        "    def __init__(self, criterion, opt):\n"
        "        self.criterion, self.opt = criterion, opt\n"
        "    def __call__(self, logits, y, only_return_losses=False):\n"
        "        losses = self.criterion(logits, y)\n"
        "        if only_return_losses:\n"
        "            return losses\n"
        "        losses.mean().backward()\n"
        "        self.opt.step()\n"
        "        self.opt.zero_grad()\n"
        "compute_loss = LossCompute(criterion, torch.optim.Adam(model.parameters()))\n"
        "def evaluate():\n"
        "    with torch.no_grad():\n"
        "        model.eval()\n"
        "        for x, y in val_loader:\n"
        "            compute_loss(model(x), y, only_return_losses=True)\n"
        "for epoch in range(3):\n"
        "    for x, y in train_loader:\n"
        "        model.train()\n"
        "        compute_loss(model(x), y)\n"
        "    evaluate()\n",
        # a PGD attack's backward, gradients turned back on inside a no_grad evaluation: it steps nothing
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def pgd(model, x, y, steps=10):\n"
        "    delta = torch.zeros_like(x, requires_grad=True)\n"
        "    for _ in range(steps):\n"
        "        with torch.enable_grad():\n"
        "            F.cross_entropy(model(x + delta), y).backward()\n"
        "        delta.data = (delta + 0.01 * delta.grad.sign()).clamp(-0.03, 0.03)\n"
        "        delta.grad.zero_()\n"
        "    return delta.detach()\n"
        "@torch.no_grad()\n"
        "def robust_eval(model, loader):\n"
        "    model.eval()\n"
        "    return sum((model(x + pgd(model, x, y)).argmax(1) == y).sum().item() for x, y in loader)\n"
        "def train(model, train_loader, val_loader, opt, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        model.train()\n"
        "        for x, y in train_loader:\n"
        "            opt.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n"
        "        print(robust_eval(model, val_loader))\n",
        # train mode put back by a loop over models written out: it runs at least once
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for net in {\"gen\": gen, \"disc\": disc}.values():\n"
        "        net.train()\n"
        "    for x, y in loader:\n"
        "        criterion(disc(gen(x)), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    for label, net in {\"gen\": gen, \"disc\": disc}.items():\n"
        "        net.eval()\n"
        "    validate(gen, disc)\n",
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for net in (gen, disc):\n"
        "        net.train()\n"
        "    for x, y in loader:\n"
        "        criterion(disc(gen(x)), y).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    for net in (gen, disc):\n"
        "        net.eval()\n"
        "    validate(gen, disc)\n",
        # the mode the model had on entry is saved and put back (FastPitch's validate)
        "import torch\n"
        "def validate(model, loader):\n"
        "    was_training = model.training\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        total = sum(model(x).sum().item() for x in loader)\n"
        "    if was_training:\n"
        "        model.train()\n"
        "    return total\n"
        "def main(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        validate(model, val_loader)\n",
        # the same in a context manager that restores the mode in `finally:` (Tacotron2's `evaluating`)
        "from contextlib import contextmanager\n"
        "import torch\n"
        "@contextmanager\n"
        "def evaluating(model):\n"
        "    was_training = model.training\n"
        "    try:\n"
        "        model.eval()\n"
        "        yield model\n"
        "    finally:\n"
        "        if was_training:\n"
        "            model.train()\n"
        "def main(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        with evaluating(model), torch.no_grad():\n"
        "            print(sum(model(x).sum().item() for x in val_loader))\n",
        # the trainer's `train(epoch)` puts its model back in train mode
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader, test_loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "        self.test_loader = test_loader\n"
        "        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)\n"
        "\n"
        "    def train(self, epoch):\n"
        "        self.model.train()\n"
        "        for x, y in self.loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            torch.nn.functional.l1_loss(self.model(x), y).backward()\n"
        "            self.optimizer.step()\n"
        "\n"
        "    def evaluate(self):\n"
        "        self.model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in self.test_loader:\n"
        "                self.model(x)\n"
        "\n"
        "\n"
        "def main(model, loader, test_loader, epochs):\n"
        "    trainer = Trainer(model, loader, test_loader)\n"
        "    for epoch in range(epochs):\n"
        "        trainer.train(epoch)\n"
        "        trainer.evaluate()\n",
        # the object evaluates a teacher it never steps
        "import torch\n"
        "\n"
        "\n"
        "class Distiller:\n"
        "    def __init__(self, student, teacher, loader):\n"
        "        self.student = student\n"
        "        self.teacher = teacher\n"
        "        self.loader = loader\n"
        "        self.optimizer = torch.optim.SGD(self.student.parameters(), lr=0.1)\n"
        "\n"
        "    def train_epoch(self):\n"
        "        self.student.train()\n"
        "        for x, y in self.loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            with torch.no_grad():\n"
        "                target = self.teacher(x)\n"
        "            torch.nn.functional.mse_loss(self.student(x), target).backward()\n"
        "            self.optimizer.step()\n"
        "\n"
        "    def validate(self):\n"
        "        self.teacher.eval()\n"
        "        with torch.no_grad():\n"
        "            return sum(self.teacher(x).sum() for x, _ in self.loader)\n"
        "\n"
        "\n"
        "def main(student, teacher, loader, epochs):\n"
        "    distiller = Distiller(student, teacher, loader)\n"
        "    for epoch in range(epochs):\n"
        "        distiller.train_epoch()\n"
        "        distiller.validate()\n",
        # the targets come from a helper that runs the teacher under no_grad: the teacher,
        # evaluated and never put back in train mode, is not trained
        "import torch\n"
        "\n"
        "\n"
        "class Distiller:\n"
        "    def __init__(self, student, teacher, loader):\n"
        "        self.student = student\n"
        "        self.teacher = teacher\n"
        "        self.loader = loader\n"
        "        self.optimizer = torch.optim.SGD(self.student.parameters(), lr=0.1)\n"
        "\n"
        "    def _targets(self, x):\n"
        "        with torch.no_grad():\n"
        "            return self.teacher(x)\n"
        "\n"
        "    def _loss(self, x):\n"
        "        return torch.nn.functional.mse_loss(self.student(x), self._targets(x))\n"
        "\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for x, _ in self.loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self._loss(x).backward()\n"
        "                self.optimizer.step()\n"
        "            self.teacher.eval()\n"
        "            with torch.no_grad():\n"
        "                print(sum(self.teacher(x).sum() for x, _ in self.loader))\n",
        # the helper rebinds its parameter to a deep copy before `.eval()`: the caller's model keeps its mode
        "import copy\n"
        "import torch\n"
        "def perturb(model, x):\n"
        "    model = copy.deepcopy(model)\n"
        "    model.eval()\n"
        "    x = x.clone().requires_grad_(True)\n"
        "    model(x).sum().backward()\n"
        "    return (x + 0.01 * x.grad.sign()).detach()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model.train()\n"
        "for step in range(100):\n"
        "    x = next(batches)\n"
        "    if step % 2 == 0:\n"
        "        x = perturb(model, x)\n"
        "    optimizer.zero_grad()\n"
        "    model(x).pow(2).mean().backward()\n"
        "    optimizer.step()\n",
        # a frozen teacher put in eval mode each step, run only under no_grad: not trained, even
        # with a backward of an occasional helper before it in the iteration (layumi's SWA teacher)
        "import torch\n"
        "def perturb(model, x):\n"
        "    x = x.clone().requires_grad_(True)\n"
        "    model(x).sum().backward()\n"
        "    return (x + 0.01 * x.grad.sign()).detach()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model.train()\n"
        "for step in range(100):\n"
        "    x = next(batches)\n"
        "    if step % 2 == 0:\n"
        "        x = perturb(model, x)\n"
        "    optimizer.zero_grad()\n"
        "    out = model(x)\n"
        "    teacher.eval()\n"
        "    with torch.no_grad():\n"
        "        target = teacher(x)\n"
        "    (out - target).pow(2).mean().backward()\n"
        "    optimizer.step()\n",
        # the models kept in a dict, each put back in train mode after the validation
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader, dev_loader):\n"
        "        self.model = model  # {\"generator\": G, \"discriminator\": D}\n"
        "        self.optimizer = optimizer\n"
        "        self.loader = loader\n"
        "        self.dev_loader = dev_loader\n"
        "    def _train_step(self, x, y):\n"
        "        loss = torch.nn.functional.l1_loss(self.model[\"generator\"](x), y)\n"
        "        self.optimizer[\"generator\"].zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer[\"generator\"].step()\n"
        "    @torch.no_grad()\n"
        "    def _eval_epoch(self):\n"
        "        for key in self.model.keys():\n"
        "            self.model[key].eval()\n"
        "        for x, y in self.dev_loader:\n"
        "            self.model[\"generator\"](x)\n"
        "        for key in self.model.keys():\n"
        "            self.model[key].train()\n"
        "    def run(self):\n"
        "        for epoch in range(10):\n"
        "            for x, y in self.loader:\n"
        "                self._train_step(x, y)\n"
        "            self._eval_epoch()\n",
        # the models kept in a dict, each put in train mode by the training step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader, dev_loader):\n"
        "        self.model = model  # {\"generator\": G, \"discriminator\": D}\n"
        "        self.optimizer = optimizer\n"
        "        self.loader = loader\n"
        "        self.dev_loader = dev_loader\n"
        "    def _train_step(self, x, y):\n"
        "        for key in self.model:\n"
        "            self.model[key].train()\n"
        "        loss = torch.nn.functional.l1_loss(self.model[\"generator\"](x), y)\n"
        "        self.optimizer[\"generator\"].zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer[\"generator\"].step()\n"
        "    @torch.no_grad()\n"
        "    def _eval_epoch(self):\n"
        "        for key in self.model:\n"
        "            self.model[key].eval()\n"
        "        for x, y in self.dev_loader:\n"
        "            self.model[\"generator\"](x)\n"
        "    def run(self):\n"
        "        for epoch in range(10):\n"
        "            for x, y in self.loader:\n"
        "                self._train_step(x, y)\n"
        "            self._eval_epoch()\n",
        # a dict of frozen teachers put in eval mode; the student they teach is not in it
        "import torch\n"
        "class Distiller:\n"
        "    def __init__(self, student, teachers, optimizer, loader, dev_loader):\n"
        "        self.student = student\n"
        "        self.teachers = teachers\n"
        "        self.optimizer = optimizer\n"
        "        self.loader = loader\n"
        "        self.dev_loader = dev_loader\n"
        "    def _train_step(self, x):\n"
        "        with torch.no_grad():\n"
        "            target = sum(self.teachers[key](x) for key in self.teachers)\n"
        "        self.optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(self.student(x), target).backward()\n"
        "        self.optimizer.step()\n"
        "    @torch.no_grad()\n"
        "    def _eval_epoch(self):\n"
        "        for key in self.teachers:\n"
        "            self.teachers[key].eval()\n"
        "        for x, y in self.dev_loader:\n"
        "            self.teachers[\"resnet\"](x)\n"
        "    def run(self):\n"
        "        self.student.train()\n"
        "        for epoch in range(10):\n"
        "            for x, y in self.loader:\n"
        "                self._train_step(x)\n"
        "            self._eval_epoch()\n",
        # one model of a dict put in eval mode, every model of it put back by a loop over its keys
        "import torch\n"
        "def main(generator, discriminator, loader, val_loader, epochs):\n"
        "    models = {\"generator\": generator, \"discriminator\": discriminator}\n"
        "    optimizer = torch.optim.Adam(generator.parameters())\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            models[\"generator\"](x).mean().backward()\n"
        "            optimizer.step()\n"
        "        models[\"generator\"].eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                models[\"generator\"](x)\n"
        "        for key in models:\n"
        "            models[key].train()\n",
        # the models of a dict put in eval mode by a method, and back in train mode at the top of each epoch
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, generator, discriminator):\n"
        "        self.model = {\"generator\": generator, \"discriminator\": discriminator}\n"
        "        self.optimizer = torch.optim.Adam(generator.parameters())\n"
        "    def _eval(self, val_loader):\n"
        "        for key in self.model:\n"
        "            self.model[key].eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                self.model[\"generator\"](x)\n"
        "    def run(self, loader, val_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for key in self.model:\n"
        "                self.model[key].train()\n"
        "            for x in loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self.model[\"generator\"](x).mean().backward()\n"
        "                self.optimizer.step()\n"
        "            self._eval(val_loader)\n",
        # ... and back in train mode by a loop over its values after the method's call
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, generator, discriminator):\n"
        "        self.model = {\"generator\": generator, \"discriminator\": discriminator}\n"
        "        self.optimizer = torch.optim.Adam(generator.parameters())\n"
        "    def _eval(self, val_loader):\n"
        "        for key in self.model:\n"
        "            self.model[key].eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                self.model[\"generator\"](x)\n"
        "    def run(self, loader, val_loader, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for x in loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self.model[\"generator\"](x).mean().backward()\n"
        "                self.optimizer.step()\n"
        "            self._eval(val_loader)\n"
        "            for model in self.model.values():\n"
        "                model.train()\n",
        # a name bound in each arm of an `if` statement to a model that is not trained,
        # or put back in train mode at the top of every epoch
        "import copy\n"
        "import torch\n"
        "def train(model, swa_model, optimizer, loader, val_loader, use_swa):\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            optimizer.step()\n"
        "        if use_swa:\n"
        "            evalmodel = swa_model\n"
        "        else:\n"
        "            evalmodel = copy.deepcopy(model)\n"
        "        evalmodel.eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                evalmodel(x)\n",
        "import torch\n"
        "def train(model, ema, optimizer, loader, val_loader, use_ema):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            optimizer.step()\n"
        "        if use_ema:\n"
        "            evalmodel = ema\n"
        "        else:\n"
        "            evalmodel = model\n"
        "        evalmodel.eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                evalmodel(x)\n",
        "import copy\n"
        "import torch\n"
        "def train(model, optimizer, loader, val_loader):\n"
        "    model.train()\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            optimizer.step()\n"
        "        evalmodel = model\n"
        "        evalmodel = copy.deepcopy(evalmodel)\n"
        "        evalmodel.eval()\n"
        "        with torch.no_grad():\n"
        "            for x in val_loader:\n"
        "                evalmodel(x)\n",
        # the module that trains itself switches back to train mode before each update
        "import torch\n"
        "import torch.nn as nn\n"
        "class Discriminator(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.trunk = nn.Sequential(nn.Linear(dim, 64), nn.Dropout(0.1), nn.Linear(64, 1))\n"
        "        self.optimizer = torch.optim.Adam(self.trunk.parameters())\n"
        "    def update(self, batches):\n"
        "        self.train()\n"
        "        for x in batches:\n"
        "            loss = self.trunk(x).mean()\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "    def predict_reward(self, x):\n"
        "        with torch.no_grad():\n"
        "            self.eval()\n"
        "            return self.trunk(x)\n"
        "def main(rollouts):\n"
        "    discr = Discriminator(10)\n"
        "    for j in range(100):\n"
        "        discr.update(rollouts.batches())\n"
        "        rollouts.rewards = discr.predict_reward(rollouts.obs)\n",
        # the same module, whose `train_step()` begins by switching itself back to train mode
        "import torch\n"
        "from torch import nn\n"
        "class Regressor(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1), nn.Linear(8, 1))\n"
        "        self.optimizer = torch.optim.Adam(self.parameters())\n"
        "    def train_step(self, x, y):\n"
        "        self.train()\n"
        "        loss = nn.functional.mse_loss(self.net(x), y)\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def evaluate(self, x, y):\n"
        "        self.eval()\n"
        "        with torch.no_grad():\n"
        "            return nn.functional.mse_loss(self.net(x), y).item()\n"
        "def main(loader, val):\n"
        "    model = Regressor()\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            model.train_step(x, y)\n"
        "        print(model.evaluate(*val))\n",
        # the mode set by the split, an arm of an `if` expression each (karpathy/pytorch-made)
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    model.train() if split == \"train\" else model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # gradients of a model in eval mode on purpose (a saliency map): nothing is stepped there
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    model.train()\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "def saliency(model, loader):\n"
        "    model.eval()\n"
        "    maps = []\n"
        "    for x, y in loader:\n"
        "        x.requires_grad_(True)\n"
        "        model.zero_grad()\n"
        "        model(x).gather(1, y[:, None]).sum().backward()\n"
        "        maps.append(x.grad.abs().detach())\n"
        "    return maps\n"
        "def main(model, loader, optimizer):\n"
        "    for epoch in range(10):\n"
        "        train(model, loader, optimizer)\n"
        "        saliency(model, loader)\n",
        # validation through a module whose forward back-propagates only in train mode: it computes
        # a loss there, it does not train
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
        "            total += trainer(x, y)\n",
        # the forward method (first parameter not named `self`) trains the model, and each epoch
        # switches it back to train mode
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, train_loader, valid_loader):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.train_loader = train_loader\n"
        "        self.valid_loader = valid_loader\n"
        "\n"
        "    def _forward(trainer, x):\n"
        "        return trainer.model(x).mean()\n"
        "\n"
        "    def train(self, num_epochs):\n"
        "        for epoch in range(num_epochs):\n"
        "            self.model.train()\n"
        "            for x in self.train_loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss = self._forward(x)\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            self._validate()\n"
        "\n"
        "    def _validate(self):\n"
        "        self.model.eval()  # expect: TL405\n"
        "        with torch.no_grad():\n"
        "            for x in self.valid_loader:\n"
        "                self._forward(x)\n",
        # the same epoch function switched by a negated flag: the validation pass
        # (`cross_valid=True`) skips the backward, the next epoch starts with `.train()`
        "import torch\n"
        "class Solver:\n"
        "    def train(self):\n"
        "        for epoch in range(10):\n"
        "            self.model.train()\n"
        "            self._run_one_epoch(epoch)\n"
        "            self.model.eval()\n"
        "            self._run_one_epoch(epoch, cross_valid=True)\n"
        "    def _run_one_epoch(self, epoch, cross_valid=False):\n"
        "        for x in self.loader:\n"
        "            loss = self.model(x).mean()\n"
        "            if not cross_valid:\n"
        "                self.optimizer.zero_grad()\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n",
        # and switched by the phase's name
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, 'train')\n"
        "        model.eval()\n"
        "        run_epoch(model, optimizer, valid_loader, 'val')\n"
        "def run_epoch(model, optimizer, loader, phase):\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if phase == 'train':\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # the validation pass leaves the iteration before the backward (`if cross_valid:
        # continue`), the method called on its class
        "import torch\n"
        "class Solver:\n"
        "    def train(self):\n"
        "        for epoch in range(10):\n"
        "            self.model.train()\n"
        "            self._run(epoch)\n"
        "            self.model.eval()\n"
        "            Solver._run(self, epoch, True)\n"
        "    def _run(self, epoch, cross_valid=False):\n"
        "        for x in self.loader:\n"
        "            loss = self.model(x).mean()\n"
        "            if cross_valid: continue\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n",
        # the backward in the `else:` of `if not train:`
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, train=True)\n"
        "        model.eval()\n"
        "        run_epoch(model, optimizer, valid_loader, train=False)\n"
        "def run_epoch(model, optimizer, loader, train):\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        if train:\n"
        "            optimizer.zero_grad()\n"
        "        if not train:\n"
        "            print(loss.item())\n"
        "        else:\n"
        "            loss.backward()\n"
        "        if train:\n"
        "            optimizer.step()\n",
        # the epoch function hands the flag on to the batch function that back-propagates
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, train=True)\n"
        "        model.eval()\n"
        "        run_epoch(model, optimizer, valid_loader, train=False)\n"
        "def run_epoch(model, optimizer, loader, train):\n"
        "    for x in loader:\n"
        "        run_batch(model, optimizer, x, train)\n"
        "def run_batch(model, optimizer, x, train):\n"
        "    loss = model(x).mean()\n"
        "    if train:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # the step is a function defined in the epoch function, reading its `phase` as it is
        "import torch\n"
        "def fit(model, optimizer, train_loader, valid_loader):\n"
        "    for epoch in range(10):\n"
        "        model.train()\n"
        "        run_epoch(model, optimizer, train_loader, 'train')\n"
        "        model.eval()\n"
        "        run_epoch(model, optimizer, valid_loader, 'val')\n"
        "def run_epoch(model, optimizer, loader, phase):\n"
        "    def step(loss):\n"
        "        if phase == 'train':\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        step(model(x).mean())\n",
        # a model set up in eval mode that the class may put back in train mode, or does not
        # surely leave there: its training method calls `.train()`, the loop only evaluates,
        # the class has a base class (whose methods may switch modes), the eval runs under a
        # condition or in a method the training method does not call first, or the model
        # is replaced by another method
        "import torch\n"
        "import torch.nn as nn\n"
        "class Trainer:\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model.eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        self.model.train()\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Evaluator:\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model.eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def run(self):\n"
        "        with torch.no_grad():\n"
        "            for x, y in self.loader:\n"
        "                print(nn.functional.mse_loss(self.model(x), y).item())\n"
        "class Base:\n"
        "    pass\n"
        "class Derived(Base):\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model.eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Conditional:\n"
        "    def __init__(self, model, loader, frozen):\n"
        "        self.model = model\n"
        "        if frozen:\n"
        "            self.model.eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def freeze(self):\n"
        "        self.model.eval()\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Rebuilt:\n"
        "    def __init__(self, loader):\n"
        "        self.model = nn.Linear(8, 8).eval()\n"
        "        self.loader = loader\n"
        "    def reset(self):\n"
        "        self.model = nn.Linear(8, 8)\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a frozen backbone built in eval mode beside the head an optimizer trains: the
        # loop steps only the head's parameters
        "import torch\n"
        "import torch.nn as nn\n"
        "class Probe:\n"
        "    def __init__(self, backbone, head, loader):\n"
        "        self.backbone = backbone.eval()\n"
        "        self.head = head\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.head.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.cross_entropy(self.head(self.backbone(x)), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a model built in eval mode that other code may put back in train mode: handed to a
        # helper (`set_train(self.net)`), its modules walked by code outside the class
        # (`trainer.body.modules()`), `apply` run over it, or a decorated training method
        "import torch\n"
        "import torch.nn as nn\n"
        "from utils import enable_training\n"
        "def set_train(m):\n"
        "    m.train()\n"
        "class Helped:\n"
        "    def __init__(self, loader):\n"
        "        self.net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        set_train(self.net)\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.net(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Walked:\n"
        "    def __init__(self, loader):\n"
        "        self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.body.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.body(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "def main(loader):\n"
        "    trainer = Walked(loader)\n"
        "    for module in trainer.body.modules():\n"
        "        module.train()\n"
        "    trainer.fit()\n"
        "class Applied:\n"
        "    def __init__(self, loader):\n"
        "        self.model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        self.model.apply(lambda m: setattr(m, \"training\", True))\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Decorated:\n"
        "    def __init__(self, loader):\n"
        "        self.encoder = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.encoder.parameters(), lr=0.1)\n"
        "    @enable_training\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.encoder(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a frozen backbone in eval mode whose class steps only its probe, run under
        # `torch.no_grad()` or not, beside another class that trains its own `self.model`;
        # and a head put in train mode that may be the model itself (`self.head = model`)
        "import torch\n"
        "import torch.nn as nn\n"
        "class FeatureProbe:\n"
        "    def __init__(self, backbone, loader):\n"
        "        self.model = backbone.eval()\n"
        "        self.probe = nn.Linear(512, 10)\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.probe.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            with torch.no_grad():\n"
        "                feats = self.model(x)\n"
        "            loss = nn.functional.cross_entropy(self.probe(feats), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class LinearProbe:\n"
        "    def __init__(self, backbone, loader):\n"
        "        self.model = backbone.eval()\n"
        "        self.probe = nn.Linear(512, 10)\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.probe.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.cross_entropy(self.probe(self.model(x)), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Finetune:\n"
        "    def __init__(self, model, loader):\n"
        "        self.model = model\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.cross_entropy(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "class Shared:\n"
        "    def __init__(self, net, loader):\n"
        "        self.net = net.eval()\n"
        "        self.head = net\n"
        "        self.loader = loader\n"
        "        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)\n"
        "    def fit(self):\n"
        "        self.head.train()\n"
        "        for x, y in self.loader:\n"
        "            loss = nn.functional.mse_loss(self.net(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n",
        # a script's model built in eval mode that a function of the file puts back in train
        # mode before the loop
        "import torch\n"
        "import torch.nn as nn\n"
        "model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "def start_training():\n"
        "    model.train()\n"
        "start_training()\n"
        "for x, y in loader:\n"
        "    loss = nn.functional.mse_loss(model(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a frozen teacher in eval mode, run with and without `torch.no_grad()`, that the
        # optimizer does not hold; and a backbone in eval mode under a probe that the
        # optimizer alone holds
        "import torch\n"
        "import torch.nn as nn\n"
        "teacher = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()\n"
        "student = nn.Linear(8, 8)\n"
        "probe = nn.Linear(8, 2)\n"
        "optimizer = torch.optim.SGD(student.parameters(), lr=0.1)\n"
        "probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    with torch.no_grad():\n"
        "        target = teacher(x)\n"
        "    loss = nn.functional.mse_loss(student(x), target) + nn.functional.mse_loss(student(x), teacher(x))\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "for x, y in loader:\n"
        "    loss = nn.functional.cross_entropy(probe(backbone(x)), y)\n"
        "    probe_opt.zero_grad()\n"
        "    loss.backward()\n"
        "    probe_opt.step()\n",
        # a script's model built in eval mode, then handed to a helper out of reach (which
        # may switch it), or built anew before the loop
        "import torch\n"
        "import torch.nn as nn\n"
        "from helpers import prepare_for_training\n"
        "model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "prepare_for_training(model)\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = nn.functional.mse_loss(model(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = nn.functional.mse_loss(net(x), y)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n",
        # a library's function handed the model at the start of each epoch: what it does to
        # its mode is not told (it may put it back in train mode)
        "import torch\n"
        "from dropout_tools import enable_training\n"
        "def fit(model, loader, val_loader, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        enable_training(model)\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n",
        # the same library's function handed the model under another name, or in a list
        "import torch\n"
        "from dropout_tools import enable_training\n"
        "def fit(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n"
        "        net = model\n"
        "        enable_training(net)\n",
        "import torch\n"
        "from dropout_tools import enable_training\n"
        "def fit(model, loader, val_loader, optimizer, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n"
        "        enable_training([model])\n",
        # a script that runs code from text: what it does to the model cannot be read
        "import torch\n"
        "import torch.nn as nn\n"
        "model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "exec(open(\"modes.py\").read())\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = nn.functional.mse_loss(model(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a function's model built in eval mode that a helper called from its loop puts back
        # in train mode
        "import torch\n"
        "import torch.nn as nn\n"
        "def train_step(model, optimizer, x, y):\n"
        "    model.train()\n"
        "    loss = nn.functional.mse_loss(model(x), y)\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "def main():\n"
        "    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        train_step(model, optimizer, x, y)\n"
        "        nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a function's model that its caller may switch: a parameter, one read from an
        # attribute, a global; and a frozen teacher the function builds but does not step
        "import torch\n"
        "import torch.nn as nn\n"
        "net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "def fit(model, loader):\n"
        "    model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "class Finetuner:\n"
        "    def fit(self, loader):\n"
        "        model = self.model\n"
        "        model.eval()\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "def fit_global(loader):\n"
        "    net.eval()\n"
        "    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        nn.functional.mse_loss(net(x), y).backward()\n"
        "        optimizer.step()\n"
        "def distill(loader):\n"
        "    teacher = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "    student = nn.Linear(8, 8)\n"
        "    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        with torch.no_grad():\n"
        "            target = teacher(x)\n"
        "        optimizer.zero_grad()\n"
        "        nn.functional.mse_loss(student(x), target).backward()\n"
        "        optimizer.step()\n",
        # a function's model put in eval mode only on some runs (`if args.freeze_bn:`), or
        # only after training, for testing; and one whose loop does not back-propagate
        "import torch\n"
        "import torch.nn as nn\n"
        "def main(args):\n"
        "    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))\n"
        "    if args.freeze_bn:\n"
        "        model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        for x, y in test_loader:\n"
        "            print(model(x).argmax(1).eq(y).float().mean())\n"
        "def calibrate(loader):\n"
        "    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        model(x)\n"
        "        optimizer.step()\n",
        # a script's `if __name__ == \"__main__\":` block that puts its model back in train
        # mode inside the loop
        "import torch\n"
        "import torch.nn as nn\n"
        "if __name__ == \"__main__\":\n"
        "    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        model.train()\n"
        "        loss = nn.functional.mse_loss(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a function's model it does not surely build: a wrapper of the instance's model,
        # a builder method, a registry's model; their loops call code out of sight (a base
        # class's hook, an imported function) that may put it back in train mode
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from base import BaseRunner\n"
        "from registry import get_model, start_step\n"
        "class Runner(BaseRunner):\n"
        "    def fit(self, loader):\n"
        "        model = torch.nn.DataParallel(self.model)\n"
        "        model.eval()\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for x, y in loader:\n"
        "            self.call_hook(\"before_train_iter\")\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "    def run(self, loader):\n"
        "        model = self.build_model().eval()\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for x, y in loader:\n"
        "            self.before_iter()\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "def main(loader):\n"
        "    model = get_model(\"resnet\")\n"
        "    model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        start_step()\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a linear probe: the backbone's parameters frozen, its BatchNorm statistics kept
        # as pretrained by eval mode on purpose
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "def linear_probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"IMAGENET1K_V2\")\n"
        "    for name, param in model.named_parameters():\n"
        "        if not name.startswith(\"fc.\"):\n"
        "            param.requires_grad = False\n"
        "    model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the same in the `if __name__ == "__main__":` block, the optimizer holding only the
        # head's parameters
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "if __name__ == \"__main__\":\n"
        "    model = torchvision.models.resnet50(weights=\"IMAGENET1K_V2\").eval()\n"
        "    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # at the module's level, a backbone frozen in place
        "import torch\n"
        "from torch import nn\n"
        "net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.LazyLinear(10))\n"
        "for name, param in net.named_parameters():\n"
        "    param.requires_grad_(name.startswith(\"3.\"))\n"
        "net.eval()\n"
        "opt = torch.optim.Adam(net.parameters())\n"
        "while True:\n"
        "    x, y = next(batches)\n"
        "    opt.zero_grad()\n"
        "    nn.functional.cross_entropy(net(x), y).backward()\n"
        "    opt.step()\n",
        # a class's linear probe: the backbone frozen where the model is set up in eval mode
        "import torch\n"
        "import torchvision\n"
        "class Probe:\n"
        "    def __init__(self):\n"
        "        self.model = torchvision.models.resnet50(weights=\"IMAGENET1K_V2\").eval()\n"
        "        for name, param in self.model.named_parameters():\n"
        "            param.requires_grad = name.startswith(\"fc.\")\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(self.model(x), y).backward()\n"
        "            self.opt.step()\n",
        # an optimizer handed some of the model's parameters, picked by name or by place:
        # the backbone under a probe may be kept in eval mode on purpose
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "def probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"IMAGENET1K_V2\").eval()\n"
        "    optimizer = torch.optim.SGD([p for n, p in model.named_parameters() if n.startswith(\"fc.\")], lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torchvision\n"
        "if __name__ == \"__main__\":\n"
        "    model = torchvision.models.resnet50(weights=\"IMAGENET1K_V2\").eval()\n"
        "    optimizer = torch.optim.SGD(list(model.parameters())[-2:], lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a class freezing a part of its model (the first layers of its features): what
        # reads a part of the model may switch it
        "import torch\n"
        "import torchvision\n"
        "class Probe:\n"
        "    def __init__(self):\n"
        "        self.model = torchvision.models.vgg16(weights=\"IMAGENET1K_V1\").eval()\n"
        "        self.model.features[:10].requires_grad_(False)\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(self.model(x), y).backward()\n"
        "            self.opt.step()\n",
        # a selection of the parameters (a filter on more than requires_grad), and a
        # parameter group of another module: what is kept in eval mode may not be trained
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()\n"
        "optimizer = torch.optim.SGD([p for p in backbone.parameters() if p.requires_grad and p.ndim > 1], lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    F.cross_entropy(backbone(x), y).backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "backbone = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "backbone.eval()\n"
        "head = nn.Linear(8, 2)\n"
        "optimizer = torch.optim.SGD([dict(params=head.parameters())], lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    F.cross_entropy(head(backbone(x)), y).backward()\n"
        "    optimizer.step()\n",
        # a model wrapping a module read from the object, or another call's: other code may
        # switch that module
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "from base import BaseRunner\n"
        "class Runner(BaseRunner):\n"
        "    def fit(self, loader):\n"
        "        model = nn.Sequential(self.backbone, nn.Linear(512, 10)).eval()\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for x, y in loader:\n"
        "            self.call_hook(\"before_train_iter\")\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torchvision.models.feature_extraction import create_feature_extractor\n"
        "def fit(loader, build):\n"
        "    model = create_feature_extractor(build(), {\"fc\": \"out\"})\n"
        "    model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x)[\"out\"], y).backward()\n"
        "        optimizer.step()\n",
        # the model's parameters frozen through a part of their list, numbered, or by an
        # annotated assignment: a linear probe
        "import torch\n"
        "import torchvision\n"
        "def probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"DEFAULT\").eval()\n"
        "    for p in list(model.parameters())[:-2]:\n"
        "        p.requires_grad = False\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "import torchvision\n"
        "def probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"DEFAULT\").eval()\n"
        "    for i, (name, param) in enumerate(model.named_parameters()):\n"
        "        if i < 150:\n"
        "            param.requires_grad = False\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "import torchvision\n"
        "def probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"DEFAULT\").eval()\n"
        "    for p in model.parameters():\n"
        "        p.requires_grad: bool = False\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # parameters frozen from a list the rule does not follow: they may be the model's
        "import torch\n"
        "import torchvision\n"
        "def probe(loader):\n"
        "    model = torchvision.models.resnet50(weights=\"DEFAULT\").eval()\n"
        "    params = list(model.parameters())\n"
        "    for p in params[:-2]:\n"
        "        p.requires_grad = False\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a parameter handed to a class of the file or to `nn.Sequential` with no sign that it
        # is a setting: it may be a module the caller switches
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "class Wrapper(nn.Module):\n"
        "    def __init__(self, backbone):\n"
        "        super().__init__()\n"
        "        self.backbone = backbone\n"
        "        self.drop = nn.Dropout(0.5)\n"
        "    def forward(self, x):\n"
        "        return self.drop(self.backbone(x))\n"
        "def fit(loader, backbone, head=None):\n"
        "    model = nn.Sequential(Wrapper(backbone), nn.Sequential(head)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a parameter that may be a module, handed to a torchvision class that wraps it:
        # its caller may switch the backbone
        "import torch\n"
        "from torchvision.models._utils import IntermediateLayerGetter\n"
        "def fit(loader, backbone):\n"
        "    model = IntermediateLayerGetter(backbone, {\"layer4\": \"out\"}).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        (model(x)[\"out\"].mean(dim=(2, 3)) - y).pow(2).mean().backward()\n"
        "        optimizer.step()\n",
        # a detector built around a backbone handed in: its number of classes is a setting,
        # the backbone may be a module the caller switches
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torchvision.models.detection import FasterRCNN\n"
        "def fit(loader, backbone, classes: int):\n"
        "    model = FasterRCNN(backbone, num_classes=classes).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a fused module of `torch.nn` made of a convolution and a BatchNorm handed in
        "import torch\n"
        "import torch.nn.functional as F\n"
        "import torch.nn.intrinsic\n"
        "def fit(loader, conv, bn):\n"
        "    model = torch.nn.intrinsic.ConvBn2d(conv, bn).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a parameter handed to `nn.Sequential` may be a module whatever its default
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, head=0):\n"
        "    model = nn.Sequential(nn.Linear(4, 4), head).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a wrapper of the model the function is given is no model built here
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(model_param, loader, rank):\n"
        "    model = nn.parallel.DistributedDataParallel(model_param, device_ids=[rank]).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # nor of a module read from a config: other code may switch it
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, cfg):\n"
        "    model = nn.Sequential(nn.parallel.DistributedDataParallel(cfg.backbone), nn.Dropout(0.5)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a wrapper of the model put back in train mode puts the model back too
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "net = torch.nn.DataParallel(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    net.train() if split == \"train\" else model.eval()\n"
        "    for x in batches:\n"
        "        loss = net(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model added to another by a later statement is put back with it
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "net = torch.nn.Sequential()\n"
        "net.add_module(\"body\", model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        net.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model held through a list handed to another is put back with it
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "layers = [model, torch.nn.ReLU()]\n"
        "net = torch.nn.Sequential(*layers)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        net.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model set as another's attribute is put back with it
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "net = torch.nn.Module()\n"
        "net.body = model\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        net.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model appended to another's list of modules is put back with it
        "import torch\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "net = torch.nn.ModuleList()\n"
        "net.append(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        net.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # two models of a function the rule cannot read may be one object
        "import torch\n"
        "model = build()\n"
        "net = build()\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        net.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model moved in place and then wrapped under another name is put back with its wrapper
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "model = model.to(device)\n"
        "ema = torch.nn.DataParallel(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model printed and also handed to an object the rule cannot read, which may hold it
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "print(model)\n"
        "ema = ModelEMA(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a model wrapped under its own name and then held by another module is put back with it
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "model = torch.nn.DataParallel(model)\n"
        "ema = torch.nn.Sequential(model, torch.nn.Dropout())\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a shallow copy shares the model's layers: its `train()` puts them back in train mode
        "import copy\n"
        "import torch\n"
        "device = torch.device(\"cuda\")\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())\n"
        "ema = copy.copy(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x.to(device)).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # a parameter passed by position where a layer of `torch.nn` takes a module
        # (`nn.TransformerEncoder`'s layer) may be a module other code switches
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "def fit(loader, layer, classes):\n"
        "    model = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Linear(512, classes)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # and so may one passed by position to a class of the file, whatever it names it
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "class Head(nn.Module):\n"
        "    def __init__(self, body):\n"
        "        super().__init__()\n"
        "        self.body = body\n"
        "        self.fc = nn.Linear(512, 10)\n"
        "    def forward(self, x):\n"
        "        return self.fc(self.body(x))\n"
        "def fit(loader, body, classes):\n"
        "    model = nn.Sequential(Head(body), nn.Linear(10, classes)).eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        F.cross_entropy(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a `print` of the file, not the builtin, may keep what it is given: here in the other model
        "import torch\n"
        "from torch import nn\n"
        "model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "ema = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "def print(*a):\n"
        "    ema.add_module(\"m\", a[0])\n"
        "print(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
        # annotated, a wrapper under the other name still holds the model
        "import torch\n"
        "from torch import nn\n"
        "model = nn.Sequential(nn.Linear(2, 2), nn.Dropout())\n"
        "ema: nn.Module = nn.DataParallel(model)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "def run_epoch(split, batches):\n"
        "    if split == \"train\":\n"
        "        ema.train()\n"
        "    else:\n"
        "        model.eval()\n"
        "    for x in batches:\n"
        "        loss = model(x).sum()\n"
        "        if split == \"train\":\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "for epoch in range(10):\n"
        "    run_epoch(\"train\", train_batches)\n"
        "    run_epoch(\"test\", test_batches)\n",
    )

    def finish(self) -> None:
        self._exempt: set[cst.CSTNode] = set()
        self._candidates: set[cst.CSTNode] = set()
        # the calls of other modules' functions or of objects' methods whose backward
        # made each candidate one (see `_trains_itself`)
        self._trained_by: dict[cst.CSTNode, set[cst.CSTNode]] = {}
        self._restoring = train_mode_methods(self.ctx)
        # calls of other modules' functions that set modes or back-propagate, and
        # those that put a model they are given in eval mode (`evaluate(model,
        # loader)` of engine.py), with that model
        self._external = mode_setting_calls(self.ctx)
        # calls that hand a model to code out of reach, which may put it back in train mode
        self._handed_away = handed_away(self.ctx)
        self._evaluated: dict[cst.CSTNode, str] = {}  # the call, and the model it evaluates (as written)
        self._switched: dict[cst.CSTNode, str | None] = {}  # each fact's `.eval()`: the model it names, once
        self._periodic: dict[cst.CSTNode, bool] = {}  # each eval's `every_n_steps`, asked at every backward
        self._steps_nothing: dict[cst.FunctionDef, bool] = {}  # see `_gradients_in_eval`, per function
        self._functions: dict[cst.CSTNode, cst.FunctionDef | None] = {}  # each eval's and backward's, for the same
        self._restored_containers: dict[cst.CSTNode, str | None] = {}  # each loop's `each_item_put_back`
        self._made_alone: dict[Binding, list[cst.BaseExpression]] = {}  # see `_own_module`, per variable
        self._separate: dict[tuple[cst.CSTNode, cst.CSTNode], bool] = {}  # see `_separate_models`, per `.train()` and fact
        restoring = self._restoring
        external = self._external
        away = self._handed_away

        def is_event(node: cst.CSTNode) -> bool:
            return (_is_event(node) or (bool(restoring) and method_call(node, *restoring) is not None)
                    or node in external or node in away)

        flow = self._flow = CallFlow(self.ctx, self._transfer, loop_back=_cross_iteration, events=is_event,
                                     by_call_site=True, loop_exit=self._leave_loop)
        for body in code_bodies(self.ctx):
            flow.run_if_events(body)
        del self._flow  # it holds this rule's transfer: no cycle outlives the walk
        # an eval made after a backward of the same loop's iteration is a validation
        # switch: one also reaching a backward unchanged from before the loop (`if resume:
        # validate()` before the epochs) is still a candidate
        # and so is an object's eval that its own training method reaches from an earlier
        # iteration, whatever else back-propagates with the eval in force (a GAIL policy)
        candidates = self._candidates - {
            node for node in self._exempt
            if not after_backward_in_a_loop(self.ctx, node) and not self._trains_itself(node)}
        trained = trained_models(self.ctx) if candidates else set()
        # a model another module evaluates must be trained here as such: run in a
        # back-propagated forward is not enough (a frozen feature extractor whose
        # class, elsewhere, runs it without gradients)
        stepped = trained_models(self.ctx, forward=False) if self._evaluated else set()
        reported: set[cst.CSTNode] = set()
        for node in candidates:
            model = self._model_of(node)
            if node not in self._evaluated:
                if trained_receiver(self.ctx, node, trained):
                    self.report(node)
                    reported.add(node)
            elif model in stepped or self._steps_what_it_holds(node, stepped) or self._trains_itself(node):
                name = self.ctx.code(node.func)  # type: ignore[attr-defined]
                self.report(node, f"`{name}()` switches `{model}` to `.eval()` and training resumes without "
                                  "`.train()`: dropout and BatchNorm stay in eval mode")
                reported.add(node)
        if self.ctx.nodes_of(cst.ClassDef):
            for node, model, setup, trainer in left_in_eval_mode(self.ctx):
                if node not in reported:
                    reported.add(node)
                    self.report(node, f"`{setup}()` puts `{model}` in eval mode and `{trainer}()` trains it "
                                      "without `.train()`: dropout and BatchNorm stay in eval mode")
        for node, model, function in left_in_eval_by_the_script(self.ctx):
            if node not in reported:
                script = f"`{function}()`'s" if function is not None else "the script's"
                self.report(node, f"`{model}` is put in eval mode before {script} training loop trains it "
                                  "without `.train()`: dropout and BatchNorm stay in eval mode")

    def _steps_what_it_holds(self, call: cst.CSTNode, stepped: set[str]) -> bool:
        """`trainer.evaluate()` of a `trainer = Trainer(model, ...)` whose class, in this
        file, puts `self.model` in eval mode and steps it in another method (the model
        is trained here, by the object that holds it)."""
        summary = self._external.get(call)
        built = self.ctx.summaries.targets.construction(call.func.value) \
            if summary is not None and type(call) is cst.Call and type(call.func) is cst.Attribute else None
        if built is None or self.ctx.local_callee(built) is None:
            return False  # an object of a class of another module: its own file judges it
        return any(name.startswith("self.") and name in stepped for name in summary.eval_mode)  # type: ignore[union-attr]

    def _trains_itself(self, call: cst.CSTNode) -> bool:
        """`discr.predict_reward(obs)` whose method puts the object itself in eval mode
        (`self.eval()` of a module), where the object is built here from a class (of this
        file or of the project) whose constructor hands its own parameters, or those of
        its attributes, to an optimizer it builds (`Adam(self.parameters())`,
        `Adam(self.trunk.parameters())`), and a
        method of the object that steps it (`discr.update(batches)`) back-propagates
        with that eval in force, from a later iteration: a GAIL discriminator, a GAN's
        critic."""
        summary = self._external.get(call)
        if summary is None or "self" not in summary.eval_mode or type(call) is not cst.Call:
            return False
        if type(call.func) is not cst.Attribute:
            return False
        built = construction_of_receiver(self.ctx, call)
        if built is None or not any(name == "self" or name.startswith("self.") for name in built[1].optimizes):
            return False
        receiver = self.ctx.code(call.func.value)
        for other in self._trained_by.get(call, ()):
            does = self._external.get(other)
            if (does is not None and does.does(STEP) and type(other) is cst.Call
                    and type(other.func) is cst.Attribute and self.ctx.code(other.func.value) == receiver):
                return True
        return False

    def _model_of(self, eval_node: cst.CSTNode) -> str | None:
        # asked of every fact at every `.eval()` and every call handing a model away
        if eval_node not in self._switched:
            mode = mode_switch(self.ctx, eval_node)
            self._switched[eval_node] = self.ctx.code(mode[0]) if mode is not None else None
        switched = self._switched[eval_node]
        return switched if switched is not None else self._evaluated.get(eval_node)

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        facts = self._bounded(facts)
        if self._restoring and method_call(node, *self._restoring) is not None:
            return frozenset()  # the method puts (part of) the model back in train mode
        handed = self._handed_away.get(node)
        if handed:  # what is done to them is not told: they may be back in train mode
            facts = frozenset(fact for fact in facts if not any(
                _same_module(self._model_of(fact[1]), model) for model in handed))
        mode = mode_switch(self.ctx, node)
        if mode is not None:
            if mode[1] is False:
                if one_of_its_layers(self.ctx, node, mode[0]):
                    return facts  # BatchNorm layers frozen on purpose, not a validation switch
                if mode_saved_and_restored(self.ctx, node, mode[0]):
                    return facts  # on the paths where the model was training, it is put back
                if replaced_parameter(self.ctx, mode[0]):
                    return facts  # a model of its own (`model = copy.deepcopy(model)`), not the caller's
                return self._evaluates(facts, node, self.ctx.code(mode[0]))
            # back in train mode: the model switched, and any it may hold or be
            return frozenset(fact for fact in facts if self._apart(mode[0], fact[1]))
        if is_backward(node):
            self._back_propagates(facts, node)
            return facts
        summary = self._external.get(node)
        if summary is not None:
            return self._through(facts, node, summary)  # type: ignore[arg-type]
        return facts

    def _leave_loop(self, loop: cst.For | cst.While, facts: Facts) -> Facts:
        """A loop over the keys of a container that puts each item back in train mode
        restores every item of it switched to eval mode, by key or in such a loop, also
        on the path that skips its body: the container holds the switched item, so it
        is not empty and the body runs."""
        if not facts:
            return facts
        if loop not in self._restored_containers:
            self._restored_containers[loop] = each_item_put_back(self.ctx, loop)
        container = self._restored_containers[loop]
        if container is None:
            return facts
        return frozenset(fact for fact in facts if container_switched(self.ctx, fact[1]) != container)

    def _apart(self, trained: cst.BaseExpression, eval_node: cst.CSTNode) -> bool:
        # asked of every fact at every `.train()`, at each visit of the flow
        key = (trained, eval_node)
        if key not in self._separate:
            self._separate[key] = self._separate_models(trained, eval_node)
        return self._separate[key]

    def _separate_models(self, trained: cst.BaseExpression, eval_node: cst.CSTNode) -> bool:
        """The model put back in train mode (`ema.train()`) and the one `eval_node` put in
        eval mode (`model.eval()`) are two objects neither holds: two names, each its own
        module (see `_own_module`). Otherwise (`net.add_module("m", model)`, `mods =
        [model]`, `model = get_model()`) one may hold the other, and is put back with it."""
        evaluated = mode_switch(self.ctx, eval_node)
        if evaluated is None or type(trained) is not cst.Name or type(evaluated[0]) is not cst.Name:
            return False
        if trained.value == evaluated[0].value:
            return False
        return self._own_module(trained, evaluated[0].value) and self._own_module(evaluated[0], trained.value)

    def _own_module(self, name: cst.Name, other: str) -> bool:
        """`name`'s variable is assigned a new module built here (`nn.Linear(2, 2)`, `Net()`,
        see `new_module`) handed nothing spelled `other`, or a deep copy (`copy.deepcopy(model)`,
        which shares nothing), and otherwise only that module moved or wrapped (`model =
        model.to(device)`, `model = DDP(model)`); it is only ever read to be called, to have
        a method called (`model(x)`, `model.parameters()`) or by what keeps nothing (see
        `_read_in_place`): never handed on, stored, aliased or returned, so that no other
        object can hold it."""
        binding = self.ctx.receivers.binding(name)
        if binding is None:
            return False
        # asked at every `.train()` of every fact: what does not depend on `other` is
        # read once per variable, or a file of many such loops takes quadratic time
        if binding not in self._made_alone:
            self._made_alone[binding] = self._made_and_kept_alone(binding)
        made = self._made_alone[binding]
        return bool(made) and all(self._fresh_module(value, other) for value in made)

    def _made_and_kept_alone(self, binding: Binding) -> list[cst.BaseExpression]:
        """The values that make the module `binding` holds, the others only moving or
        wrapping it; none where it is not only ever read in place (see `_own_module`)."""
        values = self.ctx.receivers.only_assigned(binding)
        if not values:
            return []
        made = [value for value in values if not self._moved_or_wrapped(value, binding)]
        kept_alone = all(self._read_in_place(node, binding) for node in self.ctx.receivers.spelled(binding.name)
                         if type(node) is cst.Name and self._reads_variable(node, binding))
        return made if kept_alone else []

    def _fresh_module(self, value: cst.BaseExpression, other: str) -> bool:
        """`value` makes a module no other object holds, maybe moved or wrapped (see
        `module_behind`): a new one handed nothing spelled `other` (see `new_module`), or a
        deep copy of anything."""
        made = module_behind(self.ctx, value)
        if type(made) is not cst.Call:
            return False
        if self.ctx.call_name(made) == "copy.deepcopy":
            return True
        return new_module(self.ctx, made) and not any(
            type(node) is cst.Name and node.value == other for node in self.ctx.subtree(value))

    def _moved_or_wrapped(self, value: cst.BaseExpression, binding: Binding) -> bool:
        """`value` is the module the variable `binding` holds, moved or wrapped (`model.to(device)`,
        `DDP(model)`, see `module_behind`): a module that holds only it."""
        behind = module_behind(self.ctx, value)
        return behind is not value and type(behind) is cst.Name and self.ctx.receivers.binding(behind) == binding

    def _reads_variable(self, node: cst.Name, binding: Binding) -> bool:
        """`node` is the variable `binding`, not an attribute or keyword so spelled."""
        parent = self.ctx.parent(node)
        if (type(parent) is cst.Attribute and parent.attr is node) or (type(parent) is cst.Arg and parent.keyword is node):
            return False
        return self.ctx.receivers.binding(node) == binding

    def _read_in_place(self, node: cst.Name, binding: Binding) -> bool:
        """`node` is assigned (`model = ...`), called (`model(x)`), read by what keeps
        nothing (see `_keeps_nothing`), or has a method called whose result is not the
        module again, unless dropped (`model.parameters()`, `model.eval()` alone) or
        assigned back to its variable, moved or wrapped (`model = model.to(device)`,
        `model = DDP(model)`)."""
        parent = self.ctx.parent(node)
        if type(parent) in (cst.AssignTarget, cst.AnnAssign) or (type(parent) is cst.Call and parent.func is node):
            return True
        if self._keeps_nothing(node, parent) or self._assigned_back(node, binding):
            return True
        call = self.ctx.parent(parent) if type(parent) is cst.Attribute else None
        if type(call) is not cst.Call or call.func is not parent:
            return False
        return parent.attr.value not in MODULE_CHAIN or self._dropped(call)

    def _keeps_nothing(self, node: cst.Name, parent: cst.CSTNode) -> bool:
        """`node` is read by what keeps no reference to it: formatted (`f"{model}"`), its
        `training` flag read, not set (`if model.training:`), handed by position to a
        builtin that returns text, a number, a bool or its class (`print(model)`,
        `isinstance(model, DDP)`, see `_KEEPS_NOTHING`), or deep-copied (`copy.deepcopy(model)`)."""
        if type(parent) is cst.FormattedStringExpression:
            return True
        if type(parent) is cst.Attribute:
            return parent.attr.value == "training" and type(self.ctx.parent(parent)) not in (
                cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.Element, cst.StarredElement)
        positional = type(parent) is cst.Arg and parent.keyword is None and not parent.star
        call = self.ctx.parent(parent) if positional else None
        if type(call) is not cst.Call:
            return False
        if self.ctx.call_name(call) == "copy.deepcopy":
            return True
        func = call.func
        return (type(func) is cst.Name and func.value in _KEEPS_NOTHING and self.ctx.qualified_name(func) is None
                and self.ctx.receivers.binding(func) is None)

    def _assigned_back(self, node: cst.Name, binding: Binding) -> bool:
        """`node` is moved or wrapped (see `_moved_or_wrapped`) and assigned back to its own
        variable alone (`model = model.to(device)`, `model = nn.DataParallel(model)`, `model:
        nn.Module = model.to(device)`)."""
        value, parent = node, self.ctx.parent(node)
        while type(parent) in (cst.Attribute, cst.Call, cst.Arg):
            value, parent = parent, self.ctx.parent(parent)
        if type(parent) is cst.Assign:
            targets = [target.target for target in parent.targets]
        elif type(parent) is cst.AnnAssign:  # `model: nn.Module = model.to(device)`
            targets = [parent.target]
        else:
            return False
        return (parent.value is value and module_behind(self.ctx, value) is node
                and all(type(target) is cst.Name and self.ctx.receivers.binding(target) == binding
                        for target in targets))

    def _dropped(self, value: cst.BaseExpression) -> bool:
        """`value` is a statement's alone, maybe as an arm of a conditional expression or an
        operand of and/or (`ema.train() if training else model.eval()`): nothing keeps it."""
        parent = self.ctx.parent(value)
        while type(parent) in (cst.IfExp, cst.BooleanOperation) and value is not getattr(parent, "test", None):
            value, parent = parent, self.ctx.parent(parent)
        return type(parent) is cst.Expr

    def _bounded(self, facts: Facts) -> Facts:
        """At most `_PENDING_PER_MODEL` evals of one model pending, carried over from an
        earlier iteration or not, the last in source order. A file of many functions
        that each put `model` in eval mode and put another model (`ema.train()`) back
        in train mode on their other path would carry one more at each call, and every
        event would walk them all. The cap only reports less: a dropped eval no longer
        reaches a backward on this path (on another path it may, and is reported there)."""
        if len(facts) <= _PENDING_PER_MODEL:
            return facts
        pending: dict[tuple[str, bool], list[cst.CSTNode]] = {}
        for _, eval_node, crossed in facts:
            model = self._model_of(eval_node)
            if model is not None:  # an eval of a model not named may be of any one
                pending.setdefault((model, crossed), []).append(eval_node)
        dropped = {(_EVAL, eval_node, crossed) for (_, crossed), nodes in pending.items()
                   if len(nodes) > _PENDING_PER_MODEL
                   for eval_node in sorted(nodes, key=self.ctx.order_index)[:-_PENDING_PER_MODEL]}
        return facts - dropped

    def _evaluates(self, facts: Facts, node: cst.CSTNode, model: str) -> Facts:
        # the last eval() of a model decides its mode: an earlier one is moot
        kept = {f for f in facts if self._model_of(f[1]) != model}
        return frozenset(kept | {(_EVAL, node, False)})

    def _back_propagates(self, facts: Facts, backward: cst.CSTNode | None, via: cst.CSTNode | None = None) -> None:
        """`backward`: the backward call of this file reached (None: one another module's
        function, or a method of an object, runs: the call `via`)."""
        if facts and backward is not None and (self._switched_off(backward) or self._backward_entered_without_grad(backward)):
            return
        for _, eval_call, crossed in facts:
            if backward is not None and self._gradients_in_eval(eval_call, backward):
                self._exempt.add(eval_call)
                continue
            # an eval() still in force at a backward of the same iteration
            # is deliberate (frozen BatchNorm, a teacher); one carried over
            # from an earlier iteration was for validation, and so is one made
            # every N steps (`if step % eval_interval == 0: estimate_loss()`)
            if not crossed and eval_call not in self._periodic:
                self._periodic[eval_call] = every_n_steps(self.ctx, eval_call)
            validation = crossed or self._periodic[eval_call]
            (self._candidates if validation else self._exempt).add(eval_call)
            if validation and via is not None:
                self._trained_by.setdefault(eval_call, set()).add(via)

    def _gradients_in_eval(self, eval_call: cst.CSTNode, backward: cst.CSTNode) -> bool:
        """The function that switches the model to eval mode back-propagates itself and
        steps nothing: it takes gradients of a model in eval mode on purpose (a Grad-CAM
        map, an adversarial example), it does not train. Any `.step()` in the function,
        or a call of the project that steps, keeps it training."""
        # asked of every fact at every backward, at each visit of the flow
        if eval_call not in self._functions:
            self._functions[eval_call] = self.ctx.enclosing_function(eval_call)
        if backward not in self._functions:
            self._functions[backward] = self.ctx.enclosing_function(backward)
        function = self._functions[eval_call]
        if function is None or self._functions[backward] is not function:
            return False
        if function not in self._steps_nothing:
            self._steps_nothing[function] = not any(
                type(node) is cst.Call and (method_call(node, "step") is not None or (
                    (summary := self.ctx.summaries.of_call(node)) is not None and summary.does(STEP)))  # type: ignore[arg-type]
                for node in self.ctx.subtree(function.body))
        return self._steps_nothing[function]

    def _entered_without_grad(self) -> bool:
        """The walk entered the backward's function through a call made under
        `torch.no_grad()`: nothing computed there has a graph, so the backward does not
        run from there (a loss helper that back-propagates unless asked only for the
        losses, called from validation)."""
        return any(grad_mode_at(self.ctx, site) == "off" for site in self._flow.call_sites)

    def _backward_entered_without_grad(self, backward: cst.CSTNode) -> bool:
        """See `_entered_without_grad`, unless the backward's own code turns gradients
        back on (`with torch.enable_grad():` around it) in a function that steps an
        optimizer: a training step under a `no_grad` caller; an attack's backward (PGD in a
        robust evaluation) steps nothing and trains nothing."""
        if not self._entered_without_grad():
            return False
        function = self.ctx.enclosing_function(backward)
        return not (lexical_grad_mode(self.ctx, backward) == "on" and function is not None and any(
            optimizer_step(self.ctx, node) is not None for node in self.ctx.subtree(function.body)))

    def _switched_off(self, backward: cst.CSTNode) -> bool:
        """The backward sits in a branch of the function the walk entered that the
        flags the call fixes skip (one epoch function for training and validation:
        `if train:` under `run_epoch(loader, train=False)`, `if not cross_valid:` under
        `run_epoch(loader, cross_valid=True)`), also where a call on the way hands the
        flag on (`run_batch(x, train)` in that `run_epoch`): it does not run from there."""
        sites = self._flow.call_sites
        function = self.ctx.enclosing_function(backward)
        if not sites or function is None or self.ctx.local_callee(sites[-1]) is not function:
            return False
        flags: Flags = {}
        for site in sites:  # outermost first: each call fixes its callee's flags from its caller's
            callee = self.ctx.local_callee(site)
            # the walk enters a call only where `local_callee` finds its function
            flags = fixed_flags(self.ctx, site, callee, flag_parameters(self.ctx, callee), flags)  # type: ignore[arg-type]
        return bool(flags) and ruled_out(self.ctx, backward, flags)

    def _through(self, facts: Facts, call: cst.Call, summary: Summary) -> Facts:
        """The modes another module's function leaves: an `.eval()` of a model it is
        given is one made here, and its backward passes are this file's. A summary
        keeps each effect once, where it is first reached, so a function that calls
        `.train()` anywhere may end in train mode: it restores, as in this file."""
        evaluated = [self.ctx.code(arg.value) for slot, arg in argument_slots(call)
                     if summary.slot(slot) in summary.eval_mode]
        evaluated += (evaluated_own_models(self.ctx, call, summary) or evaluated_held_models(self.ctx, call, summary)
                      or evaluated_object(self.ctx, call, summary))
        for event in summary.events:
            if event == TRAIN:
                facts = frozenset()
            elif event == EVAL and len(evaluated) == 1:
                self._evaluated[call] = evaluated[0]
                facts = self._evaluates(facts, call, evaluated[0])
            elif event == BACKWARD and grad_mode_at(self.ctx, call) != "off" \
                    and not self._trains_in_train_mode_only(facts, call, summary):
                # under `torch.no_grad()` the call computes no graph to back-propagate
                self._back_propagates(facts, None, call)
        return frozenset() if TRAIN in summary.events else facts

    def _trains_in_train_mode_only(self, facts: Facts, call: cst.Call, summary: Summary) -> bool:
        """A method that back-propagates only under `if self.training:` (see
        `Summary.graph_when_training`), called on a model in eval mode (`trainer(x)`,
        `trainer.forward(x)` after `trainer.eval()`): it computes a loss, it does not train."""
        if not summary.graph_when_training:
            return False
        receiver = call.func.value if type(call.func) is cst.Attribute else call.func
        return any(self._model_of(fact[1]) == self.ctx.code(receiver) for fact in facts)


# builtins that read an object and keep no reference to it: what they return is text, a
# number, a bool or the object's class
_KEEPS_NOTHING = frozenset({"print", "str", "repr", "len", "isinstance", "type", "id", "format", "hasattr"})


def _is_event(node: cst.CSTNode) -> bool:
    """Every node `MissingTrainMode._transfer` can react to."""
    return method_call(node, "train", "eval", "backward", "apply") is not None  # `model.apply(lambda m: m.train())`


def _same_module(evaluated: str | None, handed: str) -> bool:
    """`handed` is the model put in eval mode, or holds it or a part of it (`model` and
    `model.module`, either way)."""
    return evaluated is not None and (evaluated == handed or evaluated.startswith(handed + ".")
                                      or handed.startswith(evaluated + "."))


def _cross_iteration(facts: Facts) -> Facts:
    return frozenset((_EVAL, node, True) for _, node, _crossed in facts)
