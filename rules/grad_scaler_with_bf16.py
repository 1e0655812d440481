import re

import libcst as cst

from trainlint.analysis.precision import (
    BFLOAT16,
    FLOAT16,
    UNKNOWN,
    autocast_calls,
    autocast_precision,
    grad_scaler_enabled,
    with_precision,
)
from trainlint.analysis.receivers import GRAD_SCALER, Binding, constructor_kind
from trainlint.analysis.scopes import as_receiver_path, dotted_name, head_name, receiver_method
from trainlint.analysis.training import code_bodies, method_call
from trainlint.context import FileContext
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Rule

_BUILT = (
    "GradScaler `{}`, built by `{}()`, used with bfloat16 autocast: "
    "bfloat16 has float32's range and needs no loss scaling; drop the scaler"
)
_INHERITED = (
    "GradScaler `{}`, built by a base class's constructor in another module, used with bfloat16 autocast: "
    "bfloat16 has float32's range and needs no loss scaling; drop the scaler"
)
_BF16_WORD = re.compile(r"bf16|bfloat16", re.IGNORECASE)
_FP16_WORD = re.compile(r"(?<!b)float16|(?<!b)fp16|half|(?<!bf)16-mixed", re.IGNORECASE)


class GradScalerWithBf16(Rule):
    """
    ## What it does
    Flags the construction of a `GradScaler` whose loss scaling is used in
    code that runs under bfloat16 autocast, in a file where no autocast
    region computes in float16 (or in a dtype the linter cannot tell).

    ## Why is this bad?
    Loss scaling exists because float16's exponent range is narrow. bfloat16
    has float32's range: its gradients do not underflow, so the scaler only
    adds a multiply, an unscale, an inf/NaN check per step and a
    synchronisation with the GPU, and makes the code suggest a float16 setup
    that is not there. Dropping it is the recommended bf16 recipe.

    ## Example
    ```python
    import torch
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    ```

    ## Use instead
    ```python
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    ```

    ## Fix safety
    No fix: removing the scaler touches several statements (`scale`, `step`,
    `update`, checkpoints of its state).

    ## Limitations
    A scaler built only when a flag named for bfloat16 is set
    (`GradScaler() if use_bfloat16 else None`, `if args.bf16:`) is flagged
    wherever it is then used, unless the file autocasts to float16 (or to a
    dtype the linter cannot tell) somewhere: the flag's name may not say what
    it switches on. Otherwise the scaler must be built in this file
    (not passed in from elsewhere) and used as `scaler.scale(...)` in the
    same function as the bfloat16 `with` block (`with torch.autocast(...)
    if on_gpu else nullcontext():` is one, and so is `with amp_autocast():`
    of a `functools.partial` of autocast), or in the same class for
    `self.scaler` (built there or in a base class of the file). A
    `self.scaler` built by the constructor of a base class of another module
    of the project (`class Trainer(BaseTrainer)`, `self.scaler =
    GradScaler()` in base.py's `BaseTrainer.__init__`) is reported at the
    subclass's first `self.scaler.scale(...)`, when this file assigns the
    attribute nowhere, every `__init__` of the file on the way calls
    `super().__init__(...)`, and the base's module autocasts to no float16
    (nor to a dtype it cannot tell); one built in another method of the
    base, or by a constructor the base's calls in turn, is not followed. A
    scaler that a builder function of the project returns (`scaler =
    build_scaler()`, of this file or another module, returning a
    `GradScaler(...)` switched on, from a module that autocasts to no
    float16 nor to a dtype it cannot tell) is reported at its first
    `scaler.scale(...)` under the conditions above. A scaler built with
    `enabled=` set from a value (`enabled=dtype == torch.float16`), or a file
    that also autocasts to float16 or to a dtype chosen at run time, is not
    flagged: the scaler may serve that path.
    """

    code = "TL106"
    name = "grad-scaler-with-bf16"
    severity = "info"
    message = "GradScaler used with bfloat16 autocast: bfloat16 has float32's range and needs no loss scaling; drop the scaler"
    triggers = ("bfloat16", "bf16")
    bad = (
        # a helper module builds the scaler exactly when training in bfloat16
        "import torch\n"
        "def init_opt(params, use_bfloat16=False):\n"
        "    optimizer = torch.optim.AdamW(params)\n"
        "    scaler = torch.cuda.amp.GradScaler() if use_bfloat16 else None  # expect: TL106\n"
        "    return optimizer, scaler\n"
        "def init_amp(args):\n"
        "    if args.bf16:\n"
        "        return torch.amp.GradScaler('cuda')  # expect: TL106\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')  # expect: TL106\n"
        "for x, y in loader:\n"
        "    with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "        loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        "import torch\n"
        "from torch.cuda.amp import GradScaler, autocast\n"
        "def train(model, loader, optimizer):\n"
        "    scaler = GradScaler()  # expect: TL106\n"
        "    for batch in loader:\n"
        "        with autocast(dtype=torch.bfloat16):\n"
        "            loss = model(**batch).loss\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        "import torch as th\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.scaler = th.amp.GradScaler('cuda', init_scale=1024)  # expect: TL106\n"
        "    def training_step(self, batch):\n"
        "        with th.autocast(device_type='cuda', dtype=th.bfloat16):\n"
        "            loss = self.model(batch)\n"
        "        self.scaler.scale(loss).backward()\n",
        # CPU autocast computes in bfloat16 by default
        "import torch\n"
        "scaler = torch.amp.GradScaler('cpu')  # expect: TL106\n"
        "with torch.autocast('cpu'):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n"
        "x = torch.zeros(3, dtype=torch.bfloat16)\n",
        "import torch\n"
        "from torch.cuda import amp\n"
        "scaler = amp.GradScaler(enabled=True)  # expect: TL106\n"
        "with amp.autocast(True, torch.bfloat16):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n",
        # the scaler built by a base class of the file, used by the subclass's bfloat16 training
        "import torch\n"
        "class Base:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.scaler = torch.amp.GradScaler('cuda')  # expect: TL106\n"
        "class Trainer(Base):\n"
        "    def forward_loss(self, batch):\n"
        "        with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "            return self.model(batch)\n"
        "    def training_step(self, batch):\n"
        "        self.scaler.scale(self.forward_loss(batch)).backward()\n",
        # bfloat16 autocast or no context, chosen in the `with` item (nnU-Net's idiom)
        "import torch\n"
        "from contextlib import nullcontext as dummy_context\n"
        "class Trainer:\n"
        "    def __init__(self, network, device):\n"
        "        self.network, self.device = network, device\n"
        "        self.grad_scaler = torch.amp.GradScaler('cuda')  # expect: TL106\n"
        "    def train_step(self, batch):\n"
        "        with torch.autocast('cuda', dtype=torch.bfloat16) if self.device.type == 'cuda' else dummy_context():\n"
        "            loss = self.network(batch).mean()\n"
        "        self.grad_scaler.scale(loss).backward()\n",
        # the scaler comes from a builder function of the file
        "import torch\n"
        "\n"
        "\n"
        "def build_scaler():\n"
        "    return torch.amp.GradScaler(\"cuda\")\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    scaler = build_scaler()\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()  # expect: TL106\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # bfloat16 autocast through a partial of it
        "from functools import partial\n"
        "import torch\n"
        "def train(model, loader, opt):\n"
        "    amp_autocast = partial(torch.autocast, device_type=\"cuda\", dtype=torch.bfloat16)\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")  # expect: TL106\n"
        "    for x in loader:\n"
        "        with amp_autocast():\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "        opt.zero_grad()\n",
    )
    good = (
        # built for float16, or for either precision, or when not in bfloat16
        "import torch\n"
        "def init_amp(args, precision):\n"
        "    a = torch.amp.GradScaler('cuda') if args.fp16 else None\n"
        "    b = torch.amp.GradScaler('cuda') if precision in ('bf16', 'fp16') else None\n"
        "    c = torch.amp.GradScaler('cuda') if not args.bf16 else None\n"
        "    if precision != 'bf16':\n"
        "        d = torch.amp.GradScaler('cuda')\n"
        "    if args.bf16:\n"
        "        e = None\n"
        "    else:\n"
        "        e = torch.amp.GradScaler('cuda')\n"
        "    return a, b, c, d, e\n",
        # float16 needs the scaler
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "with torch.autocast('cuda', dtype=torch.float16):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n"
        "w = w.to(torch.bfloat16)\n",
        # the scaler is only switched on for float16
        "import torch\n"
        "amp_dtype = torch.bfloat16 if args.bf16 else torch.float16\n"
        "scaler = torch.amp.GradScaler('cuda', enabled=amp_dtype == torch.float16)\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n",
        # one script, two paths: the float16 one uses the scaler
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "if args.bf16:\n"
        "    with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "        loss = model(x)\n"
        "    loss.backward()\n"
        "else:\n"
        "    with torch.autocast('cuda'):\n"
        "        loss = model(x)\n"
        "    scaler.scale(loss).backward()\n",
        # bfloat16 without a scaler is the recommended recipe
        "import torch\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    loss = model(x)\n"
        "loss.backward()\n",
        # the dtype is decided at run time
        "import torch\n"
        "ptdtype = {'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "with torch.autocast('cuda', dtype=ptdtype):\n"
        "    loss = model(x)\n"
        "scaler.scale(loss).backward()\n",
        # the chapter's template: the scaler comes from the caller
        "import torch\n"
        "def train_one_epoch(model, loader, criterion, optimizer, scaler=None):\n"
        "    for x, y in loader:\n"
        "        with torch.amp.autocast('cuda', dtype=torch.bfloat16):\n"
        "            loss = criterion(model(x), y)\n"
        "        if scaler is not None:\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # a feature scaler is not a GradScaler
        "import torch\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "scaler = StandardScaler()\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    feats = torch.tensor(scaler.fit_transform(raw))\n"
        "    loss = model(feats)\n"
        "scaler.scale(loss)\n",
        # the flag is named for bfloat16, but what it switches on is float16 autocast
        "import torch\n"
        "def build(use_bfloat16):\n"
        "    return torch.amp.GradScaler('cuda') if use_bfloat16 else None\n"
        "def train(model, loader, opt, scaler, use_bfloat16):\n"
        "    for x, y in loader:\n"
        "        with torch.amp.autocast('cuda', dtype=torch.float16, enabled=use_bfloat16):\n"
        "            loss = model(x, y)\n"
        "        scaler.scale(loss).backward()\n",
        # bf16 or fp16 by a flag: the scaler serves the fp16 run
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, use_bf16):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=not use_bf16)\n"
        "    if use_bf16:\n"
        "        ctx = torch.autocast(\"cuda\", dtype=torch.bfloat16)\n"
        "    else:\n"
        "        ctx = torch.autocast(\"cuda\", dtype=torch.float16)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with ctx:\n"
        "            loss = model(x, y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # the same choice in the `with` item
        "import torch\n"
        "def train(model, loader, opt, use_bf16):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x, y in loader:\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16) if use_bf16 else torch.autocast(\"cuda\"):\n"
        "            loss = model(x, y)\n"
        "        scaler.scale(loss).backward()\n",
        # a builder whose scaler is switched on only for float16 runs
        "import torch\n"
        "\n"
        "\n"
        "def build_scaler(dtype):\n"
        "    return torch.amp.GradScaler(\"cuda\", enabled=dtype == torch.float16)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    scaler = build_scaler(torch.bfloat16)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # the same partial to float16
        "from functools import partial\n"
        "import torch\n"
        "def train(model, loader, opt):\n"
        "    amp_autocast = partial(torch.autocast, device_type=\"cuda\", dtype=torch.float16)\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x in loader:\n"
        "        with amp_autocast():\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "        opt.zero_grad()\n",
    )

    def finish(self) -> None:
        precisions = {autocast_precision(self.ctx, call) for call in autocast_calls(self.ctx)}
        if precisions & {FLOAT16, UNKNOWN}:
            return  # the scaler may serve that autocast, whatever its flag is called
        for call in self.ctx.nodes_of(cst.Call):
            if constructor_kind(self.ctx.call_name(call)) == GRAD_SCALER and self._built_for_bf16(call):  # type: ignore[arg-type]
                self.report(call)
        if BFLOAT16 not in precisions:
            return
        bf16_bodies = self._bodies_with_bf16()
        for binding in self._scalers_used_under_bf16(bf16_bodies):
            for construction in self.ctx.receivers.constructions.get(binding, []):
                if constructor_kind(self.ctx.call_name(construction)) == GRAD_SCALER and grad_scaler_enabled(construction):
                    self.report(construction)
        for call, attribute in self._inherited_scalers_used(bf16_bodies):
            self.report(call, _INHERITED.format(attribute))
        for call, scaler, builder in self._built_by_builders(bf16_bodies):
            self.report(call, _BUILT.format(scaler, builder))

    def _built_for_bf16(self, call: cst.Call) -> bool:
        """`GradScaler() if use_bfloat16 else None`, or built under
        `if args.bf16:`: a scaler made exactly when training in bfloat16,
        whatever module then autocasts."""
        child: cst.CSTNode = call
        for ancestor in self.ctx.ancestors(call):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                return False
            if type(ancestor) in (cst.If, cst.IfExp) and child is ancestor.body and _names_bf16(ancestor.test):
                return True
            child = ancestor
        return False

    def _bodies_with_bf16(self) -> list[cst.CSTNode]:
        """The bodies (of functions, or the module's) holding a bfloat16 autocast `with` block."""
        return [body for body in code_bodies(self.ctx)
                if any(_is_bf16_block(self.ctx, node) for node in self.ctx.own_nodes(body))]

    def _scalers_used_under_bf16(self, bf16_bodies: list[cst.CSTNode]) -> set[Binding]:
        receivers = self.ctx.receivers
        found: set[Binding] = set()
        for body in bf16_bodies:
            for node in self.ctx.own_nodes(body):
                scaler = method_call(node, "scale")
                if scaler is not None and receivers.is_kind(scaler, GRAD_SCALER):
                    binding = receivers.binding(scaler)
                    if binding is not None:
                        found.add(binding)
        found |= self._class_attributes_scaled_in_bf16_classes(set(bf16_bodies))
        return found

    def _inherited_scalers_used(self, bf16_bodies: list[cst.CSTNode]) -> list[tuple[cst.Call, str]]:
        """`self.scaler.scale(...)` (the first of each attribute in each class) in a class
        with a bfloat16 block whose file never assigns `self.scaler`, where the constructor
        of an imported base that building the class runs sets it to a scaler (see
        `Summary.grad_scalers`)."""
        receivers = self.ctx.receivers
        targets = self.ctx.summaries.targets
        classes = {_class_of_method_body(self.ctx, body) for body in bf16_bodies} - {None}
        found: dict[tuple[cst.ClassDef, str], cst.Call] = {}
        for body in code_bodies(self.ctx):
            cls = _class_of_method_body(self.ctx, body)
            if cls not in classes:
                continue
            for node in self.ctx.own_nodes(body):
                scaler = method_call(node, "scale")
                spelled = dotted_name(scaler) if scaler is not None else None
                head = head_name(scaler) if spelled is not None else None  # type: ignore[arg-type]
                if head is None or receiver_method(self.ctx, head) is None or spelled.count(".") != 1:  # type: ignore[union-attr]
                    continue
                attribute = as_receiver_path(spelled, head.value)  # type: ignore[arg-type]  # as summaries name it
                if (cls, attribute) in found:
                    continue
                binding = receivers.binding(scaler)  # type: ignore[arg-type]
                if binding is None or receivers.assigned(binding):
                    continue  # the file's own: judged above
                constructor = targets.inherited_constructor(cls.name.value)  # type: ignore[union-attr]
                if constructor is not None and attribute in constructor.grad_scalers:
                    found[(cls, attribute)] = node  # type: ignore[index,assignment]
        return [(call, self.ctx.code(method_call(call, "scale"))) for call in found.values()]  # type: ignore[arg-type]

    def _built_by_builders(self, bf16_bodies: list[cst.CSTNode]) -> list[tuple[cst.Call, str, str]]:
        """The first `scaler.scale(...)` of each scaler used with a bfloat16 block (in its
        function, or its class for `self.scaler`) that no GradScaler call of this file builds
        but a builder of the project does, on every assignment (`scaler = build_scaler()`,
        whose summary returns a scaler switched on, see `Summary.returns_grad_scaler`)."""
        receivers = self.ctx.receivers
        summaries = self.ctx.summaries
        classes = {_class_of_method_body(self.ctx, body) for body in bf16_bodies} - {None}
        bodies = set(bf16_bodies)
        found: dict[Binding, tuple[cst.Call, str, str]] = {}
        for body in code_bodies(self.ctx):
            own_body = body in bodies
            if not own_body and _class_of_method_body(self.ctx, body) not in classes:
                continue
            for node in self.ctx.own_nodes(body):
                scaler = method_call(node, "scale")
                binding = receivers.binding(scaler) if scaler is not None else None
                if binding is None or binding in found or not (own_body or binding.name.startswith("self.")) or any(
                        constructor_kind(self.ctx.call_name(built)) == GRAD_SCALER
                        for built in receivers.constructions.get(binding, [])):
                    continue  # (a GradScaler built here: judged above)
                values = receivers.assigned(binding)
                if values and all(type(value) is cst.Call and (summary := summaries.of_call(value)) is not None
                                  and summary.returns_grad_scaler for value in values):
                    found[binding] = (node, self.ctx.code(scaler), self.ctx.code(values[0].func))  # type: ignore[arg-type,attr-defined]
        return list(found.values())

    def _class_attributes_scaled_in_bf16_classes(self, bf16_bodies: set[cst.CSTNode]) -> set[Binding]:
        """`self.scaler.scale(...)` in one method and the bf16 block in another
        method of the same class."""
        receivers = self.ctx.receivers
        classes = {_class_of_method_body(self.ctx, body) for body in bf16_bodies} - {None}
        found: set[Binding] = set()
        for body in code_bodies(self.ctx):
            if _class_of_method_body(self.ctx, body) not in classes:
                continue  # (the scaler a method reads may be held by its base class)
            for node in self.ctx.own_nodes(body):
                scaler = method_call(node, "scale")
                if scaler is None or not receivers.is_kind(scaler, GRAD_SCALER):
                    continue
                binding = receivers.binding(scaler)
                if binding is not None and binding.name.startswith("self."):
                    found.add(binding)
        return found


def _names_bf16(test: cst.BaseExpression) -> bool:
    """A condition that holds when training in bfloat16: a flag named so
    (`use_bfloat16`, `args.bf16`, `dtype == "bf16"`), not negated."""
    if type(test) in (cst.UnaryOperation, cst.BooleanOperation):
        return False
    if type(test) is cst.Comparison and any(
        type(c.operator) in (cst.NotEqual, cst.IsNot, cst.NotIn) for c in test.comparisons
    ):
        return False
    words = [node.value for node in iter_nodes(test) if type(node) in (cst.Name, cst.SimpleString)]
    return any(_BF16_WORD.search(w) for w in words) and not any(_FP16_WORD.search(w) for w in words)


def _is_bf16_block(ctx: FileContext, node: cst.CSTNode) -> bool:
    if type(node) is not cst.With:
        return False
    found = with_precision(ctx, node)
    return found is not None and found[0] == BFLOAT16


def _class_of_method_body(ctx: FileContext, body: cst.CSTNode) -> cst.ClassDef | None:
    """The class whose method has `body`, if it is a method's body."""
    method = ctx.parent(body)
    if type(method) is not cst.FunctionDef:
        return None
    block = ctx.parent(method)
    owner = ctx.parent(block) if block is not None else None
    return owner if type(owner) is cst.ClassDef else None
