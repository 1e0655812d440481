import re
from typing import NamedTuple

import libcst as cst

from trainlint.analysis.flow import Facts
from trainlint.analysis.loops import (
    CallFlow,
    clears_grads,
    clears_parameters_by_name,
    given_argument,
    is_backward,
    is_optimizer,
    may_clear_grads,
    optimizer_step,
    reachable_nodes,
    unknown_step,
)
from trainlint.analysis.dataflow import optimizer_params, target_names
from trainlint.analysis.lambdas import called_lambda
from trainlint.analysis.literals import string_value
from trainlint.analysis.scopes import (
    _parameters, argument_slots, assigned_parts, binding_scope, bound_arguments, head_name, receiver_method,
    receiver_name,
)
from trainlint.analysis.summarize import BUILTIN_NAMES
from trainlint.analysis.training import method_call, module_behind, own_attribute
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, LOOP, MAY_ZERO_GRAD, STEP, ZERO_GRAD, Summary

# training engines that call a function of the user's once per iteration
_ENGINES = frozenset({"ignite.engine.Engine", "ignite.engine.engine.Engine"})
_IN_LOOP = ("this loop back-propagates and steps but never clears gradients: they accumulate across iterations; "
            "call `{}.zero_grad()`")
_THROUGH_HELPER = ("`{}()` back-propagates and steps `{}`, and this loop never clears gradients: they accumulate "
                   "across iterations; call `{}.zero_grad()`")
_STEPS_THROUGH_HELPER = ("`{}()` steps `{}` after this loop's backward pass, and the loop never clears gradients: "
                         "they accumulate across iterations; call `{}.zero_grad()`")
_IN_HELPER_LOOP = ("`{}()` back-propagates and steps `{}` in a loop of its own and never clears gradients: they "
                   "accumulate across iterations; call `{}.zero_grad()` in that loop")
# the message slot of a step that may be no optimizer's (see `MissingZeroGrad._unknown_step`)
_UNKNOWN = "<unknown>"
# a fact of `MissingZeroGrad._cleared_between_steps`: a step of the optimizer ran earlier
# in this iteration (it is dropped where the loop starts again); no model is named so
_STEPPED = "<stepped>"


class _BetweenSteps(NamedTuple):
    covered: set[str]  # the models cleared on every path from the previous step
    same_iteration: bool  # a previous step may have run earlier in the same iteration


def _listed(names: list[str]) -> str:
    """`a`, `a` and `b`, `a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _branch_sides(ctx: FileContext, node: cst.CSTNode, loop: cst.CSTNode) -> dict[cst.If, bool]:
    """Each `if` of `loop` around `node`, with whether `node` is in its `else` part
    (`elif`s included); empty when `node` is not in the loop itself (in a helper)."""
    sides: dict[cst.If, bool] = {}
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is loop:
            return sides
        if type(ancestor) is cst.If:
            sides[ancestor] = child is ancestor.orelse
        child = ancestor
    return {}


def _guarded_by_try(ctx: FileContext, node: cst.CSTNode, loop: cst.CSTNode, clearing: set[int]) -> bool:
    """`node`, a clear, opens the body of a `try:` of `loop` that has handlers: only clears
    (of `clearing`, by id) run before it there. A `zero_grad()` does not raise in practice
    (`try: opt_g.zero_grad() except RuntimeError: pass`): the handlers' paths, that skip it,
    are not taken. A statement before the clears may raise (`try: x = cond(batch);
    opt_g.zero_grad() except ValueError: continue`): then the handlers' paths stand."""
    expr = ctx.parent(node)
    if type(expr) is not cst.Expr or type(statement := ctx.parent(expr)) is not cst.SimpleStatementLine:
        return False
    body, attempt = ctx.parent(statement), ctx.parent(ctx.parent(statement))
    if type(attempt) not in (cst.Try, cst.TryStar) or body is not attempt.body or not attempt.handlers:  # type: ignore
        return False
    if not any(ancestor is loop for ancestor in ctx.ancestors(attempt)):
        return False
    before = [*body.body[:body.body.index(statement)], statement]  # type: ignore[attr-defined]
    return all(_only_clears(line, clearing, up_to=node) for line in before)


def _only_clears(line: cst.CSTNode, clearing: set[int], up_to: cst.CSTNode) -> bool:
    """Each small statement of `line`, up to the one holding `up_to`, is a clear of `clearing`."""
    if type(line) is not cst.SimpleStatementLine:
        return False
    for small in line.body:
        if type(small) is not cst.Expr or id(small.value) not in clearing:
            return False
        if small.value is up_to:
            break
    return True


def _same_or_inside(owner: str, model: str) -> bool:
    """`model.zero_grad()` clears `owner`'s parameters: the same model, or one inside
    it (`model` for `model.generator`), or (unsure) one holding it: the module it wraps
    (`model.module`), an attribute of `self` when the optimizer steps `self.parameters()`.
    A submodule of the model the optimizer was built on (`model.head` of
    `SGD(model.parameters())`) clears that part only."""
    if owner == model or owner.startswith(model + "."):
        return True
    if not model.startswith(owner + "."):
        return False
    return owner == "self" or all(name == "module" for name in model[len(owner) + 1:].split("."))


def _parameters_argument(ctx: FileContext, value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """What an optimizer built by `value` is built on: the first argument (or `params=`)
    of the innermost constructor (`model.parameters()` of `OptimWrapper(SGD(model.parameters()))`)."""
    while type(value) is cst.Call:
        arg = next((a for a in value.args if a.keyword is not None and a.keyword.value == "params"),
                   value.args[0] if value.args and value.args[0].keyword is None and not value.args[0].star else None)
        if arg is None:
            return None
        value = arg.value
        if type(value) is not cst.Call or not _constructs(ctx, value):
            return value
    return value


def _constructs(ctx: FileContext, call: cst.Call) -> bool:
    """A call of a class or factory (`nn.Linear(4, 1)`, `build_model(cfg)`), not a
    method of a variable (`params.values()`) nor a builtin that repackages its
    argument (`list(model.parameters())`)."""
    head = head_name(call.func)
    if head is None or head.value in BUILTIN_NAMES:
        return False
    return type(call.func) is cst.Name or ctx.qualified_name(head) is not None


def _variables_read(ctx: FileContext, expr: cst.BaseExpression) -> set[str]:
    """The variables `expr` reads: not the names of what it calls (`list`, `nn.Linear`),
    nor attributes, keywords, or what its comprehensions bind."""
    nodes = ctx.subtree(expr)
    bound = {name for node in nodes if type(node) is cst.CompFor for name in target_names(node.target)}
    found = set()
    for node in nodes:
        parent = ctx.parent(node) if type(node) is cst.Name else None
        if (type(node) is not cst.Name or node.value in bound or (type(parent) is cst.Attribute and parent.attr is node)
                or (type(parent) is cst.Arg and parent.keyword is node) or (type(parent) is cst.Call and parent.func is node)):
            continue
        if ctx.qualified_name(node) is None:  # type: ignore[arg-type]
            found.add(node.value)  # type: ignore[attr-defined]
    return found



def _joined_models(ctx: FileContext, expr: cst.BaseExpression, named: bool = True) -> list[cst.BaseExpression] | None:
    """The models whose parameters `expr` joins, each written as a variable or an
    attribute (`g`, `d` of `itertools.chain(g.parameters(), d.parameters())`); None
    when it holds anything else (a tensor, a filtered list). `named`: `expr` may be
    a variable assigned them (once: a value of one is read as written)."""
    kind = type(expr)
    if kind is cst.Call:
        models = method_call(expr, "parameters")
        if models is not None and not expr.args:  # type: ignore[attr-defined]
            listed = _module_list_items(ctx, models)
            if listed is not None:
                return listed
            return [models] if type(models) in (cst.Name, cst.Attribute) else None
        name = ctx.qualified_name(expr.func)  # type: ignore[attr-defined]
        if name == "itertools.chain" or _repackages(ctx, expr):  # type: ignore[arg-type]
            args = expr.args  # type: ignore[attr-defined]
            return _joined_parts(ctx, [arg.value for arg in args if not arg.star and arg.keyword is None],
                                 len(args), named)
        return None
    if kind is cst.BinaryOperation and type(expr.operator) is cst.Add:  # type: ignore[attr-defined]
        return _joined_parts(ctx, [expr.left, expr.right], 2, named)  # type: ignore[attr-defined]
    if kind in (cst.List, cst.Tuple):
        parts = [_element_parameters(element) for element in expr.elements]  # type: ignore[attr-defined]
        return _joined_parts(ctx, [part for part in parts if part is not None], len(parts), named)
    if kind is cst.Name and named:
        value = _only_value(ctx, expr)  # type: ignore[arg-type]
        return _joined_models(ctx, value, named=False) if value is not None else None
    return None


def _only_value(ctx: FileContext, variable: cst.Name) -> cst.BaseExpression | None:
    """The one value a variable is assigned (`params = list(g.parameters()) + ...`), when
    nothing else binds it and no method of it is called (`params.extend(head.parameters())`)."""
    binding = ctx.receivers.binding(variable)
    values = ctx.receivers.only_assigned(binding) if binding is not None else None
    if values is None or len(values) != 1:
        return None
    for use in ctx.receivers.spelled(variable.value):
        parent = ctx.parent(use)
        if (type(use) is cst.Name and type(parent) is cst.Attribute and parent.value is use
                and type(ctx.parent(parent)) is cst.Call and ctx.receivers.binding(use) == binding):
            return None
    return values[0]


def _joined_parts(ctx: FileContext, parts: list[cst.BaseExpression], written: int,
                  named: bool) -> list[cst.BaseExpression] | None:
    """The models of each of `parts`, when all `written` parts are known to be parameters."""
    found: list[cst.BaseExpression] = []
    for part in parts:
        models = _joined_models(ctx, part, named)
        if models is None:
            return None
        found += models
    return found if found and len(parts) == written else None


def _element_parameters(element: cst.BaseElement) -> cst.BaseExpression | None:
    """What an item of a list of parameters adds: the parameters a `*` spreads
    (`*g.parameters()`), or those of a parameter group (`{"params": g.parameters(), "lr": lr}`);
    None for one tensor (`model.weight`) or a group whose parameters it does not write."""
    if type(element) is cst.StarredElement:
        return element.value
    value = element.value
    if type(value) is not cst.Dict:
        return None
    return next((item.value for item in value.elements if type(item) is cst.DictElement
                 and string_value(item.key) == "params"), None)


def _module_list_items(ctx: FileContext, expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The models an `nn.ModuleList([g, d])` written out holds, each a variable or attribute."""
    if type(expr) is not cst.Call or ctx.qualified_name(expr.func) != "torch.nn.ModuleList" or len(expr.args) != 1:
        return None
    listed = expr.args[0].value
    if type(listed) not in (cst.List, cst.Tuple):
        return None
    written = listed.elements  # type: ignore[attr-defined]
    items = [element.value for element in written if type(element) is cst.Element]
    if len(items) != len(written) or any(type(item) not in (cst.Name, cst.Attribute) for item in items):
        return None
    return items


def _repackages(ctx: FileContext, call: cst.Call) -> bool:
    """`list(...)` or `tuple(...)` of Python's, given one iterable."""
    func = call.func
    return (type(func) is cst.Name and func.value in ("list", "tuple") and len(call.args) == 1
            and binding_scope(func.value, ctx.scope_of(func)) is None)


def _module_sources(ctx: FileContext) -> dict[str, set[str]]:
    """Each name (as written) assigned another's module itself, moved (`model.cuda()`)
    or wrapped (`DDP(model)`), also by unpacking (`self.G, self.D = G, D`): the names
    it is assigned from."""
    found: dict[str, set[str]] = {}
    for node in ctx.nodes_of(cst.Assign):
        for target in node.targets:  # type: ignore[attr-defined]
            for part, given in assigned_parts(target.target, node.value):  # type: ignore[attr-defined]
                value = module_behind(ctx, given) if given is not None else None
                if type(value) in (cst.Name, cst.Attribute):
                    found.setdefault(ctx.code(part), set()).add(ctx.code(value))  # type: ignore[arg-type]
    return found


class MissingZeroGrad(Rule):
    """
    ## What it does
    Flags the optimizer step of a loop that back-propagates and steps an
    optimizer on every iteration but never clears gradients: no
    `optimizer.zero_grad()`, `model.zero_grad()`, `p.grad = None` or
    `p.grad.zero_()` anywhere one iteration runs, the file's own helper
    functions it calls included, and those of the project's other modules
    (`end_step(scaler, optimizer)` of helpers.py). With several optimizers, each one's step
    needs its own `zero_grad()` (or a clear of every gradient, such as a
    model's `zero_grad()`): a loop that clears only the discriminator's
    optimizer still flags the generator's step. A model's `zero_grad()`
    clears the optimizers built on that model's parameters:
    `netD.zero_grad()` does not clear `Adam(netG.parameters())`; an optimizer
    joining several models' parameters (`Adam(itertools.chain(netG.parameters(),
    netD.parameters()))`, `list(netG.parameters()) + list(netD.parameters())`,
    `[*netG.parameters(), *netD.parameters()]`, one parameter group per
    model, `nn.ModuleList([netG, netD]).parameters()`, also first assigned
    to a variable) is cleared when each
    of them is, on every path to its step (a clear in each branch of an
    `if` counts), by its own `zero_grad()` or by that of an optimizer built
    on it (not by one that runs only every few iterations): clearing one of
    them only leaves the other's gradients to accumulate. One built on
    anything else (a list of tensors) may hold that model's parameters, and
    counts as cleared. A submodule's `zero_grad()`
    (`model.head.zero_grad()` beside `SGD(model.parameters())`) clears that
    part only, and so does a clear of the parameters a test of their names
    picks (`for name, p in model.named_parameters(): if "head" in name:
    p.grad = None`): neither clears the optimizer's other gradients (the
    module DDP wraps, `model.module`, is the whole model, and an attribute of
    `self` may hold all of `self.parameters()`). A model a helper of the file
    clears through its parameter is the one its calls give it
    (`m.zero_grad()` of `micro_step(model, x)` clears `model`), any model
    when they give different ones. A clear in one branch of an
    `if` that steps there too does not count for a step in the other branch
    (`if use_amp: ...; scaler.step(opt); opt.zero_grad()` `else:
    loss.backward(); opt.step()`): that path never clears.

    ## Why is this bad?
    `backward()` adds into `.grad`; it does not overwrite it. Without
    clearing, every step applies the sum of all gradients computed so far:
    the effective learning rate grows each iteration and training diverges or
    crawls, with no error.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    No fix: where the clear belongs (every step, or every N-th micro-step
    under gradient accumulation) is the author's choice.

    ## Limitations
    Clearing only counts when the loop reaches it, on a path that does not
    fail (a `zero_grad()` in an `except` handler only recovers from an
    error). The optimizer must be known to be one (built from `torch.optim`
    or a known factory, by a factory whose name says so such as a project's
    `build_optimizer` / `create_optimizer` or a model's
    `configure_optimizers`, by `hydra.utils.instantiate(cfg.optimizer, ...)`,
    passed in from such a call in this file, also through a class's
    `__init__`, stepped by a GradScaler, cleared with `zero_grad()`
    elsewhere in the file, or a parameter annotated `torch.optim.Optimizer`),
    also as an item of a container of them (a dict, list, tuple or
    `SimpleNamespace` written out with them or built by a comprehension of
    them, also `list(...)` of a generator of them, returned by a function
    or method of the file (written in the `return`, or in a variable it
    returns), a dict or
    `Munch` filled with them key by key, a loop over one). An item a variable key picks
    (`self.optimizer[name]` of a helper) is the one the helper's calls name
    when they all give one literal key (`self._scaler_step("generator")`);
    otherwise (calls giving different keys, a key the loop does not show) it
    may be any item, and a clear of any item of that container counts for it.
    An optimizer passed in from another module, unannotated, is not known
    there, except beside the clears of others: a loop that clears only other
    optimizers (`optimizerG.zero_grad()`) and steps one handed in, never cleared,
    whose name says it is one (`optimizerD`, `opt_d`, `optimizer_D`; not
    `optimizer_scheduler`) is reported at that step; the loop that hands an optimizer it knows to a function of
    another module of the project that steps it (`train_step(model,
    optimizer, batch)`, torchvision's `train_one_epoch(model, criterion,
    optimizer, ...)`, a `training_step` inherited from a base class of
    another module) is judged at that call instead, and so is a loop calling
    the step method of a trainer object whose class built its optimizer
    (`trainer = Trainer(model).cuda()`, then `trainer.train_step(x, y)`,
    the class in this file or another): flagged when neither
    the loop nor that function clears gradients, nor calls something out of
    reach whose name says it may. So is a call, in a loop or not, that hands
    an optimizer it knows to a function of another module holding a loop of
    its own that steps it, back-propagates and clears nothing (`finetune(model,
    loader, opt)` clearing only once before its loop); a loop there that calls
    code of the project is not judged. The process function given to ignite's
    `Engine(update_fn)` is judged as a loop's body: the engine runs it on
    every iteration.
    A call into code outside the file
    whose name says it zeroes or clears gradients (`self.clear_grads()`,
    `reset_gradients(model)`, `zero_all(opt)`) is assumed to clear them; one
    that only mentions them (`average_gradients(model)`, `clip_gradients`)
    is not. A lambda the loop calls through its name is read as a helper is
    (`clear = lambda: opt.zero_grad()`, then `clear()`). A function the file
    cannot name that the loop hands an optimizer (`on_step(optimizer)` of a
    parameter, a callback) may clear that optimizer's gradients and counts as
    a clear of it; a function of the file, a builtin, a name imported from a
    module, or a method handed it (`scaler.step(optimizer)`) does not. `opt.step(closure)` is not checked: the closure
    clears. A loop whose iterations each build the optimizer (a statement of
    the loop's body, or one before the step in a block of the body that holds
    it: `if trainable:` building it and stepping) on a model they also build,
    nothing else, is not
    flagged: on `model.parameters()`, on a dict or list of its parameters
    built there (`params.values()`), on its tensors listed
    (`[model.weight, model.bias]`); any variable from outside the loop in
    what the optimizer is built on (a model built once) keeps it flagged.
    """

    code = "TL401"
    name = "missing-zero-grad"
    severity = "error"
    message = "this loop back-propagates and steps but never clears gradients: they accumulate across iterations; call `optimizer.zero_grad()`"
    triggers = ("backward",)
    bad = (
        # a DCGAN step that clears the discriminator only: `netD.zero_grad()` leaves
        # the generator's gradients, which `optimizerG` steps, to pile up
        "import torch\n"
        "optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)\n"
        "optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)\n"
        "for real, _ in loader:\n"
        "    netD.zero_grad()\n"
        "    fake = netG(torch.randn(real.size(0), 100, 1, 1))\n"
        "    (criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)).backward()\n"
        "    optimizerD.step()\n"
        "    criterion(netD(fake), ones).backward()\n"
        "    optimizerG.step()  # expect: TL401\n",
        # a GAN step: only the discriminator's optimizer is cleared
        "import torch\n"
        "opt_g = torch.optim.Adam(generator.parameters())\n"
        "opt_d = torch.optim.Adam(discriminator.parameters())\n"
        "for real in loader:\n"
        "    fake = generator(noise())\n"
        "    discriminator(fake).mean().backward()\n"
        "    opt_g.step()  # expect: TL401\n"
        "    opt_d.zero_grad()\n"
        "    (discriminator(fake.detach()).mean() - discriminator(real).mean()).backward()\n"
        "    opt_d.step()\n",
        # gradients averaged or clipped by another module's helper are still there
        "import torch\n"
        "from dist_utils import average_gradients, clip_gradients\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    criterion(model(x), y).backward()\n"
        "    average_gradients(model)\n"
        "    clip_gradients(model, 1.0)\n"
        "    optimizer.step()  # expect: TL401\n",
        # fp16 master weights: the copy into the master's gradient clears none of the
        # model's, which backward keeps adding to
        "import torch\n"
        "master = torch.nn.Parameter(flatten([p.detach().float() for p in params]))\n"
        "optimizer = torch.optim.Adam([master])\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    master.grad = flatten([p.grad.float() for p in params])\n"
        "    optimizer.step()  # expect: TL401\n"
        "    copy_back(master, params)\n",
        # tensors of zeros made in the step (an RNN's first hidden state, a target
        # distribution filled in place) clear no gradient
        "import torch\n"
        "optimizer = torch.optim.Adam(model.parameters())\n"
        "for x, y in loader:\n"
        "    h0 = torch.zeros(1, x.size(0), 128)\n"
        "    target = torch.zeros_like(y).float()\n"
        "    loss = criterion(model(x, h0), target + y.new_zeros(y.shape) + x.nonzero().numel())\n"
        "    loss.backward()\n"
        "    optimizer.step()  # expect: TL401\n",
        # an optimizer class of the file (a subclass of torch.optim.Optimizer)
        "import torch\n"
        "class Lion(torch.optim.Optimizer):\n"
        "    def step(self):\n"
        "        self.update_weights()\n"
        "lion = Lion(model.parameters(), {'lr': 1e-4})\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    lion.step()  # expect: TL401\n",
        # optimizers stepped in a loop over a list of them (modded-nanogpt's style)
        "import torch\n"
        "optimizers = [torch.optim.AdamW(head.parameters()), torch.optim.SGD(body.parameters(), lr=0.1)]\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    for opt in optimizers:\n"
        "        opt.step()  # expect: TL401\n",
        # the optimizer a model's `configure_optimizers()` builds (minGPT, Lightning's name)
        "def run(model, loader, config):\n"
        "    optimizer = model.configure_optimizers(config)\n"
        "    for x, y in loader:\n"
        "        logits, loss = model(x, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()  # expect: TL401\n",
        # cleared only when the iteration failed: the steps that succeed accumulate
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x in loader:\n"
        "    try:\n"
        "        model(x).sum().backward()\n"
        "    except torch.cuda.OutOfMemoryError:\n"
        "        optimizer.zero_grad()\n"
        "        continue\n"
        "    optimizer.step()  # expect: TL401\n",
        # an optimizer known from its parameter's annotation
        "from typing import Optional\n"
        "import torch\n"
        "from torch.optim import Optimizer\n"
        "def run_epoch(net, batches, opt: Optional[Optimizer] = None):\n"
        "    for inputs, labels in batches:\n"
        "        torch.nn.functional.cross_entropy(net(inputs), labels).backward()\n"
        "        opt.step()  # expect: TL401\n",
        # optimizers built by a factory: Hydra's instantiate, a project's builder
        "import hydra\n"
        "from project.optim import build_optimizer\n"
        "def train(cfg, model, loader):\n"
        "    optimizer = hydra.utils.instantiate(cfg.optimizer, params=model.parameters())\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()  # expect: TL401\n"
        "def finetune(cfg, model, loader):\n"
        "    opt = build_optimizer(cfg, model)\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        opt.step()  # expect: TL401\n",
        "import torch\n"
        "model = Net()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()  # expect: TL401\n",
        # cleared once before the loop only
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)\n"
        "    opt.zero_grad()\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = model(x, y)\n"
        "        loss.backward()\n"
        "        opt.step()  # expect: TL401\n",
        # the loop split across functions; the fp16 path steps through the scaler
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer, scaler):\n"
        "    for x, y in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x, y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)  # expect: TL401\n"
        "        scaler.update()\n"
        "def main():\n"
        "    model = Net()\n"
        "    optimizer = torch.optim.Adam(model.parameters())\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for epoch in range(10):\n"
        "        train_one_epoch(model, loader, optimizer, scaler)\n",
        # a Trainer whose step lives in a helper method; the clear is commented out
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
        "    def training_step(self, batch):\n"
        "        loss = self.model(batch)\n"
        "        loss.backward()\n"
        "        self.opt.step()  # expect: TL401\n"
        "        # self.opt.zero_grad()\n"
        "    def fit(self, loader):\n"
        "        step = 0\n"
        "        while step < 1000:\n"
        "            for batch in loader:\n"
        "                self.training_step(batch)\n"
        "                step += 1\n",
        # a trainer object's step method, called from a loop outside its class
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
        "    def training_step(self, batch):\n"
        "        self.model(batch).backward()\n"
        "        self.opt.step()\n"
        "def fit(model, loader):\n"
        "    trainer = Trainer(model)\n"
        "    for batch in loader:\n"
        "        trainer.training_step(batch)  # expect: TL401\n",
        # optimizers kept in a dict, one per network (stargan-v2's solver)
        "import torch\n"
        "class Solver:\n"
        "    def __init__(self, nets):\n"
        "        self.nets = nets\n"
        "        self.optims = {}\n"
        "        for net in nets:\n"
        "            self.optims[net] = torch.optim.Adam(nets[net].parameters(), lr=1e-4)\n"
        "    def train(self, loader):\n"
        "        optims = self.optims\n"
        "        for x in loader:\n"
        "            self.nets['generator'](x).mean().backward()\n"
        "            optims['generator'].step()  # expect: TL401\n",
        # optimizers a training function is given: the caller built each on one model
        "import torch\n"
        "def train(g_model, d_model, g_opt, d_opt, loader):\n"
        "    for x in loader:\n"
        "        d_model(g_model(x)).mean().backward()\n"
        "        g_opt.step()  # expect: TL401\n"
        "        d_model.zero_grad(set_to_none=True)\n"
        "        (d_model(x).mean() - d_model(g_model(x).detach()).mean()).backward()\n"
        "        d_opt.step()\n"
        "def main(loader):\n"
        "    g_model, d_model = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)\n"
        "    g_opt = torch.optim.Adam(g_model.parameters())\n"
        "    d_opt = torch.optim.Adam(d_model.parameters())\n"
        "    train(g_model, d_model, g_opt, d_opt, loader)\n",
        # the step function of an ignite Engine: the engine runs it every iteration
        "import torch\n"
        "from ignite.engine import Engine\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "def update_fn(engine, batch):\n"
        "    x, y = batch\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()  # expect: TL401\n"
        "trainer = Engine(update_fn)\n",
        # the clear sits in the other branch: the fp32 path steps without one (a
        # ConvNeXt-style engine with its `zero_grad()` dropped from the `else`)
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    if use_amp:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = criterion(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        optimizer.zero_grad()\n"
        "    else:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()  # expect: TL401\n",
        # a wrapper whose zero_grad() only resets its own counter clears nothing
        "import torch\n"
        "class Accumulator:\n"
        "    def __init__(self, optimizer):\n"
        "        self.optimizer, self.count = optimizer, 0\n"
        "    def step(self):\n"
        "        self.optimizer.step()\n"
        "        self.count += 1\n"
        "    def zero_grad(self):\n"
        "        self.count = 0\n"
        "def train(model, optimizer, loader):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()  # expect: TL401\n"
        "def main(model, loader):\n"
        "    optimizer = Accumulator(torch.optim.Adam(model.parameters()))\n"
        "    train(model, optimizer, loader)\n",
        # an optimizer from another module's factory named for it (SupContrast's util.set_optimizer)
        "from util import set_optimizer\n"
        "def train(loader, model, criterion, optimizer):\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()  # expect: TL401\n"
        "def main(opt, model, loader, criterion):\n"
        "    optimizer = set_optimizer(opt, model)\n"
        "    for epoch in range(opt.epochs):\n"
        "        train(loader, model, criterion, optimizer)\n",
        # a fresh model per fold, trained for many steps without a clear
        "import torch\n"
        "def cross_validate(folds):\n"
        "    for loader in folds:\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        for x, y in loader:\n"
        "            torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()  # expect: TL401\n",
        # a deep copy's zero_grad() clears its own parameters, not the trained model's
        "import copy\n"
        "import torch\n"
        "def main(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    ema = copy.deepcopy(model)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        opt.step()  # expect: TL401\n"
        "        ema.zero_grad()\n",
        # a loss named in capitals, as GAN code names them (`D_loss`), is a loss
        "import torch\n"
        "opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)\n"
        "for real, z in loader:\n"
        "    D_loss = critic(gen(z).detach()).mean() - critic(real).mean()\n"
        "    D_loss.backward()\n"
        "    opt_d.step()  # expect: TL401\n",
        # the optimizer rebuilt each iteration, on the parameters of a model built once
        "import torch\n"
        "from torch import nn\n"
        "model = nn.Linear(4, 1)\n"
        "for lr in (0.1, 0.01):\n"
        "    params = {n: p for n, p in model.named_parameters() if p.requires_grad}\n"
        "    opt = torch.optim.SGD(params.values(), lr=lr)\n"
        "    model(torch.randn(3, 4)).sum().backward()\n"
        "    opt.step()  # expect: TL401\n"
        "for lr in (0.1, 0.01):\n"
        "    head = nn.Linear(1, 1)\n"
        "    opt = torch.optim.SGD([head.weight, model.weight], lr=lr)\n"
        "    head(model(torch.randn(3, 4))).sum().backward()\n"
        "    opt.step()  # expect: TL401\n",
        # optimizers kept in a Munch, one per network, read by attribute (stargan-v2's solver)
        "import torch\n"
        "from munch import Munch\n"
        "class Solver:\n"
        "    def __init__(self, nets):\n"
        "        self.nets = nets\n"
        "        self.optims = Munch()\n"
        "        for net in nets:\n"
        "            self.optims[net] = torch.optim.Adam(nets[net].parameters(), lr=1e-4)\n"
        "    def pretrain(self, loader):\n"
        "        for x in loader:\n"
        "            self.nets.encoder(x).mean().backward()\n"
        "            self.optims.encoder.step()  # expect: TL401\n",
        # a model built each iteration around a backbone built once: the backbone's gradients accumulate
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "def train(loader):\n"
        "    backbone = nn.Linear(4, 4)\n"
        "    for x in loader:\n"
        "        model = nn.Sequential(backbone, nn.Linear(4, 1))\n"
        "        params = dict(model.named_parameters())\n"
        "        opt = torch.optim.SGD(params.values(), lr=0.1)\n"
        "        model(x).sum().backward()\n"
        "        opt.step()  # expect: TL401\n",
        # a helper of the file clears the encoder it is given, the decoder's optimizer steps
        "import torch\n"
        "def micro_step(m, x):\n"
        "    m.zero_grad()\n"
        "    m(x).sum().backward()\n"
        "def train(enc, dec, loader):\n"
        "    opt = torch.optim.SGD(dec.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        micro_step(enc, x)\n"
        "        dec(x).sum().backward()\n"
        "        opt.step()  # expect: TL401\n",
        # the loop's `report` is its own lambda, not the helper of the same name that
        # another function nests and that clears
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    report = lambda: print('step')\n"
        "    for batch in loader:\n"
        "        model(batch).mean().backward()\n"
        "        report()\n"
        "        opt.step()  # expect: TL401\n"
        "def finetune(model, opt, batch):\n"
        "    def report():\n"
        "        opt.zero_grad()\n"
        "    model(batch).mean().backward()\n"
        "    opt.step()\n"
        "    report()\n",
        # a helper stepping the optimizer its key picks, given the generator's: only the
        # discriminator's is cleared; given either, by a loop that clears neither
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def _scaler_step(self, name):\n"
        "        self.scaler.step(self.optimizer[name])  # expect: TL401\n"
        "        self.scaler.update()\n"
        "    def run(self, loader):\n"
        "        for x in loader:\n"
        "            self.scaler.scale(self.model['generator'](x).mean()).backward()\n"
        "            self._scaler_step('generator')\n"
        "            self.optimizer['discriminator'].zero_grad()\n"
        "            self.scaler.scale(self.model['discriminator'](x).mean()).backward()\n"
        "            self.optimizer['discriminator'].step()\n"
        "class Updater:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def _update(self, name):\n"
        "        self.scaler.step(self.optimizer[name])  # expect: TL401\n"
        "        self.scaler.update()\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            for name in ('generator', 'discriminator'):\n"
        "                self.scaler.scale(self.model[name](x).mean()).backward()\n"
        "                self._update(name)\n",
        # optimizers built by a list comprehension, stepped in a loop over them (OpenRLHF's warm-up)
        "import torch\n"
        "class Warmup:\n"
        "    def __init__(self, actor, critic):\n"
        "        self.models = [actor, critic]\n"
        "        self.optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-5) for m in self.models]\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            sum(m(batch).mean() for m in self.models).backward()\n"
        "            for opt in self.optimizers:\n"
        "                opt.step()  # expect: TL401\n",
        # the same list returned by a method of the class
        "import torch\n"
        "class Warmup:\n"
        "    def __init__(self, actor, critic, lr=1e-5):\n"
        "        self.models = [actor, critic]\n"
        "        self.optimizers = self.build_optimizers(self.models, lr)\n"
        "    @classmethod\n"
        "    def build_optimizers(cls, models, lr):\n"
        "        return [torch.optim.AdamW(m.parameters(), lr=lr) for m in models]\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            sum(m(batch).mean() for m in self.models).backward()\n"
        "            for opt in self.optimizers:\n"
        "                opt.step()  # expect: TL401\n",
        # a dict of optimizers returned by a function of the file
        "import torch\n"
        "def build(g, d):\n"
        "    return {'g': torch.optim.Adam(g.parameters()), 'd': torch.optim.Adam(d.parameters())}\n"
        "def fit(g, d, loader):\n"
        "    opts = build(g, d)\n"
        "    for x in loader:\n"
        "        (g(x).mean() + d(x).mean()).backward()\n"
        "        opts['g'].step()  # expect: TL401\n"
        "        for opt in opts.values():\n"
        "            opt.step()  # expect: TL401\n",
        # a list built by a comprehension, returned through a variable
        "import torch\n"
        "def build(models):\n"
        "    optimizers = [torch.optim.Adam(m.parameters()) for m in models]\n"
        "    return optimizers\n"
        "def fit(models, loader):\n"
        "    optimizers = build(models)\n"
        "    for x in loader:\n"
        "        for model, opt in zip(models, optimizers):\n"
        "            model(x).mean().backward()\n"
        "            opt.step()  # expect: TL401\n",
        # a list of a generator expression's optimizers
        "import torch\n"
        "def train(models, loader):\n"
        "    optimizers = list(torch.optim.SGD(m.parameters(), lr=0.1) for m in models)\n"
        "    for x in loader:\n"
        "        for model, opt in zip(models, optimizers):\n"
        "            model(x).sum().backward()\n"
        "            opt.step()  # expect: TL401\n",
        # the same dict's optimizer never cleared
        "import torch\n"
        "def build(model):\n"
        "    optimizer = torch.optim.Adam(model.parameters())\n"
        "    return {\"optimizer\": optimizer, \"scheduler\": torch.optim.lr_scheduler.StepLR(optimizer, 10)}\n"
        "def fit(model, loader, epochs):\n"
        "    parts = build(model)\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            model(x).mean().backward()\n"
        "            parts[\"optimizer\"].step()  # expect: TL401\n"
        "        parts[\"scheduler\"].step()\n",
        # handed to a function of the file and to a lambda that only log it: neither clears
        "import torch\n"
        "def log_lr(optimizer):\n"
        "    print(optimizer.param_groups[0]['lr'])\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    show = lambda: print(opt)\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        opt.step()  # expect: TL401\n"
        "        log_lr(opt)\n"
        "        show()\n",
        # only a part of the model is ever cleared: the parameters a test of their names
        # picks, or a submodule of the model the optimizer steps
        "import torch\n"
        "def train(model, loader, freeze_iters):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for it, x in enumerate(loader):\n"
        "        loss = model(x).mean()\n"
        "        loss.backward()\n"
        "        if it < freeze_iters:\n"
        "            for name, p in model.named_parameters():\n"
        "                if 'prototypes' in name:\n"
        "                    p.grad = None\n"
        "        optimizer.step()  # expect: TL401\n",
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        model.head.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        optimizer.step()  # expect: TL401\n",
        # a GAN's discriminator optimizer, handed in and named for it, stepped but never cleared
        "import torch\n"
        "def train(netG, netD, optimizerG, optimizerD, loader):\n"
        "    for x in loader:\n"
        "        fake = netG(torch.randn(x.size(0), 100))\n"
        "        d_loss = netD(x).mean() - netD(fake.detach()).mean()\n"
        "        d_loss.backward()\n"
        "        optimizerD.step()  # expect: TL401\n"
        "        optimizerG.zero_grad()\n"
        "        g_loss = -netD(fake).mean()\n"
        "        g_loss.backward()\n"
        "        optimizerG.step()\n",
        # a step method called on its class (`Trainer.step(self, x, y)`) runs as `self.step(x, y)`
        # would: its loop never clears
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    def step(self, x, y):\n"
        "        criterion(self.model(x), y).backward()\n"
        "        self.optimizer.step()  # expect: TL401\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            Trainer.step(self, x, y)\n",
        # the model and its optimizer are built under an `if` that holds only on the first
        # iteration: every later step adds to the gradients of the same parameters
        "import torch\n"
        "def train(configs, inputs):\n"
        "    opt = None\n"
        "    for config in configs:\n"
        "        if opt is None:\n"
        "            layer = torch.nn.Linear(4, 1)\n"
        "            opt = torch.optim.SGD(layer.parameters(), lr=1.0)\n"
        "        layer(inputs).mean().backward()\n"
        "        opt.step()  # expect: TL401\n",
        # an optimizer joining the generator's and a head's parameters: the loop clears the
        # generator's (through its own optimizer), never the head's
        "import itertools\n"
        "import torch\n"
        "def train(gen, disc, head, loader):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_d = torch.optim.Adam(disc.parameters())\n"
        "    opt_info = torch.optim.Adam(itertools.chain(gen.parameters(), head.parameters()))\n"
        "    for x in loader:\n"
        "        opt_d.zero_grad()\n"
        "        disc(x).mean().backward()\n"
        "        opt_d.step()\n"
        "        opt_g.zero_grad()\n"
        "        disc(gen(x)).mean().backward()\n"
        "        opt_g.step()\n"
        "        head(gen(x)).mean().backward()\n"
        "        opt_info.step()  # expect: TL401\n",
        # the discriminator, one of the joined models, cleared only on the iterations that train
        # it, while the joined optimizer steps on every one
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, d_every):\n"
        "    g_opt = torch.optim.Adam(netG.parameters())\n"
        "    d_opt = torch.optim.Adam(netD.parameters())\n"
        "    both_opt = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for step, real in enumerate(batches):\n"
        "        if step % d_every == 0:\n"
        "            d_opt.zero_grad()\n"
        "            netD(real).mean().backward()\n"
        "            d_opt.step()\n"
        "        g_opt.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        g_opt.step()\n"
        "        netD(netG(real)).square().mean().backward()\n"
        "        both_opt.step()  # expect: TL401\n",
        # the generator and the discriminator joined in one list: only the generator is
        # cleared, the discriminator's gradients pile up in what the joined optimizer steps
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both_opt = torch.optim.Adam([*netG.parameters(), *netD.parameters()], lr=2e-4)\n"
        "    for real in batches:\n"
        "        netG.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both_opt.step()  # expect: TL401\n",
        # the same with the models in an `nn.ModuleList`
        "import torch\n"
        "from torch import nn\n"
        "def fit(netG, netD, batches):\n"
        "    both_opt = torch.optim.Adam(nn.ModuleList([netG, netD]).parameters())\n"
        "    for real in batches:\n"
        "        netD.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both_opt.step()  # expect: TL401\n",
        # each branch of the `if` clears the generator, neither the discriminator
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, use_real):\n"
        "    both_opt = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        if use_real:\n"
        "            netG.zero_grad()\n"
        "            loss = netD(real).mean()\n"
        "        else:\n"
        "            netG.zero_grad()\n"
        "            loss = netD(netG(real)).mean()\n"
        "        loss.backward()\n"
        "        both_opt.step()  # expect: TL401\n",
        # the discriminator cleared by a helper the loop calls only every few iterations
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, d_every):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "\n"
        "    def clear_d():\n"
        "        netD.zero_grad()\n"
        "\n"
        "    for i, real in enumerate(batches):\n"
        "        netG.zero_grad()\n"
        "        if i % d_every == 0:\n"
        "            clear_d()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()  # expect: TL401\n",
        # the joined parameters first put in a variable: only the generator is cleared
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    params = list(netG.parameters()) + list(netD.parameters())\n"
        "    both_opt = torch.optim.Adam(params, lr=2e-4)\n"
        "    for real in batches:\n"
        "        netG.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both_opt.step()  # expect: TL401\n",
        # the models kept on the trainer by unpacking: the generator is never cleared
        "import torch\n"
        "class GANTrainer:\n"
        "    def __init__(self, G, D):\n"
        "        self.G, self.D = G, D\n"
        "        self.opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)\n"
        "        self.opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)\n"
        "    def fit(self, loader):\n"
        "        for real, z in loader:\n"
        "            self.D.zero_grad()\n"
        "            (self.D(self.G(z).detach()) - self.D(real)).mean().backward()\n"
        "            self.opt_d.step()\n"
        "            (-self.D(self.G(z))).mean().backward()\n"
        "            self.opt_g.step()  # expect: TL401\n",
        # the joined models cleared through the DDP wrappers of each: the discriminator's never is
        "import itertools\n"
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def fit(netG, netD, batches, rank):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    g = DDP(netG, device_ids=[rank])\n"
        "    d = DDP(netD, device_ids=[rank])\n"
        "    for real in batches:\n"
        "        g.zero_grad()\n"
        "        d(g(real)).mean().backward()\n"
        "        both.step()  # expect: TL401\n",
        # the encoder cleared after each step, the decoder only every other one
        "import torch\n"
        "def train(encoder, decoder, pairs):\n"
        "    optimizer = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.01)\n"
        "    for i, (src, tgt) in enumerate(pairs):\n"
        "        decoder(encoder(src), tgt).backward()\n"
        "        optimizer.step()  # expect: TL401\n"
        "        encoder.zero_grad()\n"
        "        if i % 2 == 0:\n"
        "            decoder.zero_grad()\n",
        # every case clears both models but the last, guarded, may match none
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, mode):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        match mode:\n"
        "            case 'wgan':\n"
        "                netG.zero_grad()\n"
        "                netD.zero_grad()\n"
        "            case _ if real is not None:\n"
        "                netD.zero_grad()\n"
        "                netG.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()  # expect: TL401\n",
        # a clear guarded against raising, of the generator only
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        try:\n"
        "            netG.zero_grad()\n"
        "        except RuntimeError:\n"
        "            pass\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()  # expect: TL401\n",
        # clears in a try: after a statement that may raise: its handler skips them
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        try:\n"
        "            real = real.cuda(non_blocking=True)\n"
        "            netG.zero_grad()\n"
        "            netD.zero_grad()\n"
        "        except RuntimeError:\n"
        "            pass\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()  # expect: TL401\n",
        # one step or the other, the discriminator cleared on some iterations only
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, log):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for i, real in enumerate(batches):\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step() if log else both.step()  # expect: TL401\n"
        "        netG.zero_grad()\n"
        "        if i % 2 == 0:\n"
        "            netD.zero_grad()\n",
    )
    good = (
        # each model's own zero_grad() (the DCGAN example), or a model that holds the
        # parameters of an optimizer built on a list of groups
        "import torch\n"
        "optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)\n"
        "optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)\n"
        "for real, _ in loader:\n"
        "    netD.zero_grad()\n"
        "    fake = netG(torch.randn(real.size(0), 100, 1, 1))\n"
        "    (criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)).backward()\n"
        "    optimizerD.step()\n"
        "    netG.zero_grad()\n"
        "    criterion(netD(fake), ones).backward()\n"
        "    optimizerG.step()\n",
        "import torch\n"
        "optimizer = torch.optim.AdamW([{'params': decay}, {'params': no_decay, 'weight_decay': 0.0}])\n"
        "for x, y in loader:\n"
        "    model.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # each optimizer of the list stepped and cleared
        "import torch\n"
        "optimizers = [torch.optim.AdamW(head.parameters()), torch.optim.SGD(body.parameters(), lr=0.1)]\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    for opt in optimizers:\n"
        "        opt.step()\n"
        "        opt.zero_grad(set_to_none=True)\n",
        # each optimizer cleared, or every gradient through the models
        "import torch\n"
        "opt_g = torch.optim.Adam(generator.parameters())\n"
        "opt_d = torch.optim.Adam(discriminator.parameters())\n"
        "for real in loader:\n"
        "    opt_g.zero_grad()\n"
        "    fake = generator(noise())\n"
        "    discriminator(fake).mean().backward()\n"
        "    opt_g.step()\n"
        "    opt_d.zero_grad()\n"
        "    (discriminator(fake.detach()).mean() - discriminator(real).mean()).backward()\n"
        "    opt_d.step()\n"
        "for real in loader:\n"
        "    generator.zero_grad()\n"
        "    discriminator(generator(noise())).mean().backward()\n"
        "    opt_g.step()\n"
        "    opt_d.zero_grad()\n"
        "    discriminator(real).mean().backward()\n"
        "    opt_d.step()\n",
        # factories whose product is cleared; a config entry that is not an optimizer
        "import hydra\n"
        "from project.optim import build_optimizer, get_optimizer_groups\n"
        "def train(cfg, model, loader):\n"
        "    optimizer = build_optimizer(cfg, model)\n"
        "    ema = hydra.utils.instantiate(cfg.ema, model=model)\n"
        "    groups = get_optimizer_groups(model)\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
        "        ema.step()\n"
        "        groups.step()\n",
        # gradient accumulation: cleared only on the micro-steps that step
        "import torch\n"
        "optimizer = torch.optim.AdamW(model.parameters())\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    loss = criterion(model(x), y) / accum\n"
        "    loss.backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # clearing through the model, or by setting `.grad` to None
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    model.zero_grad(set_to_none=True)\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "for x, y in loader:\n"
        "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # a helper of another module whose name says it clears
        "import torch\n"
        "from train_utils import reset_gradients\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    reset_gradients(model)\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # the clear happens in a helper of the same file
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.opt = torch.optim.Adam(model.parameters())\n"
        "    def optimizer_step(self):\n"
        "        self.opt.step()\n"
        "        self.opt.zero_grad(set_to_none=True)\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.model(batch).backward()\n"
        "            self.optimizer_step()\n",
        # full-batch training: cleared once per epoch, stepped once per epoch
        "import torch\n"
        "optimizer = torch.optim.LBFGS(model.parameters())\n"
        "for epoch in range(10):\n"
        "    optimizer.zero_grad()\n"
        "    for x, y in loader:\n"
        "        criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # an L-BFGS closure clears inside; `engine.step()` is not a known optimizer
        "import torch\n"
        "optimizer = torch.optim.LBFGS(model.parameters())\n"
        "for x, y in loader:\n"
        "    def closure():\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        return loss\n"
        "    optimizer.step(closure)\n"
        "for batch in loader:\n"
        "    engine.backward(engine(batch))\n"
        "    engine.step()\n",
        # the same trainer, its gradients cleared by the loop or by a method of its own
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
        "    def training_step(self, batch):\n"
        "        self.model(batch).backward()\n"
        "        self.opt.step()\n"
        "    def reset(self):\n"
        "        self.opt.zero_grad(set_to_none=True)\n"
        "def fit(model, loader):\n"
        "    trainer = Trainer(model)\n"
        "    for batch in loader:\n"
        "        trainer.reset()\n"
        "        trainer.training_step(batch)\n"
        "    for batch in loader:\n"
        "        trainer.opt.zero_grad()\n"
        "        trainer.training_step(batch)\n"
        "    for batch in loader:\n"
        "        model.zero_grad()\n"
        "        trainer.training_step(batch)\n",
        # the same, each model cleared; and an optimizer built on a list of groups,
        # which may hold the cleared model's parameters
        "import torch\n"
        "def train(g_model, d_model, g_opt, d_opt, loader):\n"
        "    for x in loader:\n"
        "        g_model.zero_grad()\n"
        "        d_model(g_model(x)).mean().backward()\n"
        "        g_opt.step()\n"
        "        d_model.zero_grad(set_to_none=True)\n"
        "        (d_model(x).mean() - d_model(g_model(x).detach()).mean()).backward()\n"
        "        d_opt.step()\n"
        "def fit(model, opt, loader):\n"
        "    for x in loader:\n"
        "        model.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "def main(loader, groups):\n"
        "    g_model, d_model = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)\n"
        "    train(g_model, d_model, torch.optim.Adam(g_model.parameters()),\n"
        "          torch.optim.Adam(d_model.parameters()), loader)\n"
        "    fit(g_model, torch.optim.SGD(groups, lr=0.1), loader)\n",
        # the same step function clearing first; a handler that only logs
        "import torch\n"
        "from ignite.engine import Engine, Events\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "def update_fn(engine, batch):\n"
        "    optimizer.zero_grad()\n"
        "    x, y = batch\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "trainer = Engine(process_function=update_fn)\n",
        # a branch that clears and accumulates, and one that steps: two micro-batches
        # per step, each branch taking turns
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    if i % 2 == 0:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "    else:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a GAN that alternates its updates: each branch clears what it steps
        "import torch\n"
        "g_opt = torch.optim.Adam(g.parameters())\n"
        "d_opt = torch.optim.Adam(d.parameters())\n"
        "for i, x in enumerate(loader):\n"
        "    if i % 5 == 0:\n"
        "        g_opt.zero_grad()\n"
        "        (-d(g(z)).mean()).backward()\n"
        "        g_opt.step()\n"
        "    else:\n"
        "        d_opt.zero_grad()\n"
        "        (d(g(z).detach()).mean() - d(x).mean()).backward()\n"
        "        d_opt.step()\n",
        # both paths clear, one of them after the `if`
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    if use_amp:\n"
        "        scaler.scale(criterion(model(x), y)).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "    else:\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        # a wrapper of an optimizer (a Noam schedule) handed to the training function:
        # its zero_grad() clears the optimizer its step() steps
        "import torch\n"
        "class NoamOpt:\n"
        "    def __init__(self, optimizer):\n"
        "        self.optimizer = optimizer\n"
        "    def step(self):\n"
        "        self.optimizer.step()\n"
        "    def zero_grad(self):\n"
        "        self.optimizer.zero_grad()\n"
        "def train(model, optimizer, loader):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "def main(model, loader):\n"
        "    optimizer = NoamOpt(torch.optim.Adam(model.parameters()))\n"
        "    train(model, optimizer, loader)\n",
        # SWA: `SWALR` is a learning-rate scheduler, `AveragedModel` a model
        "import torch\n"
        "from torch.optim.swa_utils import AveragedModel, SWALR\n"
        "swa_model = AveragedModel(model)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.05)\n"
        "swa_sched = SWALR(opt, swa_lr=0.02)\n"
        "for epoch in range(4):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        opt.step()\n"
        "    swa_model.update_parameters(model)\n"
        "    swa_sched.step()\n",
        # each iteration builds a fresh model and its optimizer: one step each, nothing to keep
        "import torch\n"
        "def sweep(data, target):\n"
        "    for lr in (0.1, 0.01, 0.001):\n"
        "        model = torch.nn.Linear(8, 1)\n"
        "        optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
        "        torch.nn.functional.mse_loss(model(data), target).backward()\n"
        "        optimizer.step()\n",
        # the model cleared under another name: moved to the GPU, or wrapped by DDP
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def main(model, loader, rank):\n"
        "    ddp_model = DDP(model.cuda(rank), device_ids=[rank])\n"
        "    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(ddp_model(x), y).backward()\n"
        "        opt.step()\n"
        "        model.zero_grad()\n"
        "def single(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    gpu_model = model.cuda()\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(gpu_model(x), y).backward()\n"
        "        opt.step()\n"
        "        gpu_model.zero_grad()\n",
        # each configuration tested on a fresh model, its optimizer wrapped and prepared
        "import torch\n"
        "def test_configs(strategy, configs, data):\n"
        "    for config in configs:\n"
        "        model = ToyModel()\n"
        "        optim = OptimWrapper(torch.optim.SGD(model.parameters(), lr=0.1))\n"
        "        model, optim = strategy.prepare(model, optim, config)\n"
        "        model(data).sum().backward()\n"
        "        optim.step()\n",
        # a fresh model per iteration, its optimizer built on its named parameters or on
        # its tensors listed (OpenNMT's optimizer tests)
        "import torch\n"
        "from torch import nn\n"
        "for width in (2, 4, 8):\n"
        "    model = nn.Linear(width, 1)\n"
        "    params = {n: p for n, p in model.named_parameters() if p.requires_grad}\n"
        "    model(torch.randn(3, width)).sum().backward()\n"
        "    opt = torch.optim.SGD(params.values(), lr=1.0)\n"
        "    opt.step()\n"
        "for lr in (0.1, 1.0):\n"
        "    model = nn.Linear(4, 1)\n"
        "    opt = torch.optim.Adam([model.weight, model.bias], lr=lr)\n"
        "    model(torch.randn(3, 4)).sum().backward()\n"
        "    opt.step()\n",
        # an object built with an optimizer among other things is no container of optimizers:
        # its trainer may clear the gradients itself
        "import torch\n"
        "from types import SimpleNamespace\n"
        "from mylib import Trainer\n"
        "def main(model, loader):\n"
        "    state = SimpleNamespace(model=model, optimizer=torch.optim.Adam(model.parameters()))\n"
        "    trainer = Trainer(optimizer=torch.optim.Adam(model.parameters()))\n"
        "    for x in loader:\n"
        "        state.model(x).sum().backward()\n"
        "        trainer.optimizer.step()\n",
        # a fresh model and optimizer per strategy, then wrapped by the strategy (keywords, a 3-tuple: mmengine's tests)
        "import torch\n"
        "from torch.optim import SGD\n"
        "from mmengine.optim import LinearLR, OptimWrapper\n"
        "\n"
        "\n"
        "def check_strategies(strategies, ToyModel, data):\n"
        "    for strategy in strategies:\n"
        "        model = ToyModel()\n"
        "        optim = OptimWrapper(SGD(model.parameters(), lr=0.1, momentum=0.9))\n"
        "        scheduler = LinearLR(optimizer=optim)\n"
        "        model, optim, scheduler = strategy.prepare(model=model, optim_wrapper=optim, param_scheduler=scheduler)\n"
        "        model(data)[\"loss\"].backward()\n"
        "        optim.step()\n",
        # a helper of the file clears the model it is given: the one the optimizer was built on
        "import torch\n"
        "def micro_step(m, x):\n"
        "    m.zero_grad()\n"
        "    m(x).sum().backward()\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        micro_step(model, x)\n"
        "        opt.step()\n",
        # a helper of the file given different models clears: which one, the loop does not show
        "import torch\n"
        "def clear(m):\n"
        "    m.zero_grad()\n"
        "def train(enc, dec, loader):\n"
        "    opt = torch.optim.SGD(dec.parameters(), lr=0.1)\n"
        "    clear(enc)\n"
        "    for x in loader:\n"
        "        clear(dec)\n"
        "        dec(enc(x)).sum().backward()\n"
        "        opt.step()\n",
        # an epoch helper clears the model and steps the optimizer it is given, the one built on that model
        "import torch\n"
        "\n"
        "\n"
        "def train_epoch(model, loader, optimizer):\n"
        "    for x in loader:\n"
        "        loss = model(x).sum()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        model.zero_grad()\n"
        "\n"
        "\n"
        "def train(qa_model, loader, epochs):\n"
        "    qa_optimizer = torch.optim.AdamW(qa_model.parameters(), lr=1e-4)\n"
        "    for epoch in range(epochs):\n"
        "        train_epoch(qa_model, loader, qa_optimizer)\n",
        # a helper stepping the optimizer its key picks (ParallelWaveGAN's trainer): given the
        # generator's, which the loop clears; given either, each cleared before its own step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, use_amp):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda') if use_amp else None\n"
        "    def _scaler_step(self, name):\n"
        "        self.scaler.step(self.optimizer[name])\n"
        "        self.scaler.update()\n"
        "    def _train_step(self, x, y):\n"
        "        loss = torch.nn.functional.l1_loss(self.model['generator'](x), y)\n"
        "        self.optimizer['generator'].zero_grad()\n"
        "        if self.scaler is not None:\n"
        "            self.scaler.scale(loss).backward()\n"
        "            self._scaler_step('generator')\n"
        "        else:\n"
        "            loss.backward()\n"
        "            self.optimizer['generator'].step()\n"
        "    def run(self, loader):\n"
        "        for x, y in loader:\n"
        "            self._train_step(x, y)\n"
        "class Updater:\n"
        "    def __init__(self, model, optimizer, use_amp):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda') if use_amp else None\n"
        "    def _update(self, name, loss):\n"
        "        self.optimizer[name].zero_grad()\n"
        "        if self.scaler is not None:\n"
        "            self.scaler.scale(loss).backward()\n"
        "            self.scaler.step(self.optimizer[name])\n"
        "            self.scaler.update()\n"
        "        else:\n"
        "            loss.backward()\n"
        "            self.optimizer[name].step()\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self._update('generator', self.model['generator'](x).mean())\n"
        "            self.optimizer['discriminator'].zero_grad()\n"
        "            self.model['discriminator'](x).mean().backward()\n"
        "            self.optimizer['discriminator'].step()\n"
        "class Solver:\n"
        "    def __init__(self, model, optimizer, use_amp):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda') if use_amp else None\n"
        "    def _optimize(self, name):\n"
        "        self.scaler.step(self.optimizer[name])\n"
        "        self.scaler.update()\n"
        "    def train(self, loader):\n"
        "        for x in loader:\n"
        "            for name in ('generator', 'discriminator'):\n"
        "                loss = self.model[name](x).mean()\n"
        "                self.optimizer[name].zero_grad()\n"
        "                if self.scaler is not None:\n"
        "                    self.scaler.scale(loss).backward()\n"
        "                    self._optimize(name)\n"
        "                else:\n"
        "                    loss.backward()\n"
        "                    self.optimizer[name].step()\n"
        "    def finetune(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer['generator'].zero_grad()\n"
        "            if self.scaler is not None:\n"
        "                self.scaler.scale(self.model['generator'](x).mean()).backward()\n"
        "                self._optimize('generator')\n"
        "            else:\n"
        "                self.model['generator'](x).mean().backward()\n"
        "                self.optimizer['generator'].step()\n"
        "            self.optimizer['discriminator'].zero_grad()\n"
        "            if self.scaler is not None:\n"
        "                self.scaler.scale(self.model['discriminator'](x).mean()).backward()\n"
        "                self._optimize('discriminator')\n"
        "            else:\n"
        "                self.model['discriminator'](x).mean().backward()\n"
        "                self.optimizer['discriminator'].step()\n",
        # optimizers and their schedules built by comprehensions: each optimizer cleared,
        # the schedules' steps no optimizer's
        "import torch\n"
        "def fit(models, loader):\n"
        "    optimizers = [torch.optim.AdamW(m.parameters()) for m in models]\n"
        "    schedulers = {i: torch.optim.lr_scheduler.StepLR(o, 10) for i, o in enumerate(optimizers)}\n"
        "    for batch in loader:\n"
        "        for opt in optimizers:\n"
        "            opt.zero_grad()\n"
        "        sum(m(batch).mean() for m in models).backward()\n"
        "        for opt in optimizers:\n"
        "            opt.step()\n"
        "        for sched in schedulers.values():\n"
        "            sched.step()\n",
        # the same, the lists returned by methods of the class
        "import torch\n"
        "class Warmup:\n"
        "    def __init__(self, models):\n"
        "        self.models = models\n"
        "        self.optimizers = self.build_optimizers(models)\n"
        "        self.schedulers = self.build_schedulers()\n"
        "    def build_optimizers(self, models):\n"
        "        return [torch.optim.AdamW(m.parameters()) for m in models]\n"
        "    def build_schedulers(self):\n"
        "        return [torch.optim.lr_scheduler.StepLR(o, 10) for o in self.optimizers]\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            for opt in self.optimizers:\n"
        "                opt.zero_grad()\n"
        "            sum(m(batch).mean() for m in self.models).backward()\n"
        "            for opt in self.optimizers:\n"
        "                opt.step()\n"
        "            for sched in self.schedulers:\n"
        "                sched.step()\n",
        # a dict of optimizers returned by a function of the file, each cleared
        "import torch\n"
        "def build(g, d):\n"
        "    return {'g': torch.optim.Adam(g.parameters()), 'd': torch.optim.Adam(d.parameters())}\n"
        "def fit(g, d, loader):\n"
        "    opts = build(g, d)\n"
        "    for x in loader:\n"
        "        for opt in opts.values():\n"
        "            opt.zero_grad()\n"
        "        (g(x).mean() + d(x).mean()).backward()\n"
        "        for opt in opts.values():\n"
        "            opt.step()\n",
        # the list of optimizers a function returns through a variable, each cleared
        "import torch\n"
        "def build(models):\n"
        "    optimizers = [torch.optim.Adam(m.parameters()) for m in models]\n"
        "    return optimizers\n"
        "def fit(models, loader):\n"
        "    optimizers = build(models)\n"
        "    for x in loader:\n"
        "        for model, opt in zip(models, optimizers):\n"
        "            opt.zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            opt.step()\n",
        # a dict of an optimizer and its scheduler: the item a key picks is what the dict holds there, and a scheduler is not cleared
        "import torch\n"
        "def build(model):\n"
        "    optimizer = torch.optim.Adam(model.parameters())\n"
        "    return {'optimizer': optimizer, 'scheduler': torch.optim.lr_scheduler.StepLR(optimizer, 10)}\n"
        "def fit(model, loader, epochs):\n"
        "    parts = build(model)\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            parts['optimizer'].zero_grad()\n"
        "            model(x).mean().backward()\n"
        "            parts['optimizer'].step()\n"
        "        parts['scheduler'].step()\n",
        # builders that return their own call, or each other's: followed without end before, now read as unknown
        "import torch\n"
        "def build(model, depth):\n"
        "    if depth:\n"
        "        return build(model, depth - 1)\n"
        "    optimizer = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    return {\"optimizer\": optimizer, \"scheduler\": torch.optim.lr_scheduler.StepLR(optimizer, 10)}\n"
        "def ping(n):\n"
        "    return pong(n - 1) if n else {}\n"
        "def pong(n):\n"
        "    return ping(n)\n"
        "def fit(model, loader):\n"
        "    parts, other = build(model, 2), ping(3)\n"
        "    for x in loader:\n"
        "        parts[\"optimizer\"].zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        parts[\"optimizer\"].step()\n",
        # a lambda that clears, and a callback out of sight handed the optimizer: it may clear
        "import torch\n"
        "def train(model, loader):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    clear = lambda: opt.zero_grad(set_to_none=True)\n"
        "    for x in loader:\n"
        "        clear()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "def finetune(model, loader, on_step):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.01)\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "        on_step(opt)\n",
        # a part frozen beside a clear of everything; clears of every parameter that
        # has a gradient, or of the module DDP wraps
        "import torch\n"
        "def train(model, loader, freeze_iters):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for it, x in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        if it < freeze_iters:\n"
        "            for name, p in model.named_parameters():\n"
        "                if 'prototypes' in name:\n"
        "                    p.grad = None\n"
        "        optimizer.step()\n",
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        for name, p in model.named_parameters():\n"
        "            if p.grad is not None:\n"
        "                p.grad = None\n"
        "        model(x).mean().backward()\n"
        "        optimizer.step()\n",
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        model.module.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        optimizer.step()\n",
        # the discriminator's gradients cleared through its model; a scheduler named after the optimizer
        "import torch\n"
        "def train(netG, netD, optimizerG, optimizerD, optimizer_scheduler, loader):\n"
        "    for x in loader:\n"
        "        fake = netG(torch.randn(x.size(0), 100))\n"
        "        netD.zero_grad()\n"
        "        d_loss = netD(x).mean() - netD(fake.detach()).mean()\n"
        "        d_loss.backward()\n"
        "        optimizerD.step()\n"
        "        optimizerG.zero_grad()\n"
        "        g_loss = -netD(fake).mean()\n"
        "        g_loss.backward()\n"
        "        optimizerG.step()\n"
        "        optimizer_scheduler.step()\n",
        # the clear is a method called on its class (`Trainer.clear(self)`)
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    def clear(self):\n"
        "        self.optimizer.zero_grad()\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            Trainer.clear(self)\n"
        "            criterion(self.model(x), y).backward()\n"
        "            self.optimizer.step()\n",
        # each iteration builds a fresh layer, and, in the `if` that also steps, an optimizer
        # on its trainable parameters: the step runs only after that build
        "import torch\n"
        "def check_updates(configs, inputs):\n"
        "    for config in configs:\n"
        "        layer = torch.nn.Linear(**config)\n"
        "        trainable = {n: p for n, p in layer.named_parameters() if p.requires_grad}\n"
        "        if trainable:\n"
        "            opt = torch.optim.SGD(trainable.values(), lr=1.0)\n"
        "            layer(inputs).mean().backward()\n"
        "            opt.step()\n",
        # an optimizer joining the generator's and the discriminator's parameters: the loop
        # clears both, through the optimizer built on each
        "from itertools import chain\n"
        "import torch\n"
        "class InfoTrainer:\n"
        "    def __init__(self, gen, disc):\n"
        "        self.gen = gen\n"
        "        self.disc = disc\n"
        "        self.opt_g = torch.optim.Adam(self.gen.parameters())\n"
        "        self.opt_d = torch.optim.Adam(self.disc.parameters())\n"
        "        self.opt_info = torch.optim.Adam(chain(self.gen.parameters(), self.disc.parameters()))\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.opt_d.zero_grad()\n"
        "            self.disc(x).mean().backward()\n"
        "            self.opt_d.step()\n"
        "            self.opt_g.zero_grad()\n"
        "            self.disc(self.gen(x)).mean().backward()\n"
        "            self.opt_g.step()\n"
        "            self.disc(self.gen(x)).pow(2).mean().backward()\n"
        "            self.opt_info.step()\n",
        # the same, the joined optimizer stepped only on the iterations that clear the
        # discriminator: both models are cleared on every path to its step
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, d_every):\n"
        "    g_opt = torch.optim.Adam(netG.parameters())\n"
        "    d_opt = torch.optim.Adam(netD.parameters())\n"
        "    both_opt = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for step, real in enumerate(batches):\n"
        "        g_opt.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        g_opt.step()\n"
        "        if step % d_every == 0:\n"
        "            d_opt.zero_grad()\n"
        "            netD(real).mean().backward()\n"
        "            d_opt.step()\n"
        "            netD(netG(real)).square().mean().backward()\n"
        "            both_opt.step()\n",
        # an optimizer joining two lists of parameters, or one parameter group per model,
        # each model's optimizer cleared before the step
        "import torch\n"
        "def train(gen, head, loader):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_h = torch.optim.Adam(head.parameters())\n"
        "    opt_info = torch.optim.Adam(list(gen.parameters()) + list(head.parameters()))\n"
        "    for x in loader:\n"
        "        opt_g.zero_grad()\n"
        "        gen(x).mean().backward()\n"
        "        opt_g.step()\n"
        "        opt_h.zero_grad()\n"
        "        head(x).mean().backward()\n"
        "        opt_h.step()\n"
        "        head(gen(x)).mean().backward()\n"
        "        opt_info.step()\n",
        "import torch\n"
        "def train(gen, head, loader):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_h = torch.optim.Adam(head.parameters())\n"
        "    opt_info = torch.optim.Adam([{\"params\": gen.parameters()},\n"
        "                                 {\"params\": head.parameters(), \"lr\": 1e-4}])\n"
        "    for x in loader:\n"
        "        opt_g.zero_grad()\n"
        "        gen(x).mean().backward()\n"
        "        opt_g.step()\n"
        "        opt_h.zero_grad()\n"
        "        head(x).mean().backward()\n"
        "        opt_h.step()\n"
        "        head(gen(x)).mean().backward()\n"
        "        opt_info.step()\n",
        # both branches of the `if` clear both models' optimizers before the joined step
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, scaler, use_amp):\n"
        "    g_opt = torch.optim.Adam(netG.parameters())\n"
        "    d_opt = torch.optim.Adam(netD.parameters())\n"
        "    both_opt = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        if use_amp:\n"
        "            g_opt.zero_grad()\n"
        "            d_opt.zero_grad()\n"
        "            scaler.scale(netD(netG(real)).mean()).backward()\n"
        "            scaler.step(d_opt)\n"
        "            scaler.step(g_opt)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            g_opt.zero_grad()\n"
        "            d_opt.zero_grad()\n"
        "            netD(netG(real)).mean().backward()\n"
        "            d_opt.step()\n"
        "            g_opt.step()\n"
        "        netD(netG(real)).square().mean().backward()\n"
        "        both_opt.step()\n",
        # each branch of the `if` clears both models
        "import torch\n"
        "from torch import nn\n"
        "def fit(netG, netD, batches, use_real):\n"
        "    both_opt = torch.optim.Adam(nn.ModuleList([netG, netD]).parameters())\n"
        "    for real in batches:\n"
        "        if use_real:\n"
        "            netG.zero_grad()\n"
        "            netD.zero_grad()\n"
        "            loss = netD(real).mean()\n"
        "        else:\n"
        "            netD.zero_grad()\n"
        "            netG.zero_grad()\n"
        "            loss = netD(netG(real)).mean()\n"
        "        loss.backward()\n"
        "        both_opt.step()\n",
        # the same helper called on every iteration
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, d_every):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "\n"
        "    def clear_d():\n"
        "        netD.zero_grad()\n"
        "\n"
        "    for i, real in enumerate(batches):\n"
        "        netG.zero_grad()\n"
        "        clear_d()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()\n",
        # the joined parameters first put in a variable, each model's optimizer cleared
        "import torch\n"
        "def train(gen, head, loader):\n"
        "    opt_g = torch.optim.Adam(gen.parameters())\n"
        "    opt_h = torch.optim.Adam(head.parameters())\n"
        "    params = list(gen.parameters()) + list(head.parameters())\n"
        "    opt_info = torch.optim.Adam(params, lr=1e-4)\n"
        "    for x in loader:\n"
        "        opt_g.zero_grad()\n"
        "        gen(x).mean().backward()\n"
        "        opt_g.step()\n"
        "        opt_h.zero_grad()\n"
        "        head(x).mean().backward()\n"
        "        opt_h.step()\n"
        "        head(gen(x)).mean().backward()\n"
        "        opt_info.step()\n",
        # the models kept on the trainer by unpacking, each cleared before its own step
        "import torch\n"
        "class GANTrainer:\n"
        "    def __init__(self, G, D):\n"
        "        self.G, self.D = G, D\n"
        "        self.opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)\n"
        "        self.opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)\n"
        "    def fit(self, loader):\n"
        "        for real, z in loader:\n"
        "            self.D.zero_grad()\n"
        "            (self.D(self.G(z).detach()) - self.D(real)).mean().backward()\n"
        "            self.opt_d.step()\n"
        "            self.G.zero_grad()\n"
        "            (-self.D(self.G(z))).mean().backward()\n"
        "            self.opt_g.step()\n",
        # each joined model cleared through its DDP wrapper
        "import itertools\n"
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "def fit(netG, netD, batches, rank):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    g = DDP(netG, device_ids=[rank])\n"
        "    d = DDP(netD, device_ids=[rank])\n"
        "    for real in batches:\n"
        "        g.zero_grad()\n"
        "        d.zero_grad()\n"
        "        d(g(real)).mean().backward()\n"
        "        both.step()\n",
        # each model cleared after the step: before the next iteration's step
        "import torch\n"
        "def train(encoder, decoder, pairs):\n"
        "    optimizer = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.01)\n"
        "    for src, tgt in pairs:\n"
        "        decoder(encoder(src), tgt).backward()\n"
        "        optimizer.step()\n"
        "        encoder.zero_grad()\n"
        "        decoder.zero_grad()\n",
        # accumulation: each model cleared after every k-th step
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, k):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for i, real in enumerate(batches):\n"
        "        netD(netG(real)).mean().backward()\n"
        "        if (i + 1) % k == 0:\n"
        "            both.step()\n"
        "            netG.zero_grad()\n"
        "            netD.zero_grad()\n",
        # each model cleared in a `finally:` after the step
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        try:\n"
        "            netD(netG(real)).mean().backward()\n"
        "            both.step()\n"
        "        finally:\n"
        "            netG.zero_grad()\n"
        "            netD.zero_grad()\n",
        # clears guarded against raising: a zero_grad() does not raise
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        try:\n"
        "            netG.zero_grad()\n"
        "            netD.zero_grad()\n"
        "        except RuntimeError:\n"
        "            pass\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()\n",
        # every case clears both models, the last takes any mode
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, mode):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        match mode:\n"
        "            case 'wgan':\n"
        "                netG.zero_grad()\n"
        "                netD.zero_grad()\n"
        "            case _:\n"
        "                netD.zero_grad()\n"
        "                netG.zero_grad()\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()\n",
        # clears first in a try:, the statement that may raise after them
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        try:\n"
        "            netG.zero_grad(); netD.zero_grad()\n"
        "            real = real.cuda(non_blocking=True)\n"
        "        except RuntimeError:\n"
        "            pass\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step()\n",
        # one step or the other: a run takes one arm, the clears follow either
        "import itertools\n"
        "import torch\n"
        "def fit(netG, netD, batches, log):\n"
        "    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))\n"
        "    for real in batches:\n"
        "        netD(netG(real)).mean().backward()\n"
        "        both.step() if log else both.step()\n"
        "        netG.zero_grad()\n"
        "        netD.zero_grad()\n",
        # the stepped optimizer cleared under the name a `case` captures it by
        "import torch\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x, y in loader:\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        match optimizer:\n"
        "            case opt:\n"
        "                opt.zero_grad()\n",
        # the clear of what no statement of the file defines (a scheduler, an agent), stepped
        # there too, beside a stepped optimizer never cleared here: neither is known to be one
        "def train(loader, scaler):\n"
        "    for batch in loader:\n"
        "        loss = model(batch)\n"
        "        loss.backward()\n"
        "        sched.zero_grad()\n"
        "        optimizer.step()\n"
        "        sched.step()\n"
        "        agent.zero_grad()\n"
        "        agent.step()\n",
    )

    def _helper_clears(self, node: cst.CSTNode) -> bool:
        """A function of another module of the project that clears gradients
        (`end_step(scaler, optimizer)` of helpers.py calling `optimizer.zero_grad()`)."""
        summary = self._followed_summary(node)
        return summary is not None and (summary.does(ZERO_GRAD) or summary.does(MAY_ZERO_GRAD))

    def _handed_out_of_sight(self, node: cst.CSTNode) -> list[cst.BaseExpression]:
        """The optimizers a call hands to a function the file cannot name nor see
        into (`on_step(optimizer)` of a parameter, an unknown callback): it may
        clear their gradients. Not a function, lambda or class of the file (their
        code says), a builtin, a name imported from a module (apex's `scale_loss(loss,
        optimizer)` clears nothing), nor a method (`scaler.step(optimizer)`)."""
        if type(node) is not cst.Call or type(node.func) is not cst.Name:
            return []
        ctx, func = self.ctx, node.func
        if ctx.qualified_name(func) is not None or ctx.functions_called(node) or called_lambda(ctx, node) is not None:
            return []
        if func.value in ctx.summaries.targets.classes or self._followed_summary(node) is not None:
            return []  # what the project's code does, its summary says
        if func.value in BUILTIN_NAMES and binding_scope(func.value, ctx.scope_of(func)) is None:
            return []
        return [arg.value for arg in node.args if not arg.star and is_optimizer(ctx, arg.value)]

    def _external_step(self, node: cst.CSTNode) -> Summary | None:
        """The summary of a function of another module of the project that `node`
        calls, when it steps an optimizer (`train_step(model, optimizer, batch)`
        of utils.py, a `training_step` inherited from a base class of another
        module); the file's own functions are walked into instead."""
        summary = self._followed_summary(node)
        return summary if summary is not None and summary.does(STEP) else None

    def _followed_summary(self, node: cst.CSTNode) -> Summary | None:
        """What a call does that the walk of the loop does not enter: a function of
        another module, or a method of an object of a class of this file
        (`trainer.training_step(batch)`)."""
        return self.ctx.summaries.of_unwalked_call(node)

    def _stepped_through(self, call: cst.Call, summary: Summary) -> list[cst.BaseExpression | str]:
        """The optimizers of this file that `call` hands to a function that steps
        them: an argument, or (`self.training_step(batch)`) the instance's own."""
        found: list[cst.BaseExpression | str] = []
        for slot, arg in argument_slots(call):
            param = summary.slot(slot)
            if param in summary.steps and (param in summary.known_steps or is_optimizer(self.ctx, arg.value)):
                found.append(arg.value)
        receiver = call.func.value if type(call.func) is cst.Attribute else None
        own = sorted(a for a in summary.steps if a.startswith("self."))
        if receiver is not None and receiver_method(self.ctx, receiver) is not None:
            for attribute in own:
                node = own_attribute(self.ctx, call, attribute)
                if attribute in summary.known_steps or (node is not None and is_optimizer(self.ctx, node)):
                    found.append(node if node is not None else attribute)
        elif type(receiver) in (cst.Name, cst.Attribute):
            # `trainer.training_step(batch)`: its class built `self.optimizer` as one
            found.extend(self.ctx.code(receiver) + a[len("self"):] for a in own if a in summary.known_steps)
        return found

    def _parameters_owner(self, optimizer: cst.BaseExpression, depth: int = 0) -> str | None:
        """The model an optimizer of the file was built on (`netG` of
        `Adam(netG.parameters())`); None when that is not one model's parameters.
        For an optimizer a function is given, the parameter its callers give that
        model as (`train(g_model, d_model, g_opt, d_opt)` called with `g_opt` built on
        `g_model`: the function's own `g_model`)."""
        params = optimizer_params(self.ctx.receivers, optimizer)
        if params is None and depth == 0 and type(optimizer) is cst.Name:
            return self._owner_from_callers(optimizer)
        owner = method_call(params, "parameters") if params is not None else None
        return self.ctx.code(owner) if type(owner) in (cst.Name, cst.Attribute) else None

    def _joined_owners(self, optimizer: cst.BaseExpression) -> list[str]:
        """The models an optimizer of the file was built on when it joins their
        parameters (`g` and `d` of `Adam(itertools.chain(g.parameters(), d.parameters()))`,
        `list(g.parameters()) + list(d.parameters())`, `[*g.parameters(), *d.parameters()]`,
        one parameter group each, `nn.ModuleList([g, d]).parameters()`); empty when it is
        built on anything else, or on one model's."""
        params = optimizer_params(self.ctx.receivers, optimizer)
        models = _joined_models(self.ctx, params) if params is not None else None
        if models is None or len({self.ctx.code(model) for model in models}) < 2:
            return []
        return [self.ctx.code(model) for model in models]

    def _owner_from_callers(self, optimizer: cst.Name) -> str | None:
        function = self.ctx.enclosing_function(optimizer)
        if function is None or any(type(a) is cst.ClassDef for a in self.ctx.ancestors(function)):
            return None  # a method: its first parameter is bound by the call
        if optimizer.value not in {param.name.value for param in _parameters(function.params)}:
            return None
        found: set[str] = set()
        for site in self.ctx.call_sites(function):
            pairs, complete = bound_arguments(self.ctx, site, function)
            given = dict(pairs) if complete else {}
            passed = given.get(optimizer.value)
            owner = self._parameters_owner(passed, depth=1) if passed is not None else None
            model = next((name for name, value in given.items() if owner and self.ctx.code(value) == owner), None)
            if model is None:
                return None
            found.add(model)
        return found.pop() if len(found) == 1 else None

    def _item_as_called(self, optimizer: cst.BaseExpression, loop: cst.CSTNode) -> tuple[str, str | None]:
        """The optimizer a step goes through, as the loop names it; for an item of a
        container that a variable key picks (`self.optimizer[name]`), also that container:
        which item it is, the loop does not show. A key that is a helper's parameter is the
        one its calls give, a literal names the item (`self._scaler_step("generator")`
        stepping `self.optimizer[name]` steps `self.optimizer["generator"]`)."""
        code = self.ctx.code(optimizer)
        index = optimizer.slice[0].slice if type(optimizer) is cst.Subscript and len(optimizer.slice) == 1 else None
        if type(index) is not cst.Index or type(index.value) is not cst.Name:
            return code, None
        container = self.ctx.code(optimizer.value)  # type: ignore[attr-defined]
        key = self._read_as_called(index.value.value, index.value, loop)
        if key is not None and type(key[1]) in (cst.SimpleString, cst.Integer):
            return f"{container}[{key[0]}]", None
        return code, container

    def _as_called(self, model: cst.BaseExpression, loop: cst.CSTNode) -> str | None:
        """`model` as the loop names it: through a helper of the file the loop calls,
        a parameter of the helper is the argument its calls give it (`m.zero_grad()` of
        `def micro_step(m, x)` called as `micro_step(model, x)`: `model`); None when
        they give different ones, or none."""
        return self._named_as_called(self.ctx.code(model), model, loop)

    def _named_as_called(self, code: str, at: cst.CSTNode, loop: cst.CSTNode) -> str | None:
        """`code`, a name read at `at`, as the loop names it (see `_as_called`)."""
        found = self._read_as_called(code, at, loop)
        return found[0] if found is not None else None

    def _read_as_called(self, code: str, at: cst.CSTNode, loop: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
        """`code`, a name read at `at`, as the loop names it, and where it is read so:
        the argument a helper's calls give its parameter (see `_as_called`)."""
        seen: set[cst.FunctionDef] = set()
        while loop not in self.ctx.ancestors(at):
            function, root = self.ctx.enclosing_function(at), re.match(r"\w*", code).group()  # type: ignore[union-attr]
            if function is None or root == receiver_name(self.ctx, function, classes=True) or root not in {
                    param.name.value for param in _parameters(function.params)}:
                return code, at  # a global, or `self.model` of a method: the same name everywhere
            if function in seen:
                return None
            seen.add(function)
            given = given_argument(self.ctx, function, root)
            if given is None:
                return None
            at = given
            code = self.ctx.code(at) + code[len(root):]
        return code, at

    def _engine_steps(self) -> list[cst.FunctionDef]:
        """Functions of this file that a training engine runs once per iteration:
        the process function of ignite's `Engine(update_fn)`. Each run of one is
        an iteration of the engine's loop."""
        found = []
        for call in self.ctx.nodes_of(cst.Call):
            if self.ctx.call_name(call) not in _ENGINES or not call.args:  # type: ignore[arg-type]
                continue
            arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "process_function"),  # type: ignore[attr-defined]
                       call.args[0] if call.args[0].keyword is None else None)  # type: ignore[attr-defined]
            function = self.ctx.local_function(arg.value) if arg is not None and type(arg.value) is cst.Name else None
            if function is not None and function not in found:
                found.append(function)
        return found

    def _on_error(self, node: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """`node` runs only when the iteration failed: in an `except` handler
        inside the loop (out-of-memory recovery), not on the path that steps."""
        for ancestor in self.ctx.ancestors(node):
            if ancestor is loop:
                return False
            if type(ancestor) in (cst.ExceptHandler, cst.ExceptStarHandler):
                return True
        return False

    def finish(self) -> None:
        for loop in [*self.ctx.loops(), *self._engine_steps()]:
            steps: list[tuple[cst.CSTNode, str, str | None]] = []  # (where, optimizer, message if through a helper)
            # (where, what: an optimizer's or a model's name; None for a clear that may clear them all,
            # whether a model's, whether a wrapper's: `zero_grad()` of a class of the project)
            clears: list[tuple[cst.CSTNode, str | None, bool, bool]] = []
            owners: dict[str, str | None] = {}  # optimizer -> the model whose parameters it was built on
            picked: dict[str, str] = {}  # an item a variable key picks (`self.optimizer[name]`) -> its container
            joined: dict[str, list[str]] = {}  # optimizer -> the models whose parameters it joins
            backward = False
            for node in reachable_nodes(self.ctx, loop.body):
                handed = self._handed_out_of_sight(node)
                if handed and not self._on_error(node, loop):
                    # what it is handed, it may clear: `on_step(optimizer)` of a callback
                    clears.extend((node, self._item_as_called(optimizer, loop)[0], False, False) for optimizer in handed)
                    continue
                if ((clears_grads(self.ctx, node) or may_clear_grads(self.ctx, node) or self._helper_clears(node))
                        and not self._on_error(node, loop)
                        and not clears_parameters_by_name(self.ctx, node)):  # a part frozen: the rest accumulates
                    receiver = method_call(node, "zero_grad")
                    # a wrapper's `zero_grad()`, of a class of the project: it clears only if its code does
                    own = self.ctx.summaries.of_call(node) if receiver is not None else None  # type: ignore[arg-type]
                    if own is not None and not (own.does(ZERO_GRAD) or own.does(MAY_ZERO_GRAD)):
                        pass  # `def zero_grad(self): self.count = 0`: no clear
                    elif receiver is not None and is_optimizer(self.ctx, receiver):
                        clears.append((node, self._item_as_called(receiver, loop)[0], False, own is not None))
                        continue
                    elif receiver is not None and type(receiver) in (cst.Name, cst.Attribute):
                        # `netD.zero_grad()`; None: a helper's parameter, given different models
                        clears.append((node, self._as_called(receiver, loop), True, own is not None))
                        continue
                    else:
                        clears.append((node, None, False, False))  # a parameter's or a helper's: it may clear them all
                        continue
                backward = backward or is_backward(node)
                optimizer = optimizer_step(self.ctx, node)
                if optimizer is None and (unknown := self._unknown_step(node)) is not None:
                    # `opt_d.step()` of an optimizer the file cannot tell is one: only beside
                    # the clears of others (`opt_g.zero_grad()`), see `_judge`
                    steps.append((node, self._item_as_called(unknown, loop)[0], _UNKNOWN))
                    owners[steps[-1][1]] = None
                    continue
                if optimizer is not None:
                    named, container = self._item_as_called(optimizer, loop)
                    steps.append((node, named, None))
                    if container is not None:
                        picked[named] = container
                    # the model it was built on, named as the loop names the models it clears
                    owner = self._parameters_owner(optimizer)
                    owners[named] = (self._named_as_called(owner, optimizer, loop)
                                     if owner is not None else None)
                    parts = [self._named_as_called(part, optimizer, loop) for part in self._joined_owners(optimizer)]
                    if parts and None not in parts:
                        joined[named] = parts  # type: ignore[assignment]
                helper = self._external_step(node)
                if helper is None and not backward:
                    followed = self._followed_summary(node)  # `backward(loss)` of steps.py
                    backward = followed is not None and followed.does(BACKWARD)
                if helper is not None:
                    backward = backward or helper.does(BACKWARD)
                    message = (_IN_HELPER_LOOP if helper.does(LOOP)
                               else _THROUGH_HELPER if helper.does(BACKWARD) else _STEPS_THROUGH_HELPER)
                    for optimizer in self._stepped_through(node, helper):  # type: ignore[arg-type]
                        code = optimizer if isinstance(optimizer, str) else self.ctx.code(optimizer)
                        steps.append((node, code, message.format(self.ctx.code(node.func), code, code)))  # type: ignore[attr-defined]
                        owners[code] = None if isinstance(optimizer, str) else self._parameters_owner(optimizer)
            if backward:
                self._judge(loop, steps, clears, owners, picked, joined)
        self._judge_helper_loops()

    def _unknown_step(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The receiver of `x.step()` that may be an optimizer's the file cannot tell is
        one: given no argument, of a variable or attribute of no known kind, named for
        an optimizer (`opt_d`, `optimizerD`, `self.optimizer_G`)."""
        stepped = method_call(node, "step")
        if stepped is None or type(stepped) not in (cst.Name, cst.Attribute):
            return None
        return unknown_step(self.ctx, node)

    def _judge_helper_loops(self) -> None:
        """A call handing an optimizer of this file to a function of another module
        that steps it in a loop of its own, a loop that back-propagates and never
        clears gradients (`finetune(model, loader, opt)` holding the whole loop,
        called once): its module cannot tell that it steps an optimizer, this one can."""
        for call in self.ctx.nodes_of(cst.Call):
            summary = self.ctx.summaries.of_external_call(call)  # type: ignore[arg-type]
            if summary is None or not summary.uncleared_loop_steps:
                continue
            for slot, arg in argument_slots(call):  # type: ignore[arg-type]
                if summary.slot(slot) in summary.uncleared_loop_steps and is_optimizer(self.ctx, arg.value):
                    code = self.ctx.code(arg.value)
                    self.report(call, _IN_HELPER_LOOP.format(self.ctx.code(call.func), code, code))  # type: ignore[attr-defined]

    def _judge(self, loop: cst.CSTNode, steps: list[tuple[cst.CSTNode, str, str | None]],
               clears: list[tuple[cst.CSTNode, str | None, bool, bool]], owners: dict[str, str | None],
               picked: dict[str, str], joined: dict[str, list[str]]) -> None:
        stepped = {optimizer for _, optimizer, _ in steps}
        between: dict[str, dict[int, _BetweenSteps]] = {}  # see `_cleared_between_steps`, by joined optimizer
        for step, optimizer, helper in steps:
            if self._built_each_iteration(loop, step, optimizer, owners.get(optimizer)):
                continue
            unknown = helper is _UNKNOWN
            helper = None if unknown else helper
            reaching = [(name, model, wrapper) for node, name, model, wrapper in clears
                        if not self._other_branch(node, step, loop, [s for s, _, _ in steps])]
            if any(name is None for name, _, _ in reaching):
                continue
            cleared = {name for name, model, _ in reaching if not model}  # optimizers whose own zero_grad() runs
            # a wrapper's zero_grad() that clears clears what it wraps, when its `step()` steps
            # one optimizer (`opt.zero_grad()` of a NoamOpt whose `step()` steps `opt.optimizer`)
            for name, _, wrapper in reaching:
                inner = [other for other in stepped if other.startswith(f"{name}.")]
                if wrapper and len(inner) == 1:
                    cleared.add(inner[0])
            models = {name for name, model, _ in reaching if model}  # models whose zero_grad() runs
            named = sorted(cleared | models)  # what the loop clears, as written
            cleared |= {name for name, owner in owners.items()
                        if models and self._cleared_by_models(owner, joined.get(name, []), models)}
            # an optimizer joining several models' parameters is cleared when each model is, on
            # every path to the step, by its own zero_grad() or that of an optimizer built on it:
            # a model cleared only every few iterations (`if i % 5 == 0: opt_d.zero_grad()`)
            # keeps its gradients in the others, which the joined optimizer steps
            uncleared: list[str] = []
            if optimizer in joined:
                if optimizer not in between:
                    between[optimizer] = self._cleared_between_steps(
                        loop, [other for other, name, _ in steps if name == optimizer], clears, owners)
                covered = between[optimizer][id(step)].covered
                uncleared = [part for part in joined[optimizer]
                             if not any(self._clears_model(part, model) for model in covered)]
                if not uncleared:
                    cleared.add(optimizer)
                # those the loop clears, only not on every path (the others it never clears)
                anywhere = {name if model else owners.get(name) for name, model, _ in reaching}
                uncleared = [part for part in uncleared
                             if any(model is not None and self._clears_model(part, model) for model in anywhere)]
            # an optimizer cleared under another name than any stepped one may be any of them
            if optimizer in cleared or not cleared <= stepped:  # type: ignore[operator]
                continue
            # an item a variable key picks may be any item of its container cleared
            container = picked.get(optimizer)
            if container is not None and any(name.startswith(f"{container}[") for name in cleared):  # type: ignore[union-attr]
                continue
            if unknown and not (named and set(named) <= stepped):
                continue  # a step that may be no optimizer's: only beside the clears of the loop's others
            if helper is not None and not named:
                self.report(step, helper)
            elif uncleared:
                verb = "is" if len(uncleared) == 1 else "are"
                when = "" if between[optimizer][id(step)].same_iteration else " across iterations"
                self.report(step, f"`{optimizer}` steps the parameters of {_listed(joined[optimizer])}; "
                                  f"{_listed(uncleared)} {verb} not cleared on every path between two of its "
                                  f"steps: those gradients accumulate{when}; call `{optimizer}.zero_grad()`")
            elif named:
                self.report(step, f"this loop clears the gradients of `{'`, `'.join(named)}` "  # type: ignore[arg-type]
                                  f"only: those `{optimizer}` steps accumulate across iterations; call "
                                  f"`{optimizer}.zero_grad()`")
            elif type(loop) is cst.FunctionDef:
                self.report(step, f"`{loop.name.value}()`, which ignite's `Engine` runs on every iteration, "
                                  "back-propagates and steps but never clears gradients: they "
                                  f"accumulate across iterations; call `{optimizer}.zero_grad()`")
            elif not any(type(ancestor) in (cst.For, cst.While) for ancestor in self.ctx.ancestors(step)):
                # the step of a method the loop's iterations call (`self.run_step(batch)`), in
                # no loop of its own (whose iterations the plain message speaks of)
                where = self.ctx.enclosing_function(loop)
                self.report(step, f"this step runs on each iteration of the loop in "
                                  f"`{where.name.value if where is not None else '<module>'}()`, which "
                                  "back-propagates and never clears gradients: they accumulate across "
                                  f"iterations; call `{optimizer}.zero_grad()`")
            else:
                self.report(step, _IN_LOOP.format(optimizer))

    def _built_each_iteration(self, loop: cst.CSTNode, step: cst.CSTNode, optimizer: str, model: str | None) -> bool:
        """Each iteration builds the model and its optimizer anew (a sweep over learning
        rates, one test per configuration): its parameters have no gradient to keep."""
        if type(loop) not in (cst.For, cst.While):
            return False
        assigns = [statement for line in self._run_before_step(loop, step)  # type: ignore[arg-type]
                   if type(line) is cst.SimpleStatementLine
                   for statement in line.body if type(statement) is cst.Assign]
        built = {name for statement in assigns for target in statement.targets
                 for name in (target_names(target.target) | {self.ctx.code(target.target)})}
        if optimizer not in built:
            return False
        if model is not None:
            return model in built
        # built on what the iteration builds: `OptimWrapper(SGD(model.parameters()))`,
        # `SGD(params.values())` of `params = dict(model.named_parameters())`, `SGD([model.weight])`
        # what the loop takes each iteration (`for width in (2, 4, 8)`) is that iteration's
        values: dict[str, list[cst.BaseExpression]] = (
            {name: [] for name in target_names(loop.target)} if type(loop) is cst.For else {})  # type: ignore[attr-defined]
        for statement in assigns:
            read = _variables_read(self.ctx, statement.value)
            for target in statement.targets:
                for name in target_names(target.target):
                    if name in read:
                        continue  # `model, optim = strategy.prepare(model, optim)`: what was built, wrapped
                    values.setdefault(name, []).append(statement.value)
        return all(self._built_anew(_parameters_argument(self.ctx, value), values, set())
                   for value in values.get(optimizer, [None]))  # type: ignore[list-item]

    def _run_before_step(self, loop: cst.For | cst.While, step: cst.CSTNode) -> list[cst.BaseStatement]:
        """The statements of the loop's body, and those written before the step in the
        blocks of the body that hold it (`if trainable: opt = SGD(params.values())`, then
        `opt.step()` in that `if`): whenever the step runs, they ran before it in that
        iteration."""
        lines = list(loop.body.body)  # type: ignore[attr-defined]
        child = step
        for ancestor in self.ctx.ancestors(step):
            if ancestor is loop.body or type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                break
            if type(ancestor) is cst.IndentedBlock:
                lines += ancestor.body[:ancestor.body.index(child)]  # type: ignore[arg-type]
            child = ancestor
        return lines

    def _built_anew(self, expr: cst.BaseExpression | None, values: dict[str, list[cst.BaseExpression]],
                    seen: set[str]) -> bool:
        """`expr` reads variables, and only ones the iteration assigns, each (in turn)
        built by a call (`model = nn.Linear(width, 1)`) or from such variables only."""
        names = _variables_read(self.ctx, expr) if expr is not None else set()
        for name in names - seen:
            seen.add(name)
            if name not in values or not all(self._value_anew(value, values, seen) for value in values[name]):
                return False
        return bool(names)

    def _value_anew(self, value: cst.BaseExpression, values: dict[str, list[cst.BaseExpression]],
                    seen: set[str]) -> bool:
        """A value assigned in the iteration is new: a constructor call given no variable
        of the loop's outside (`nn.Sequential(backbone, head)` of a `backbone` built once
        keeps its gradients), or made from new variables only."""
        if type(value) is cst.Call and _constructs(self.ctx, value):
            return not _variables_read(self.ctx, value) or self._built_anew(value, values, seen)
        return self._built_anew(value, values, seen)

    def _one_module(self, first: str, second: str) -> bool:
        """Two names of one module: one is assigned the other (`gpu_model = model.cuda()`,
        `.to(device)`) or a wrapper of it, whose `zero_grad()` clears the same parameters
        (`ddp_model = DDP(model)`, `torch.compile(model)`)."""
        sources = self.ctx.shared(_module_sources)
        return second in sources.get(first, ()) or first in sources.get(second, ())

    def _cleared_by_models(self, owner: str | None, parts: list[str], models: set[str]) -> bool:
        """The `zero_grad()` of `models` clears an optimizer built on `owner`'s parameters.
        One whose model is unknown may be cleared (a model may hold every parameter), but
        not one joining several models' (`parts`) when those cleared are all among them:
        it is cleared when each of its models is (see `_cleared_on_every_path`)."""
        if owner is None:
            return not self._among(models, parts)
        return any(self._clears_model(owner, model) for model in models)

    def _clears_model(self, owner: str, model: str) -> bool:
        """`model.zero_grad()` clears `owner`'s parameters (see `_same_or_inside`), also
        through another name of the same module (`ddp_model = DDP(model)`)."""
        return _same_or_inside(owner, model) or self._one_module(owner, model)

    def _among(self, models: set[str], parts: list[str]) -> bool:
        """Every model of `models` is one of `parts`, inside one, or another name of one
        (`g = DDP(netG)`): none of them may hold the others' parameters."""
        return bool(parts) and all(any(model == part or model.startswith(part + ".") or self._one_module(part, model)
                                       for part in parts) for model in models)

    def _cleared_between_steps(self, loop: cst.CSTNode, steps: list[cst.CSTNode],
                               clears: list[tuple[cst.CSTNode, str | None, bool, bool]],
                               owners: dict[str, str | None]) -> dict[int, _BetweenSteps]:
        """For each of `steps` (those of one optimizer), the models cleared on every path
        from the previous step of that optimizer to it, iteration after iteration of `loop`,
        by their own `zero_grad()` or that of an optimizer built on them: a clear in each
        branch of an `if` counts, one in a branch only does not, one at the end of the
        iteration counts for the next one's step. Before the first step gradients are
        empty: every model counts as cleared. A clear the flow does not walk to (through a
        lambda, or first in a `try:` that may skip it only by its own raising), or any when the flow does
        not reach the step (a method of an object the loop calls), counts when no `if` of
        the loop separates it from the step."""
        every_clear = {id(node) for node, *_ in clears}
        clearing = {id(node): name if is_model else owners.get(name)  # type: ignore[arg-type]
                    for node, name, is_model, _ in clears
                    if name is not None and not _guarded_by_try(self.ctx, node, loop, every_clear)}
        reached: dict[int, list[Facts]] = {id(step): [] for step in steps}  # facts at each step
        walked: set[int] = set()

        def transfer(facts: Facts, node: cst.CSTNode) -> Facts:
            if id(node) in reached:
                reached[id(node)].append(facts)
                return frozenset({_STEPPED})  # what the step stepped is spent: clears count again from here
            model = clearing.get(id(node))
            if model is None:
                return facts
            walked.add(id(node))
            return facts | {model}

        everything = frozenset(model for model in clearing.values() if model is not None)
        next_iteration = CallFlow(self.ctx, transfer, loop_back=lambda facts: facts - {_STEPPED})
        next_iteration.run_repeated(loop, loop.body, everything)  # type: ignore[attr-defined]
        return {id(step): _BetweenSteps(self._covered(loop, step, reached[id(step)], walked, clears, owners),
                                        any(_STEPPED in facts for facts in reached[id(step)])) for step in steps}

    def _covered(self, loop: cst.CSTNode, step: cst.CSTNode, reached: list[Facts], walked: set[int],
                 clears: list[tuple[cst.CSTNode, str | None, bool, bool]], owners: dict[str, str | None]) -> set[str]:
        """What every path the flow took to `step` cleared, and the clears it could not
        place (see `_cleared_between_steps`)."""
        covered = set(frozenset.intersection(*reached)) - {_STEPPED} if reached else set()
        step_sides = _branch_sides(self.ctx, step, loop)
        for node, name, is_model, _ in clears:
            model = name if is_model else owners.get(name)  # type: ignore[arg-type]
            if model is not None and not (reached and id(node) in walked) and all(
                    step_sides.get(branch) == side for branch, side in _branch_sides(self.ctx, node, loop).items()):
                covered.add(model)
        return covered

    def _other_branch(self, clear: cst.CSTNode, step: cst.CSTNode, loop: cst.CSTNode,
                      steps: list[cst.CSTNode]) -> bool:
        """The clear and the step sit in the two branches of one `if` of the loop, and the
        clear's branch steps too (`if use_amp: ...; scaler.step(opt); opt.zero_grad()
        else: loss.backward(); opt.step()`): each branch is an iteration of its own, and
        the one without a clear never clears. A branch that only clears and back-propagates
        (accumulation that the other branch ends with a step) still clears for it."""
        clear_sides, step_sides = _branch_sides(self.ctx, clear, loop), _branch_sides(self.ctx, step, loop)
        for branch, side in clear_sides.items():
            if step_sides.get(branch, side) != side and any(
                    _branch_sides(self.ctx, other, loop).get(branch) == side for other in steps):
                return True
        return False
