import libcst as cst

from trainlint.analysis.flag_resets import implied_by_turning_off
from trainlint.analysis.precision import half_conversion, single_assignment
from trainlint.analysis.receivers import GRAD_SCALER, OPTIMIZER, Binding
from trainlint.analysis.scopes import and_operands, argument_slots
from trainlint.analysis.training import method_call
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, STEP

# `nn.Module` methods that return the module itself: a chain of them still
# denotes the model (`Net().cuda().half()`); any other call yields its output.
_ELSEWHERE = (
    "`{}()` converts the model to float16, and it is then trained: the weights lose small updates"
    " and BatchNorm statistics degrade; keep float32 weights and use `torch.autocast`"
)
# apex's optimizer wrappers that step float32 master copies of a float16 model's weights
# apex's wrappers that step float32 master copies of the weights: the original one, and the
# one of `apex.optimizers` made for its fused optimizers (`FP16_Optimizer(FusedAdam(...))`)
_MASTER_WEIGHT_OPTIMIZERS = frozenset({"apex.fp16_utils.FP16_Optimizer", "apex.fp16_utils.fp16_optimizer.FP16_Optimizer",
                                       "apex.optimizers.FP16_Optimizer", "apex.optimizers.fp16_optimizer.FP16_Optimizer"})
_RETURNS_MODULE = frozenset({"cuda", "cpu", "to", "half", "float", "double", "bfloat16", "train", "eval", "requires_grad_"})


class HalfPrecisionTraining(Rule):
    """
    ## What it does
    Flags `model.half()`, `model.to(torch.float16)` and
    `model.to(device, dtype=torch.half)` on a model that the same file then
    trains: its parameters are given to an optimizer, and the file calls
    `backward()` and steps an optimizer.

    ## Why is this bad?
    Converting the model makes the weights themselves float16. An optimizer
    update is often smaller than float16 can resolve next to the weight it is
    added to (about 1/1000 of its size), so updates are rounded away and
    training stalls; BatchNorm running statistics lose precision too, and
    there is no loss scaling to keep gradients from underflowing. Mixed
    precision keeps float32 master weights and computes in float16 (or
    bfloat16) only inside `torch.autocast`.

    ## Example
    ```python
    import torch
    model = Net().cuda().half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x.cuda().half()), y.cuda()).backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    model = Net().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    ```

    ## Fix safety
    No fix: switching to autocast changes the training step, not one call.

    ## Limitations
    Only models whose `.parameters()` (or `named_parameters()`, or a method
    of the model named so, `model.bias_parameters()`) go to an optimizer
    built in the same file (directly, through one variable, through
    a function of the file given the model that reads its parameters, or as
    the model a builder function of the file, or a method of the class
    (`self.model = self._build_model()`), returns) are considered; so is an
    optimizer that a factory builds from them (`get_optimizer(config,
    model.parameters())`: a function of the file that returns an optimizer,
    or one of another module whose name says it builds one). A
    function of another module of the project that converts the model
    (`model = build_model(cfg)` returning a float16 model, `to_half(model)`)
    is followed, and its call is reported; a conversion in a method of a
    class of another module is not seen. Inference-only files, tensors (`x.half()`), frozen parts whose
    parameters no optimizer receives, and conversions after the last
    `backward()` (export after training) are not flagged; a call of a
    function of the file that back-propagates counts as a `backward()` where
    it is called, wherever that function is defined. A dtype held in a
    variable that cannot be resolved is not flagged. The step may be through
    an item of a container of optimizers (a loop over a tuple of them, also
    one handed to a function of the file). A model whose optimizer apex's
    `FP16_Optimizer` wraps (that of `apex.fp16_utils`, or of
    `apex.optimizers` around a `FusedAdam`: it steps float32 master copies
    of the weights)
    is not flagged when the wrapping runs on every run that converts the
    model: unconditionally, or under the same tests (`if args.fp16:` around
    both; a conversion under `if args.cuda and args.fp16:` too); a wrapping
    under a test the conversion does not have is no excuse, unless the
    function that converts (or the module, at module level) turned the
    conversion's flag off before it where that test fails (`if args.fp16 and
    not args.cuda: args.fp16 = False`, also written `setattr(args, 'fp16',
    False)`, `vars(args)['fp16'] = False` or `args.__dict__['fp16'] =
    False`; in no loop; or a function of the file it calls first, under no
    `if`, does so, on the object it is handed or the module's, testing only
    attributes of those, with no `return` before and nothing after that may
    set the flag again: `check_args(args)`) and nothing sets the flag or its
    object again before the conversion (`args.fp16 = cli.fp16`,
    `vars(args)['fp16'] = True`, `args = parser.parse_args()`, a function of
    the file that does, called there and given the object
    (`configure(args)`) or reading the same module-level one, a function of
    another module of the project that sets the flag on the parameter it is
    given, or later in a loop around the conversion), nor changes what the
    test reads, to any value (`args.cuda = False`, also in a function of
    another module given the object: `setup(args)` that sets `cfg.cuda =
    False`). A write whose key is
    not spelled out (`setattr(args, key, value)`), a method of another
    module's class and code out of reach are not taken to set the flag
    again.
    """

    code = "TL107"
    name = "half-precision-training"
    severity = "warning"
    message = "training a model converted to float16: the weights lose small updates and BatchNorm statistics degrade; keep float32 weights and use `torch.autocast`"
    triggers = ("half", "float16")
    bad = (
        "import torch\n"
        "model = Net().cuda().half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x.cuda().half()), y.cuda())\n"
        "    optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch as th\n"
        "def main(model, loader):\n"
        "    model.half()  # expect: TL107\n"
        "    opt = th.optim.Adam(model.parameters())\n"
        "    for batch in loader:\n"
        "        model(batch).mean().backward()\n"
        "        opt.step()\n",
        "import torch\n"
        "model = build_model()\n"
        "model = model.to(device, dtype=torch.float16)  # expect: TL107\n"
        "decay = [p for n, p in model.named_parameters() if 'bias' not in n]\n"
        "optimizer = torch.optim.AdamW(decay, lr=3e-4)\n"
        "loss = model(batch).loss\n"
        "loss.backward()\n"
        "optimizer.step()\n",
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model.to(torch.half)  # expect: TL107\n"
        "        self.optimizer = torch.optim.AdamW(self.model.parameters())\n"
        "    def step(self, batch):\n"
        "        self.model(batch).backward()\n"
        "        self.optimizer.step()\n",
        "import torch\n"
        "from torch import float16\n"
        "net = Net().to(float16)  # expect: TL107\n"
        "opt = torch.optim.SGD([{'params': net.parameters(), 'lr': 0.1}])\n"
        "net(x).sum().backward()\n"
        "opt.step()\n",
        # the training function is defined above main(), which converts, then trains
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "def main(loader):\n"
        "    model = Net()\n"
        "    model.half()  # expect: TL107\n"
        "    optimizer = torch.optim.AdamW(model.parameters())\n"
        "    train(model, loader, optimizer)\n",
        # the optimizer gets the parameters through a helper of the file
        "import torch\n"
        "def trainable(module):\n"
        "    return [p for p in module.parameters() if p.requires_grad]\n"
        "def main(loader):\n"
        "    model = torch.nn.Linear(8, 2).half()  # expect: TL107\n"
        "    opt = torch.optim.Adam(trainable(model), lr=1e-3)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n",
        # the optimizers handed over in a tuple and stepped in a loop over it
        "import torch\n"
        "def train(module, loader, optimizers):\n"
        "    for x in loader:\n"
        "        module.zero_grad()\n"
        "        module(x).mean().backward()\n"
        "        for optimizer in optimizers:\n"
        "            optimizer.step()\n"
        "def main(module, loader):\n"
        "    optimizers = (torch.optim.SGD(module.parameters(), lr=0.01),)\n"
        "    module = module.half()  # expect: TL107\n"
        "    train(module, loader, optimizers)\n",
        # apex's FP16_Optimizer keeps float32 master weights, but only where it wraps the
        # optimizer: not on a run with --fp16 and without --cuda
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def main(args, model, loader):\n"
        "    if args.fp16:\n"
        "        model = model.half()  # expect: TL107\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.cuda and args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().pow(2).mean()\n"
        "        if args.fp16:\n"
        "            optimizer.backward(loss)\n"
        "        else:\n"
        "            loss.backward()\n"
        "        optimizer.step()\n",
        # the model built by a method of the trainer (Autoformer's `self._build_model()`)
        "import torch\n"
        "class Exp:\n"
        "    def __init__(self, args):\n"
        "        self.args = args\n"
        "        self.model = self._build_model()\n"
        "    def _build_model(self):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        if self.args.fp16:\n"
        "            model = model.half()  # expect: TL107\n"
        "        return model\n"
        "    def train(self, loader):\n"
        "        opt = torch.optim.Adam(self.model.parameters())\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.mse_loss(self.model(x), y).backward()\n"
        "            opt.step()\n",
        # parameter groups from the model's own methods (FlowNet's `bias_parameters()`)
        "import torch\n"
        "def main(model, loader):\n"
        "    model.half()  # expect: TL107\n"
        "    param_groups = [{'params': model.bias_parameters(), 'weight_decay': 0.0},\n"
        "                    {'params': model.weight_parameters(), 'weight_decay': 4e-4}]\n"
        "    optimizer = torch.optim.Adam(param_groups, 1e-4)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # an optimizer built by a factory of the file given the parameters (DDIM's `get_optimizer`)
        "import torch.optim as optim\n"
        "def get_optimizer(config, parameters):\n"
        "    if config.optimizer == 'Adam':\n"
        "        return optim.Adam(parameters, lr=config.lr)\n"
        "    return optim.SGD(parameters, lr=config.lr, momentum=0.9)\n"
        "def train(model, config, loader):\n"
        "    if config.fp16:\n"
        "        model = model.half()  # expect: TL107\n"
        "    optimizer = get_optimizer(config, model.parameters())\n"
        "    for x in loader:\n"
        "        loss = model(x).mean()\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # the flag is turned off when apex is missing, not when CUDA is: `--fp16` without
        # `--cuda` still converts the model and keeps the plain optimizer
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if args.fp16 and not args.apex_available:\n"
        "    args.fp16 = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the flag is turned off in a function that never runs before the conversion
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def disable_fp16(args):\n"
        "    if not args.cuda:\n"
        "        args.fp16 = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the flag is turned off, then set again from the command line before the conversion
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "args.fp16 = cli.fp16\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the function that turns the flag off is called only after the conversion
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def disable_fp16():\n"
        "    if not args.cuda:\n"
        "        args.fp16 = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "disable_fp16()\n",
        # the flag is turned back on in the same `if`
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "    args.fp16 = True\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # another function turns the flag off; the one that converts does not
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check(args):\n"
        "    if not args.cuda:\n"
        "        args.fp16 = False\n"
        "def train(args, model, loader):\n"
        "    if args.fp16:\n"
        "        model = model.half()  # expect: TL107\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.cuda and args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a function called between the reset and the conversion turns the flag back on
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def enable_fp16():\n"
        "    args.fp16 = True\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "enable_fp16()\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the flag is turned back on later in the loop that converts: its next turn converts without CUDA
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "for stage in range(2):\n"
        "    if args.fp16:\n"
        "        model = model.half()  # expect: TL107\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.cuda and args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    args.fp16 = True\n",
        # the reset is in a loop, which may not run
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "for device in devices:\n"
        "    if not args.cuda:\n"
        "        args.fp16 = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # `setattr` sets the flag again
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "setattr(args, 'fp16', True)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the arguments are parsed again after the reset
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "args = parser.parse_args()\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # `vars(args)["fp16"] = True` sets the flag again after the reset
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "vars(args)['fp16'] = True\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # so does `args.__dict__["fp16"] = ...`
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "args.__dict__['fp16'] = cli.fp16\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a function of the file given `args` sets the flag again through its parameter
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def configure(cfg):\n"
        "    cfg.fp16 = True\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "configure(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # through a function it calls in turn
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def enable(options):\n"
        "    setattr(options, 'fp16', True)\n"
        "def configure(cfg):\n"
        "    enable(cfg)\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "configure(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a method of the trainer sets the flag of `self.args` again
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "class Trainer:\n"
        "    def __init__(self, args, model):\n"
        "        self.args = args\n"
        "        if not self.args.cuda:\n"
        "            self.args.fp16 = False\n"
        "        self.configure()\n"
        "        if self.args.fp16:\n"
        "            model = model.half()  # expect: TL107\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        if self.args.cuda and self.args.fp16:\n"
        "            self.optimizer = FP16_Optimizer(self.optimizer, dynamic_loss_scale=True)\n"
        "    def configure(self):\n"
        "        vars(self.args)['fp16'] = True\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.model.zero_grad()\n"
        "            self.model(x).float().mean().backward()\n"
        "            self.optimizer.step()\n",
        # a function of the file turns the flag off, then may turn it on again
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "    cfg.fp16 = cfg.fp16 or cfg.force_fp16\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the function that turns the flag off may return before it does
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if cfg.skip_checks:\n"
        "        return\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # it turns the flag off on a test of its own, which the caller cannot read
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    cuda = detect_cuda()\n"
        "    if not cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # it is called on some runs only
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "if args.strict:\n"
        "    check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the function turns the flag off on a copy of what it is handed
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "import copy\n"
        "def check_args(cfg):\n"
        "    cfg = copy.copy(cfg)\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # its parameter is bound again, by a loop, before the reset: the reset is of the last one looped over
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg, others):\n"
        "    for cfg in others:\n"
        "        cfg.validate()\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args, [defaults])\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the parameter its test reads is bound again before it: the test is no longer the caller's `args.cuda`
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg, cuda):\n"
        "    cuda = detect_cuda()\n"
        "    if not cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args, args.cuda)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the test the function's reset relied on changes after it: fp16 may be on without CUDA
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "check_args(args)\n"
        "args.cuda = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the same, the reset written in place
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "args.cuda = False\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a function of the file changes the test after the reset
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def use_cpu(cfg):\n"
        "    cfg.cuda = False\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "use_cpu(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the function that turns the flag off changes its test after it
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "    cfg.cuda = cfg.cuda and cfg.gpus > 0\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()  # expect: TL107\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
    )
    good = (
        # inference only: float16 weights are fine
        "import torch\n"
        "model = Net().cuda().half().eval()\n"
        "with torch.inference_mode():\n"
        "    for x in loader:\n"
        "        preds = model(x.cuda().half()).argmax(-1)\n",
        # batches converted, the model stays float32
        "import torch\n"
        "model = Net().cuda()\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    x = x.half()\n"
        "    y = y.to(torch.float16)\n"
        "    criterion(model(x.float()), y.float()).backward()\n"
        "    opt.step()\n",
        # a frozen float16 backbone; only the float32 head is trained
        "import torch\n"
        "backbone = load_backbone().half()\n"
        "head = torch.nn.Linear(768, 10)\n"
        "opt = torch.optim.Adam(head.parameters())\n"
        "for x, y in loader:\n"
        "    with torch.no_grad():\n"
        "        feats = backbone(x.half()).float()\n"
        "    criterion(head(feats), y).backward()\n"
        "    opt.step()\n",
        # converted for export once training is done
        "import torch\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "for x, y in loader:\n"
        "    criterion(model(x), y).backward()\n"
        "    opt.step()\n"
        "model.half()\n"
        "torch.save(model.state_dict(), 'model_fp16.pt')\n",
        # mixed precision the recommended way
        "import torch\n"
        "model = Net().to(device)\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "with torch.autocast('cuda', dtype=torch.float16):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n"
        "scaler.step(opt)\n",
        # the model's output converted, not the model
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "    def step(self, x, y):\n"
        "        out = self.model(x).half()\n"
        "        feats = self.model.encoder(x).to(torch.float16)\n"
        "        criterion(out.float(), y).backward()\n"
        "        self.opt.step()\n",
        # the dtype is only known at run time
        "import torch\n"
        "model = Net().to(device, dtype=args.dtype)\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "model(x).sum().backward()\n"
        "opt.step()\n",
        # converted for export once the training function has run
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "def main(loader):\n"
        "    model = Net()\n"
        "    optimizer = torch.optim.AdamW(model.parameters())\n"
        "    train(model, loader, optimizer)\n"
        "    model.half()\n"
        "    torch.save(model.state_dict(), 'model_fp16.pt')\n",
        # the helper reads the parameters of another module than the converted one
        "import torch\n"
        "def trainable(module, frozen):\n"
        "    return [p for p in module.parameters() if p.requires_grad]\n"
        "def main(loader, head):\n"
        "    backbone = torch.nn.Linear(8, 8).half()\n"
        "    opt = torch.optim.Adam(trainable(head, backbone), lr=1e-3)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.cross_entropy(head(backbone(x).float()), y).backward()\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n",
        # apex's FP16_Optimizer steps float32 master copies of the weights, on every run
        # that converts the model
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def main(args, model, loader):\n"
        "    if args.fp16:\n"
        "        model = model.half()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().pow(2).mean()\n"
        "        if args.fp16:\n"
        "            optimizer.backward(loss)\n"
        "        else:\n"
        "            loss.backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def main(args, model, loader):\n"
        "    if args.cuda and args.fp16:\n"
        "        model = model.half()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().pow(2).mean()\n"
        "        if args.fp16:\n"
        "            optimizer.backward(loss)\n"
        "        else:\n"
        "            loss.backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "model = torch.nn.Linear(4, 2).cuda().half()\n"
        "optimizer = FP16_Optimizer(torch.optim.SGD(model.parameters(), lr=0.1))\n"
        "for x in loader:\n"
        "    optimizer.zero_grad()\n"
        "    optimizer.backward(model(x).float().mean())\n"
        "    optimizer.step()\n",
        # apex.optimizers' FP16_Optimizer around a fused optimizer also steps float32 master weights
        "import torch\n"
        "from apex.optimizers import FusedAdam, FP16_Optimizer\n"
        "def main(model, loader):\n"
        "    model = model.cuda().half()\n"
        "    optimizer = FP16_Optimizer(FusedAdam(model.parameters()), dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        optimizer.backward(model(x).float().sum())\n"
        "        optimizer.step()\n",
        # the trained model comes from the function's own lambda, not from another
        # function's `build` that returns a converted copy
        "import torch\n"
        "def export(path):\n"
        "    def build():\n"
        "        net = torch.load(path)\n"
        "        net.half()\n"
        "        return net\n"
        "    return build()\n"
        "def train(loader, net0):\n"
        "    build = lambda: net0\n"
        "    model = build()\n"
        "    opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n",
        # a float16 teacher built by a method of the trainer; the student it trains is built by another
        "import torch\n"
        "class Distiller:\n"
        "    def __init__(self):\n"
        "        self.teacher = self._build_teacher()\n"
        "        self.student = self._build_student()\n"
        "    def _build_teacher(self):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        return model.half().eval()\n"
        "    def _build_student(self):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        return model\n"
        "    def train(self, loader):\n"
        "        opt = torch.optim.Adam(self.student.parameters())\n"
        "        for x in loader:\n"
        "            with torch.no_grad():\n"
        "                target = self.teacher(x.half()).float()\n"
        "            torch.nn.functional.mse_loss(self.student(x), target).backward()\n"
        "            opt.step()\n",
        # two classes each build their model by a method of that name: which one a call runs is not followed
        "import torch\n"
        "class Exporter:\n"
        "    def _build_model(self):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        model = model.half()\n"
        "        return model\n"
        "class Exp:\n"
        "    def __init__(self):\n"
        "        self.model = self._build_model()\n"
        "    def _build_model(self):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        return model\n"
        "    def train(self, loader):\n"
        "        opt = torch.optim.Adam(self.model.parameters())\n"
        "        for x, y in loader:\n"
        "            torch.nn.functional.mse_loss(self.model(x), y).backward()\n"
        "            opt.step()\n",
        # a float16 teacher; the student's own methods give the optimizer its parameter groups
        "import torch\n"
        "def distill(teacher, student, loader):\n"
        "    teacher.half().eval()\n"
        "    groups = [{'params': student.bias_parameters(), 'weight_decay': 0.0},\n"
        "              {'params': student.weight_parameters()}]\n"
        "    optimizer = torch.optim.Adam(groups, 1e-4)\n"
        "    for x in loader:\n"
        "        with torch.no_grad():\n"
        "            target = teacher(x.half()).float()\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(student(x), target).backward()\n"
        "        optimizer.step()\n",
        # the float16 teacher's parameters go to a function of the file that builds no optimizer
        "import torch.optim as optim\n"
        "def get_optimizer(config, parameters):\n"
        "    return optim.Adam(parameters, lr=config.lr)\n"
        "def count_parameters(parameters):\n"
        "    return sum(p.numel() for p in parameters)\n"
        "def distill(teacher, student, config, loader):\n"
        "    teacher = teacher.half().eval()\n"
        "    print(count_parameters(teacher.parameters()))\n"
        "    optimizer = get_optimizer(config, student.parameters())\n"
        "    for x in loader:\n"
        "        target = teacher(x.half()).float().detach()\n"
        "        optimizer.zero_grad()\n"
        "        (student(x) - target).pow(2).mean().backward()\n"
        "        optimizer.step()\n",
        # `--fp16` without `--cuda` is turned off before the conversion (Transformer-XL's
        # train.py), so the wrapping under `if args.cuda and args.fp16:` runs on every
        # run that converts
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if args.fp16:\n"
        "    if not args.cuda:\n"
        "        print('--fp16 requires --cuda, ignoring --fp16')\n"
        "        args.fp16 = False\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    if args.fp16:\n"
        "        optimizer.backward(loss)\n"
        "    else:\n"
        "        loss.backward()\n"
        "    optimizer.step()\n",
        # the function that converts turns the flag off without CUDA first (and again without
        # apex: a second reset keeps it off)
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def train(args, model, loader):\n"
        "    if not args.cuda:\n"
        "        args.fp16 = False\n"
        "    if not args.apex:\n"
        "        args.fp16 = False\n"
        "    if args.fp16:\n"
        "        model = model.half()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    if args.cuda and args.fp16:\n"
        "        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        loss = model(x).float().mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # the flag turned off by `setattr`, `vars(args)[...]` or `args.__dict__[...]` is turned off all the same
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    setattr(args, 'fp16', False)\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    vars(args)['fp16'] = False\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "if not args.cuda:\n"
        "    args.__dict__['fp16'] = False\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # after the reset: writes of other flags or of another object's, a function that reads the flag,
        # one that sets its own `args`, and `setattr` with a key the file does not spell out (it may set
        # any flag or none: the rule cannot tell, and stays silent)
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def show(cfg):\n"
        "    print('fp16:', cfg.fp16)\n"
        "def defaults():\n"
        "    args = Namespace()\n"
        "    args.fp16 = True\n"
        "    return args\n"
        "if not args.cuda:\n"
        "    args.fp16 = False\n"
        "vars(args)['lr'] = 0.1\n"
        "vars(other)['fp16'] = True\n"
        "setattr(args, 'seed', 1)\n"
        "args.__dict__['fp16'] = False\n"
        "show(args)\n"
        "base = defaults()\n"
        "for key, value in overrides.items():\n"
        "    setattr(args, key, value)\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # a method of the trainer that only reads the flag
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "class Trainer:\n"
        "    def __init__(self, args, model):\n"
        "        self.args = args\n"
        "        if not self.args.cuda:\n"
        "            self.args.fp16 = False\n"
        "        self.configure()\n"
        "        if self.args.fp16:\n"
        "            model = model.half()\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        if self.args.cuda and self.args.fp16:\n"
        "            self.optimizer = FP16_Optimizer(self.optimizer, dynamic_loss_scale=True)\n"
        "    def configure(self):\n"
        "        print(self.args.fp16)\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.model.zero_grad()\n"
        "            self.model(x).float().mean().backward()\n"
        "            self.optimizer.step()\n",
        # a function of the file, called before the conversion, turns the flag off without CUDA:
        # through the parameter it is handed, or the module's `args` itself
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        print('--fp16 needs --cuda')\n"
        "        cfg.fp16 = False\n"
        "check_args(args)\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args():\n"
        "    if args.fp16 and not args.cuda:\n"
        "        args.fp16 = False\n"
        "check_args()\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the function keeps a copy of what it is handed and loops over other objects, but turns the flag off
        # on the object itself, on the caller's test handed as a parameter it never binds again
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "import copy\n"
        "def check_args(cfg, cuda, others):\n"
        "    before = copy.copy(cfg)\n"
        "    for other in others:\n"
        "        other.validate()\n"
        "    if not cuda:\n"
        "        cfg.fp16 = False\n"
        "    return before\n"
        "check_args(args, args.cuda, [defaults])\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # the test is set before the reset; after it come writes of other attributes, of another object's `cuda`
        # and of a name `cuda`, and a function that only reads the test
        "import torch\n"
        "from apex.fp16_utils import FP16_Optimizer\n"
        "def check_args(cfg):\n"
        "    if not cfg.cuda:\n"
        "        cfg.fp16 = False\n"
        "def show(cfg):\n"
        "    print('cuda:', cfg.cuda)\n"
        "args.cuda = torch.cuda.is_available()\n"
        "check_args(args)\n"
        "args.lr = 0.1\n"
        "other.cuda = False\n"
        "cuda = False\n"
        "show(args)\n"
        "if args.fp16:\n"
        "    model = model.half()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "if args.cuda and args.fp16:\n"
        "    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)\n"
        "for x in loader:\n"
        "    model.zero_grad()\n"
        "    loss = model(x).float().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
    )

    def finish(self) -> None:
        calls = self.ctx.nodes_of(cst.Call)  # in source order; only calls convert or run backward
        # a call of the file's own training function (defined above `main()`) back-propagates where it is called
        backwards = [i for i, n in enumerate(calls)
                     if method_call(n, "backward") is not None or self._does(n, BACKWARD) or self._trains_here(n)]
        if not backwards or not self._steps_an_optimizer():
            return
        trained = self._trained_models()
        trained |= self._returned_to(trained)
        for node in calls[: max(backwards) + 1]:
            receiver = half_conversion(self.ctx, node)
            if receiver is not None and (self._converted_models(node, receiver) & trained) - self._kept_in_float32(node):
                self.report(node)
            elif self._converted_elsewhere(node) & trained:  # type: ignore[arg-type]
                self.report(node, _ELSEWHERE.format(self.ctx.code(node.func)))  # type: ignore[attr-defined]

    def _converted_elsewhere(self, call: cst.Call) -> set[Binding]:
        """Models a function of another module of the project converts to
        float16: the one it returns (`model = build_model(cfg)`), or one it
        is given (`to_half(model)`)."""
        summary = self.ctx.summaries.of_external_call(call)
        if summary is None:
            return set()
        receivers = self.ctx.receivers
        found: set[Binding] = set()
        parent = self.ctx.parent(call)
        if summary.returns_half and type(parent) is cst.Assign and len(parent.targets) == 1:
            found.add(receivers.binding(parent.targets[0].target))  # type: ignore[arg-type]
        for slot, arg in argument_slots(call):
            if summary.slot(slot) in summary.half:
                found.add(receivers.binding(arg.value))  # type: ignore[arg-type]
        return found - {None}  # type: ignore[operator]

    def _steps_an_optimizer(self) -> bool:
        receivers = self.ctx.receivers
        for node in self.ctx.nodes_of(cst.Call):
            target = method_call(node, "step")
            if (target is not None and receivers.kind(target) in (OPTIMIZER, GRAD_SCALER)) or self._does(node, STEP):
                return True
        return False

    def _trains_here(self, node: cst.CSTNode) -> bool:
        """`node` calls a function of this file that back-propagates."""
        if type(node) is not cst.Call or self.ctx.local_callee(node) is None:
            return False
        summary = self.ctx.summaries.of_call(node)
        return summary is not None and summary.does(BACKWARD)

    def _does(self, node: cst.CSTNode, effect: str) -> bool:
        """`node` calls a function of another module that has `effect`."""
        if type(node) is not cst.Call:
            return False
        summary = self.ctx.summaries.of_external_call(node)
        return summary is not None and summary.does(effect)

    def _trained_models(self) -> set[Binding]:
        """Variables whose parameters an optimizer of this file receives: one
        built from an optimizer class, or by a factory given them
        (`get_optimizer(config, model.parameters())`, a function of the file
        that returns an optimizer, or one whose name says it builds one).

        Not `analysis.trained_models.trained_models` (TL405/TL406's answer): that
        one counts, by name, models put in train mode, run in a back-propagated
        forward, or whose parameters are read for anything (`count(teacher.parameters())`),
        and every model handed to the call that builds parameter groups; a float16
        teacher or a frozen half backbone would be "trained" there, and a model whose
        groups come from `model.bias_parameters()` would not."""
        receivers = self.ctx.receivers
        models: set[Binding] = set()
        for node in self.ctx.nodes_of(cst.Call):
            if receivers.kind(node) != OPTIMIZER:  # type: ignore[arg-type]
                continue
            for arg in node.args:
                sources: list[cst.CSTNode] = [arg.value]
                if type(arg.value) is cst.Name:
                    value = single_assignment(self.ctx, arg.value)
                    if value is not None:
                        sources.append(value)
                for source in sources:
                    models |= self._parameter_owners(source)
        return models

    def _parameter_owners(self, source: cst.CSTNode) -> set[Binding]:
        """The models whose parameters `source` reads (`model.parameters()`, a method of
        the model named so (`model.bias_parameters()`), also through a function of the
        file given the model)."""
        models: set[Binding] = set()
        for inner in iter_nodes(source):
            owner = _parameters_method(inner)
            binding = self.ctx.receivers.binding(owner) if owner is not None else None
            if binding is not None:
                models.add(binding)
            elif type(inner) is cst.Call:
                models |= self._parameters_read_by_helper(inner)
        return models

    def _kept_in_float32(self, conversion: cst.Call) -> set[Binding]:
        """Models whose optimizer is wrapped in one that steps float32 master copies
        of the float16 weights (`optimizer = FP16_Optimizer(optimizer)`), with no
        condition or under the tests the conversion runs under (`if args.fp16:`)."""
        tests = _tests_around(self.ctx, conversion)
        tests |= implied_by_turning_off(self.ctx, conversion, tests)
        receivers = self.ctx.receivers
        models: set[Binding] = set()
        for node in self.ctx.nodes_of(cst.Call):
            if (self.ctx.call_name(node) not in _MASTER_WEIGHT_OPTIMIZERS or not node.args
                    or not _tests_around(self.ctx, node) <= tests):  # type: ignore[arg-type]
                continue
            wrapped = node.args[0].value  # type: ignore[attr-defined]
            binding = receivers.binding(wrapped)
            sources = [wrapped, *(receivers.assigned(binding) if binding is not None else [])]
            for source in sources:
                if type(source) is cst.Call and receivers.kind(source) == OPTIMIZER:
                    models |= self._parameter_owners(source)
        return models

    def _parameters_read_by_helper(self, call: cst.Call) -> set[Binding]:
        """The models a function of the file is given to read their parameters
        (`Adam(get_trainable_params(model))`, `def get_trainable_params(m): return
        [p for p in m.parameters() if p.requires_grad]`)."""
        func = self.ctx.local_callee(call)
        summary = self.ctx.summaries.of_call(call) if func is not None else None
        if func is None or summary is None:
            return set()
        read = set()
        for node in iter_nodes(func.body):
            owner = method_call(node, "parameters", "named_parameters")
            if type(owner) is cst.Name:
                read.add(owner.value)
        found = set()
        for slot, arg in argument_slots(call):
            if summary.slot(slot) in read:
                binding = self.ctx.receivers.binding(arg.value)
                if binding is not None:
                    found.add(binding)
        return found

    def _returned_to(self, trained: set[Binding]) -> set[Binding]:
        """Variables a builder function returns (`return net`) when a call
        of it is assigned to a trained model (`model = build()`; the `build`
        that name is bound to there, not another function's)."""
        receivers = self.ctx.receivers
        builders: list[cst.FunctionDef] = []
        for node in self.ctx.nodes_of(cst.Assign):
            if (
                len(node.targets) == 1
                and type(node.value) is cst.Call
                and receivers.binding(node.targets[0].target) in trained
            ):
                builders += self.ctx.functions_called(node.value)
        returned: set[Binding] = set()
        for func in builders:
            for node in iter_nodes(func.body):
                if type(node) is cst.Return and node.value is not None:
                    binding = receivers.binding(node.value)
                    if binding is not None:
                        returned.add(binding)
        return returned

    def _converted_models(self, call: cst.Call, receiver: cst.BaseExpression) -> set[Binding]:
        """The variables a conversion changes: `model` in `model.cuda().half()`,
        and the target of `model = Net().cuda().half()` or
        `self.model = model.half()`."""
        found: set[Binding] = set()
        root = receiver
        while type(root) is cst.Call and type(root.func) is cst.Attribute and root.func.attr.value in _RETURNS_MODULE:
            root = root.func.value
        binding = self.ctx.receivers.binding(root)
        if binding is not None:
            found.add(binding)
        outer: cst.CSTNode = call
        parent = self.ctx.parent(outer)
        while (
            type(parent) is cst.Attribute
            and parent.attr.value in _RETURNS_MODULE
            and isinstance(self.ctx.parent(parent), cst.Call)
        ):
            outer = self.ctx.parent(parent)  # type: ignore[assignment]
            parent = self.ctx.parent(outer)
        if type(parent) is cst.Assign and len(parent.targets) == 1:
            target = self.ctx.receivers.binding(parent.targets[0].target)
            if target is not None:
                found.add(target)
        return found


def _parameters_method(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The receiver of `model.parameters()`, `model.named_parameters()` or a method of
    the model named so (`model.bias_parameters()`: FlowNet's parameter groups)."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value.endswith("parameters"):
        return node.func.value
    return None


def _tests_around(ctx: FileContext, node: cst.CSTNode) -> set[str]:
    """The code of the tests of the `if`s whose body holds `node`, in its function,
    each operand of an `and` apart (`not (...)` for an `else`)."""
    tests: set[str] = set()
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.If and child is ancestor.body:
            tests |= {ctx.code(test) for test in and_operands(ancestor.test)}
        elif type(ancestor) is cst.If:
            tests.add(f"not ({ctx.code(ancestor.test)})")
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            break
        child = ancestor
    return tests
