from __future__ import annotations

from typing import Iterator, Sequence

import libcst as cst

from trainlint.analysis.accumulators import (
    consumed_names,
    detaches,
    escapes,
    kept_past_iteration,
    may_hold_number,
    needs_tensor,
    own_variable,
    returned_names,
    stored_elements,
    written_elements,
)
from trainlint.analysis.dataflow import (
    Values,
    backpropagated_names,
    backward_targets,
    is_loss_call,
    is_loss_function,
    keyword,
    loss_components,
    names_in,
)
from trainlint.analysis.flow import Facts, Flow
from trainlint.analysis.handlers import falls_through
from trainlint.analysis.literals import string_value
from trainlint.analysis.loops import (
    calling_loops, grad_mode_at, innermost_loop, is_backward, optimizer_step, reachable_nodes,
)
from trainlint.analysis.scopes import (
    alternatives, argument_slots, assigned_parts, assignment_targets, binding_scope, dotted_name,
    instance_parameter,
)
from trainlint.context import FileContext
from trainlint.analysis.training import (
    code_bodies,
    evaluating_statement,
    loop_guards,
    method_call,
    skipped_before,
    statement_of,
    statements_before,
)
from trainlint.analysis.hook_runs import hook_runs
from trainlint.analysis.summarize import kept_parameters
from trainlint.analysis.walk import iter_nodes
from trainlint.rule import Example, Fix, Rule
from trainlint.summaries import BACKWARD, GRAPH, STEP, Summary

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
# tensor methods that return a tensor of the same graph (`loss.float()` on a float32
# loss is the loss itself): what they return carries it
_GRAPH_KEEPING_METHODS = frozenset({"float", "double", "half", "bfloat16", "cpu", "cuda", "to", "type", "type_as",
                                    "mean", "sum", "clone", "squeeze", "unsqueeze", "view", "reshape", "flatten",
                                    "contiguous"})
_THROUGH_HELPER = (
    "`{}()` keeps the loss tensor it is given across iterations, with its autograd graph: pass `loss.item()`"
)
_ACROSS_CALLS = (
    "a loss tensor is accumulated with its autograd graph across the iterations of the loop in `{}()` that "
    "calls `{}()`: use `loss.item()` (or `loss.detach()`)"
)


_IN_HOOK = (
    "a loss tensor is accumulated with its autograd graph across the iterations of {}, handing it the loss it "
    "back-propagates: use `loss.item()` (or `loss.detach()`)"
)
_KEPT_STATS = (
    "`{}()` returns the loss it back-propagated in {}, with its autograd graph: keeping what it returns "
    "across iterations keeps every graph, and so does anything built from what is kept (a field-wise `sum` "
    "or `torch.stack` of the statistics); put `loss.detach()` (or `loss.item()`) in what it returns"
)


_NO_GRAD = "~"  # prefix of a name bound without a graph, in the flow's facts
# infix of `stats[*].loss`: what the elements of a list hold (`stats.append(train_step(b))`
# of a step returning a named tuple that holds its loss), read by a loop over the list
_ELEMENT = "[*]"
# prefix of `name@k`: a name the k-th backward call of `_spent` ran through, not set anew
# since, in the flow's facts; and the same, since then carried into another iteration
_SPENT = "!"
_SPENT_BEFORE = "^"
_RESPENT = (
    "`{}` is back-propagated, then added to in a later iteration without being set anew: the sum keeps every "
    "earlier iteration's autograd graph and back-propagates through it again; set it anew (`{} = 0`) at the "
    "start of each iteration"
)


def _root_name(expr: cst.BaseExpression) -> str | None:
    """`outputs` of `outputs.loss`, `outputs["loss"]`, `outputs[0].mean()`."""
    while True:
        if type(expr) is cst.Name:
            return expr.value
        if type(expr) in (cst.Attribute, cst.Subscript):
            expr = expr.value  # type: ignore[attr-defined]
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            expr = expr.func.value
        else:
            return None


class LossAccumulatedWithGraph(Rule):
    """
    ## What it does
    Flags a loss tensor that is added to a running total (`total += loss`,
    `total = total + loss`, `total += loss * n`, a running average
    `avg = 0.98 * avg + 0.02 * loss`, a tensor total added to in place:
    `total.add_(loss)`, judged as `total += loss` is) or appended to a list
    (`losses.append(loss)`, also `losses.extend([loss])`, `losses.insert(0,
    loss)`, a deque's `appendleft(loss)`, `losses += [loss]`, `losses = losses +
    [loss]` where `losses` is known to be a list, set to one written out or
    `list()`; not an `extend` of a list whose elements are not written out,
    `losses.extend(batch_losses)`, nor `arr = arr + [loss]` of an array,
    which adds the loss to its elements; `losses = [*losses, loss]`, whatever
    `losses` was; `seen.add(loss)` where `seen` is known to be a set, set to
    `set()` or one written out, not `meter.add(loss)` of another object; a
    list kept in a dict, `history.setdefault("train", []).append(loss)`)
    that outlives the loop iteration, without
    `.item()`, `.detach()` or `float()`. A value counts as a loss tensor when
    it is back-propagated in the same function (`loss.backward()`,
    `scaler.scale(loss).backward()`, apex's `with amp.scale_loss(loss,
    optimizer) as scaled_loss: scaled_loss.backward()`) or computed by a loss call
    (`F.cross_entropy(...)`, or `criterion(...)` where `criterion` was built
    from a `torch.nn` loss class).

    ## Why is this bad?
    A loss tensor carries its autograd graph: every activation of the forward
    pass that produced it. Adding it to a total builds a new tensor whose graph
    holds the old one, so each iteration's graph stays alive until the total
    is dropped. Memory grows every step until the run dies of out-of-memory,
    usually long after the line that caused it. Logging only needs the number:
    `loss.item()` (or `loss.detach()` to keep a tensor).

    ## Fix safety
    Safe, and offered only when no later use could need the tensor: in a
    running sum the loss becomes `loss.item()` (when the loss is known to be
    a scalar: not from a loss module built with `reduction="none"`, nor one
    built with options that cannot be read), in an append (or any of the
    forms above that adds one element) `loss.detach()`; none where several
    elements are added at once (`losses.extend((loss, aux))`).
    The fix does change what is logged, on purpose: the total becomes a
    Python float, so `print(total)` shows `3.6898616552352905` where it
    showed `tensor(3.6899, grad_fn=<AddBackward0>)`, the low-order digits of
    a float32 total change (it is summed in float64), and a bfloat16 or
    float16 total becomes the exact sum of its losses instead of one that
    stalls once the losses are small beside it. A float also raises where a
    tensor gives inf: a total divided by a count that stayed 0 raises
    `ZeroDivisionError`, and `.item()` raises on a dry run on the `meta`
    device; an appended `loss.detach()` is a new tensor (`losses[-1] is
    loss` turns false). No fix for `total.add_(loss)`: the conditions of the
    `.item()` fix are about a total that becomes a float, which this one,
    a tensor, does not. Code of another module that reads a module-level
    total of a script is not seen.

    The total must be a variable of the code that accumulates it: a local of
    the function, bound there, or a variable of the module accumulated by
    the module's own loop and named by no function or class of the module.
    No fix is offered for a total declared `global` or `nonlocal`, a
    parameter (a list the caller passed in), a module's variable appended
    in a function, or an attribute (`self.losses`): other code reads them.
    Within its code the total must be read only as a number: printed,
    formatted, logged, used in arithmetic or passed to numpy / math
    functions whose results are followed the same way. `.item()` is not
    offered when the total, or anything computed from it, is then used as a
    tensor: a method or attribute (`avg.item()` after `avg = total / n`), an
    item (`total[0]`), its length, iterating or unpacking it, `@`, or a torch
    function, which takes only tensors (`torch.exp(total / n)`); `.detach()`
    is not offered when the losses' graphs are read (`l.grad_fn`,
    `l.requires_grad`). A total that is returned, yielded, stored in an
    attribute or a container, or handed to any other function (among them
    `torch.autograd`'s) gets the finding without a fix: whoever receives it
    may back-propagate it or call tensor methods on it. So does a total that
    another name also holds or may hold (`losses = all_losses = []`, `before =
    total or 0.0`, a default `lambda t=total: ...`: a tensor's `+=` changes
    that object in place, a number's does not), a loss that is an object of a
    class of the file (`loss = MultiTaskLoss(...)` with its own `backward()`:
    it may have no `.item()`), one formatted by a
    `str.format` template that reads its attributes (`{0.dtype}`), and a loss
    from a loss module that is reconfigured after it is built (its
    `reduction` assigned, or the module handed to a function). Nor is a fix offered
    when the loss may be a plain number where it is added: when any
    assignment of it in the function gives or may give a number or any other
    value that is no tensor (`0.0`, `x if c else 0.0`, `a or 0.0`,
    `float(...)`, `sum(...)`, `.item()`, `loss += 1.0`), or the code asks what
    it is (`torch.is_tensor(loss)`, `isinstance(loss, ...)`): `.item()` of a
    float raises.

    ## Limitations
    Besides the direct forms above, helpers of the project are followed (in
    this file and in the modules it imports): a step function that returns the
    loss it back-propagated (`total += train_step(batch)`), itself or by handing
    it to one that does (XLM's `self.optimize(loss)`, then `return loss`), or in
    a tuple or dict it returns (`loss, n = train_step(batch)`, `out["loss"]`), or
    in a named tuple it builds (`return PPOStats(loss, kl)`, of a `class
    PPOStats(NamedTuple)` of the file or of another module of the project:
    torchtune's PPO and GRPO steps, its item read by position or by its field,
    `stats.loss`, also through the variable of a loop or a comprehension over a
    list of them, `for s in stats: total += s.loss`, `sum(s.loss for s in
    stats)`, where the sum outlives an iteration of a loop that trains; one that
    holds `loss.detach()` keeps no graph, nor does a plain class or a dataclass,
    which the rule does not follow; a named tuple kept whole,
    `stats.append(ppo_step(batch))`, is reported as the step's: the finding says
    to detach the loss where the step returns it, and offers no fix, and what is
    built from a list so reported, a field-wise sum `PPOStats(*map(sum,
    zip(*stats)))` or a sum over its loop variable, is the same finding, not
    another),
    also reached through a variable that holds it for certain (`step =
    functools.partial(train_step, model, opt)`, `self.step_fn =
    self.train_step`, an item of a dict of step functions never changed after
    it is written, `steps[mode]` or `steps.get(mode)`, also one a trainer keeps
    in `self.steps`: not a parameter, nor a variable also assigned another
    function or rebound by a loop or a `with`), also
    a trainer's method (`trainer.mt_step(batch)` of a `trainer =
    EncDecTrainer(...)`, or of a parameter every call of its function in the
    file hands such an instance; of any other parameter, unknown), and a meter or
    logging function that stores what it is given where it outlives the call
    (`meter.update(loss)` on an object built from a class of the project,
    `log_losses(history, {"loss": loss})`, also through `**kwargs`; stored by
    `append`, `insert`, `extend([value])` or a deque's `appendleft`), also
    called in a step method on a list of its object (`record(self.losses,
    loss)`, followed to the loops that call the method as `self.losses` is);
    such a function handed a list that the loop sets anew on every iteration
    (`history = []`, then `record(history, loss)`) keeps nothing across
    iterations, and neither does a meter built anew on every iteration. A total
    kept in a dict under a constant key is flagged as a variable is
    (`meters["loss"] += loss`, `logs["loss"] = logs.get("loss", 0.0) + loss`),
    without a fix, and so is one under a key a variable holds, as written
    (`meters[name] += loss`, reset by `meters[name] = 0.0` with `name` not
    bound anew between that reset and the add, or by emptying `meters`); one
    under a key computed otherwise (`meters[f"{name}_loss"]`),
    meters of installed libraries, objects whose class cannot be told,
    and an accumulation outside any loop that no loop of the file calls (a
    Lightning `training_step` appending to `self.outputs`) is not flagged.
    An attribute of `self` accumulated in a method outside any loop of its own
    is followed to the loops of the file that call the method, a few calls
    deep (a trainer's `_train_step` called by the loop of `_train_epoch`, or
    `trainer.train_step(x)` in a function's loop, of a `trainer =
    Trainer(...)` of a class of the file; not always through a parameter it
    is handed, `run(Trainer(...), loader)`):
    reset in a method the iteration calls (also on the instance:
    `trainer.reset()`, or its constructor), it counts as reset when that
    method resets it under no condition, and so does a reset through the
    instance in the loop (`trainer.total = 0.0`). A loss being built is never
    flagged: a total that is back-propagated or differentiated later (`total.backward()`,
    `torch.stack(losses).mean().backward()`, `for l in losses: l.backward()`,
    `torch.autograd.grad(torch.stack(losses).sum(), w)`),
    a sum in a module's `forward`, a sum returned by a function that
    back-propagates nothing (a loss function: its caller does), also inside a
    returned dict (`losses["mask"] = loss_mask / n`), and any sum under
    `torch.no_grad()` / `torch.inference_mode()` (a `with` block, a decorator,
    or every call site of the function in its file: one evaluation call under
    `no_grad` does not excuse a training call without it), where no graph is recorded, nor a
    value assigned there or read from one that was (`loss = outputs.loss` after
    `with torch.no_grad(): outputs = model(x)`). A value
    is judged on every path: if some path turns `loss` into a float first, the
    line is left alone. A total set again on every iteration of the loop keeps
    nothing across iterations (also as a part of a tuple: `losses, n = [],
    0`), nor does a list emptied on every iteration (`losses.clear()`, `del
    losses[:]`, also in a method that every iteration calls, on every run of
    it), nor does a list of the micro-batch losses of one step (a loop that steps
    nothing, each back-propagated) bound to a fresh empty list (`losses = []`) at
    the top of every iteration of the loop around it, which steps an optimizer
    itself past that loop (`optimizer.step()`; not only a scheduler), when nothing
    built from it outlives the iteration: followed in the order of the
    bindings, so that `loss = sum(losses)` made a number by `loss =
    loss.item()` before a meter is given it keeps nothing, while a sum handed
    to a meter, stored, returned, kept under another name into the next
    iteration (`previous = losses` before `losses = []`), carried from step to
    step under its own name (`total = total + sum(losses)`, `last =
    losses[-1] if last is None else last`: what the right side reads is of the
    step before) or read after the loop keeps the list flagged, as does a list
    that is an attribute or reset after the appends or only in one branch, or
    one filled by a loop that steps itself (`optimizer.step()` every `accum`
    batches: the list is the epoch's); one reset only under a condition
    (`if step % 100 == 0: total = 0`, also a reset method called there)
    keeps the graphs of every iteration until then, and so does one that an
    iteration may skip: after a `continue` of the loop, in a lambda, a
    comprehension, on the right of `and` / `or` (`flag and
    losses.clear()`), after other code of a `try` body that may raise (not
    constants nor another reset) or in its `else:`, where a handler may go
    on (`except RuntimeError: continue`, `pass`, an `if` one arm of which
    passes, a `return` in a reset method: its caller's loop goes on). A
    reset still counts where every handler re-raises, breaks, returns
    (from the loop's function) or exits on every arm, or ends in code the
    linter cannot follow; before the accumulation, where they continue the
    loop (that iteration adds nothing); and in `finally:`. A list cut
    to a window of its last elements (`recent = recent[-100:]`, also
    copied, `list(recent[-100:])`, or cut only once long enough,
    `recent[-100:] if len(recent) > 100 else recent`, or rebuilt of its
    losses, `[l for l in recent[-100:]]`, `[l for i, l in enumerate(recent)]`,
    or of tensors computed from them, `[l.float() for l in recent if l <
    10]`, `[-l if l < 0 else l for l in recent]`) keeps the graphs in the
    window, where one rebuilt of numbers or detached tensors (`[l.item()
    for l in recent]`, `[l.detach() for l in recent]`, or what a later
    `for` binds anew) keeps none; one grown as `recent = recent[-99:] +
    [loss]` is flagged as an append is.
    A loss being built that is back-propagated in the loop and added to again in
    a later iteration, on some path with no assignment of it in between (`loss
    = 0` before the loop, then `loss = loss + criterion(...)` and
    `loss.backward()` in it), is flagged at the addition, without a fix: the
    backward must come after the addition in a loop around both (a loss
    back-propagated before the loop the addition runs in starts from a
    finished step), and a plain variable is followed (not an attribute or an
    item); gradient accumulation that sets it anew after each backward is in
    order.

    A loss that a base class's training loop back-propagates (itself, or
    through a hook such as `self.backward(loss)` as the subclass resolves it)
    and hands to a hook (`self.on_step_end(loss)`) is followed into each
    override of the hook, in this file or in a module of the project: the
    override's append or `+=` that keeps it is reported there, naming the
    loop. A hook looked up by a name built at run time is not followed.
    """

    code = "TL202"
    name = "loss-accumulated-with-graph"
    severity = "error"
    message = "a loss tensor is accumulated across iterations with its autograd graph: use `loss.item()` (or `loss.detach()`)"
    fix_safety = "safe"
    triggers = ("backward", "loss", "Loss", "cross_entropy", "kl_div")
    bad = (
        # Hugging Face Accelerate: `accelerator.backward(loss)` back-propagates `loss`
        "from accelerate import Accelerator\n"
        "accelerator = Accelerator()\n"
        "for epoch in range(epochs):\n"
        "    total_loss = 0\n"
        "    for batch in loader:\n"
        "        loss = model(**batch).loss\n"
        "        total_loss += loss  # expect: TL202\n"
        "        accelerator.backward(loss)\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        Example(
            "import torch\n"
            "total_loss = 0.0\n"
            "for x, y in loader:\n"
            "    loss = criterion(model(x), y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    total_loss += loss  # expect: TL202\n",
            fixed="import torch\n"
            "total_loss = 0.0\n"
            "for x, y in loader:\n"
            "    loss = criterion(model(x), y)\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    total_loss += loss.item()  # expect: TL202\n",
        ),
        # gradient accumulation back-propagates a share of the loss: the loss is still kept
        Example(
            "import torch\n"
            "total_loss = 0.0\n"
            "for step, (x, y) in enumerate(loader):\n"
            "    loss = criterion(model(x), y)\n"
            "    (loss / accum_steps).backward()\n"
            "    total_loss += loss  # expect: TL202\n"
            "    if (step + 1) % accum_steps == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n",
            fixed="import torch\n"
            "total_loss = 0.0\n"
            "for step, (x, y) in enumerate(loader):\n"
            "    loss = criterion(model(x), y)\n"
            "    (loss / accum_steps).backward()\n"
            "    total_loss += loss.item()  # expect: TL202\n"
            "    if (step + 1) % accum_steps == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n",
        ),
        # returned to the caller: flagged, but no fix (the caller may need tensors)
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        losses.append(loss)  # expect: TL202\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return losses\n",
        # read as a tensor after the loop: flagged, but no fix (a float has no
        # `.item()`, and torch.exp takes only tensors)
        "import torch\n"
        "def train(model, loader, opt, criterion):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        total += loss  # expect: TL202\n"
        "    avg = total / len(loader)\n"
        "    print(avg.item(), torch.exp(total / len(loader)))\n",
        Example(
            "from torch import nn\n"
            "criterion = nn.CrossEntropyLoss()\n"
            "def train_one_epoch(model, loader, optimizer, scaler, log):\n"
            "    running, history = 0, []\n"
            "    for i, (x, y) in enumerate(loader):\n"
            "        loss = criterion(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "        running = running + loss * x.size(0)  # expect: TL202\n"
            "        history.append(loss)  # expect: TL202\n"
            "    print(f\"loss {running / len(loader.dataset):.3f}\", len(history))\n"
            "    log.info(\"last %s\", history[-1])\n",
            fixed="from torch import nn\n"
            "criterion = nn.CrossEntropyLoss()\n"
            "def train_one_epoch(model, loader, optimizer, scaler, log):\n"
            "    running, history = 0, []\n"
            "    for i, (x, y) in enumerate(loader):\n"
            "        loss = criterion(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "        running = running + loss.item() * x.size(0)  # expect: TL202\n"
            "        history.append(loss.detach())  # expect: TL202\n"
            "    print(f\"loss {running / len(loader.dataset):.3f}\", len(history))\n"
            "    log.info(\"last %s\", history[-1])\n",
        ),
        # a running average keeps the graph of every step in its old value
        Example(
            "import torch\n"
            "def train(model, loader, opt):\n"
            "    smooth = 0.0\n"
            "    for x, y in loader:\n"
            "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        smooth = 0.98 * smooth + 0.02 * loss  # expect: TL202\n"
            "    print(f'smoothed loss {smooth:.4f}')\n",
            fixed="import torch\n"
            "def train(model, loader, opt):\n"
            "    smooth = 0.0\n"
            "    for x, y in loader:\n"
            "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        smooth = 0.98 * smooth + 0.02 * loss.item()  # expect: TL202\n"
            "    print(f'smoothed loss {smooth:.4f}')\n",
        ),
        # the loss kept in an attribute
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        total = 0\n"
        "        for x in loader:\n"
        "            self.loss = self.model(x).sum()\n"
        "            total += self.loss  # expect: TL202\n"
        "            self.optimizer.zero_grad()\n"
        "            self.loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return total / len(loader)\n",
        # a step function that returns the back-propagated loss, summed by its caller
        "def train_step(model, batch, opt):\n"
        "    opt.zero_grad()\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def train(model, loader, opt):\n"
        "    total = 0\n"
        "    for batch in loader:\n"
        "        total += train_step(model, batch, opt)  # expect: TL202\n"
        "    return total\n",
        # a meter and a logging function that keep what they are given
        "import torch\n"
        "class AverageMeter:\n"
        "    def update(self, val, n=1):\n"
        "        self.sum += val * n\n"
        "def log_losses(history, losses):\n"
        "    for name, value in losses.items():\n"
        "        history.setdefault(name, []).append(value)\n"
        "def train(model, loader, opt):\n"
        "    meter = AverageMeter()\n"
        "    history = {}\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        meter.update(loss, x.size(0))  # expect: TL202\n"
        "        log_losses(history, {'loss': loss})  # expect: TL202\n",
        # a meter that rebinds what it is given, but to a tensor that keeps its graph
        "import torch\n"
        "class Averager:\n"
        "    def add(self, v):\n"
        "        v = v.sum()\n"
        "        self.sum += v\n"
        "def train(model, loader, opt):\n"
        "    averager = Averager()\n"
        "    for x, y in loader:\n"
        "        cost = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        model.zero_grad()\n"
        "        cost.backward()\n"
        "        opt.step()\n"
        "        averager.add(cost)  # expect: TL202\n",
        # Hugging Face style: the loss is an attribute of the output
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        for epoch in range(self.epochs):\n"
        "            for batch in loader:\n"
        "                loss = self.model(**batch).loss\n"
        "                loss = loss / self.accum\n"
        "                loss.backward()\n"
        "                self.epoch_loss += loss  # expect: TL202\n",
        # the total is reset per epoch, but outlives each batch iteration
        Example(
            "import torch\n"
            "for epoch in range(10):\n"
            "    epoch_loss = 0\n"
            "    while True:\n"
            "        loss = torch.nn.functional.mse_loss(net(x), y)\n"
            "        epoch_loss += loss  # expect: TL202\n"
            "        if done():\n"
            "            break\n",
            fixed="import torch\n"
            "for epoch in range(10):\n"
            "    epoch_loss = 0\n"
            "    while True:\n"
            "        loss = torch.nn.functional.mse_loss(net(x), y)\n"
            "        epoch_loss += loss.item()  # expect: TL202\n"
            "        if done():\n"
            "            break\n",
        ),
        # back-propagated through an Accelerator, then summed with its graph
        "import torch.nn.functional as F\n"
        "def train(accelerator, model, loader, opt):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        accelerator.backward(loss)\n"
        "        opt.step()\n"
        "        total += loss  # expect: TL202\n"
        "    return total\n",
        # reset only when it is logged: up to 100 iterations' graphs stay alive
        Example(
            "import torch.nn.functional as F\n"
            "def fit(net, batches, optim):\n"
            "    window = 0\n"
            "    for step, (x, y) in enumerate(batches, 1):\n"
            "        loss = F.cross_entropy(net(x), y)\n"
            "        optim.zero_grad()\n"
            "        loss.backward()\n"
            "        optim.step()\n"
            "        window += loss  # expect: TL202\n"
            "        if step % 100 == 0:\n"
            "            print(f'loss {window / 100:.4f}')\n"
            "            window = 0\n",
            fixed="import torch.nn.functional as F\n"
            "def fit(net, batches, optim):\n"
            "    window = 0\n"
            "    for step, (x, y) in enumerate(batches, 1):\n"
            "        loss = F.cross_entropy(net(x), y)\n"
            "        optim.zero_grad()\n"
            "        loss.backward()\n"
            "        optim.step()\n"
            "        window += loss.item()  # expect: TL202\n"
            "        if step % 100 == 0:\n"
            "            print(f'loss {window / 100:.4f}')\n"
            "            window = 0\n",
        ),
        # the helper back-propagates the loss it is given, not the list kept beside it
        Example(
            "import torch\n"
            "def optimize(optimizer, loss):\n"
            "    optimizer.zero_grad()\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "criterion = torch.nn.CrossEntropyLoss()\n"
            "history = []\n"
            "for x, y in loader:\n"
            "    loss = criterion(model(x), y)\n"
            "    history.append(loss)  # expect: TL202\n"
            "    optimize(optimizer, loss)\n",
            fixed="import torch\n"
            "def optimize(optimizer, loss):\n"
            "    optimizer.zero_grad()\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "criterion = torch.nn.CrossEntropyLoss()\n"
            "history = []\n"
            "for x, y in loader:\n"
            "    loss = criterion(model(x), y)\n"
            "    history.append(loss.detach())  # expect: TL202\n"
            "    optimize(optimizer, loss)\n",
        ),
        # a term of the loss that is back-propagated: its graph is the loss's. No fix:
        # a term of a sum may be a plain number, which has no `.detach()`
        "def update(policy, batches, optimizer, value_coef):\n"
        "    policy_losses, value_total = [], 0.0\n"
        "    for obs, actions, advantages, returns in batches:\n"
        "        log_probs, values = policy(obs, actions)\n"
        "        policy_loss = -(advantages * log_probs).mean()\n"
        "        value_loss = ((returns - values) ** 2).mean()\n"
        "        loss = policy_loss + value_coef * value_loss\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        policy_losses.append(policy_loss)  # expect: TL202\n"
        "        value_total += value_loss  # expect: TL202\n"
        "    print(sum(policy_losses) / len(policy_losses), value_total)\n",
        # a total declared `global`: code outside the function reads it, here as a
        # tensor. No fix: only a variable of the function's own can be checked
        "import torch\n"
        "total = 0\n"
        "def train(model, loader, opt):\n"
        "    global total\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        total += loss  # expect: TL202\n"
        "train(model, loader, opt)\n"
        "print((total / len(loader)).item())\n",
        # a total declared `nonlocal`: the enclosing function returns it. No fix
        "import torch\n"
        "def fit(model, loader, opt):\n"
        "    total = 0\n"
        "    def epoch():\n"
        "        nonlocal total\n"
        "        for x, y in loader:\n"
        "            loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "            total += loss  # expect: TL202\n"
        "    epoch()\n"
        "    return total\n",
        # a module's list appended in a function, back-propagated by the module. No fix:
        # the list is not the function's own
        "import torch\n"
        "LOSSES = []\n"
        "def run_epoch(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward(retain_graph=True)\n"
        "        opt.step()\n"
        "        LOSSES.append(loss)  # expect: TL202\n"
        "run_epoch(model, loader, opt)\n"
        "torch.stack(LOSSES).mean().backward()\n",
        # a list the caller passed in: the caller back-propagates it. No fix
        "import torch\n"
        "def run_epoch(model, loader, opt, history):\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward(retain_graph=True)\n"
        "        opt.step()\n"
        "        history.append(loss)  # expect: TL202\n"
        "history = []\n"
        "run_epoch(model, loader, opt, history)\n"
        "torch.stack(history).mean().backward()\n",
        # the loss is a plain number on some path (an empty batch): a float has no
        # `.item()`. No fix
        "import torch\n"
        "import torch.nn.functional as F\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    loss = F.mse_loss(model(x), y) if len(x) else 0.0\n"
        "    if torch.is_tensor(loss):\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    total += loss  # expect: TL202\n"
        "print(f'total {total:.4f}')\n",
        # the total is indexed after the loop: a float cannot be. No fix
        "import torch\n"
        "total = 0\n"
        "for x, y in loader:\n"
        "    loss = ((model(x) - y) ** 2).mean(0)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    total += loss  # expect: TL202\n"
        "print('mean', total[0] / len(loader))\n",
        # a tensor method keeps the graph: `loss.float()` of a float32 loss is the loss itself,
        # and `.cpu()` / `.mean()` are differentiable (no fix: `.item()` of what they return
        # would be the one to write)
        "import torch\n"
        "total_loss, history = 0.0, []\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    total_loss += loss.float()  # expect: TL202\n"
        "    history.append(loss.cpu())  # expect: TL202\n"
        "print(total_loss, history)\n",
        # no `.item()` fix: the helper returns the number 0.0 for an empty batch, and the
        # backward under `if` says nothing of the value added outside it
        "import torch\n"
        "def compute(model, x):\n"
        "    if x.numel() == 0:\n"
        "        return 0.0\n"
        "    return model(x).pow(2).mean()\n"
        "total = 0.0\n"
        "for x in batches:\n"
        "    loss = compute(model, x)\n"
        "    if loss != 0:\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    total += loss  # expect: TL202\n",
        # no `.item()` fix: after its backward the name holds one value per rank
        "import torch\n"
        "total = 0.0\n"
        "for x in batches:\n"
        "    opt.zero_grad()\n"
        "    loss = model(x).pow(2).mean()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    loss = gather(loss)\n"
        "    total += loss  # expect: TL202\n",
        # no `.item()` fix: the reduction is given by position, per element
        "import torch\n"
        "from torch import nn\n"
        "crit = nn.MSELoss(None, None, 'none')\n"
        "total = 0.0\n"
        "for x, y in batches:\n"
        "    opt.zero_grad()\n"
        "    loss = crit(model(x), y)\n"
        "    loss.mean().backward()\n"
        "    opt.step()\n"
        "    total += loss  # expect: TL202\n",
        # per-device losses reduced for the backward pass (DataParallel): the loss is
        # back-propagated, and need not be one number: no `.item()` fix
        "import torch\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = model(x, y)\n"
        "    loss.mean().backward()\n"
        "    optimizer.step()\n"
        "    total += loss  # expect: TL202\n",
        # the loss module is reconfigured after it is built: its losses may be per element
        "import torch.nn as nn\n"
        "def per_sample(criterion):\n"
        "    criterion.reduction = 'none'\n"
        "criterion = nn.MSELoss()\n"
        "per_sample(criterion)\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.mean().backward()\n"
        "    total += loss  # expect: TL202\n",
        # another name holds the list, and back-propagates through it
        "import torch\n"
        "import torch.nn.functional as F\n"
        "losses = all_losses = []\n"
        "for x, y in loader:\n"
        "    loss = F.cross_entropy(model(x), y)\n"
        "    loss.backward(retain_graph=True)\n"
        "    losses.append(loss)  # expect: TL202\n"
        "torch.stack(all_losses).mean().backward()\n",
        # a format field reads an attribute of the total
        "import torch.nn.functional as F\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    loss = F.cross_entropy(model(x), y)\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    total += loss  # expect: TL202\n"
        "print('epoch loss {0:.4f} ({0.dtype})'.format(total))\n",
        # the loss module built again with per-element losses; a list held under another name too
        "import torch.nn as nn\n"
        "criterion = nn.MSELoss()\n"
        "criterion.__init__(reduction='none')\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.mean().backward()\n"
        "    total += loss  # expect: TL202\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "losses = []\n"
        "if (all_losses := losses) is not None:\n"
        "    pass\n"
        "for x, y in loader:\n"
        "    loss = F.cross_entropy(model(x), y)\n"
        "    loss.backward(retain_graph=True)\n"
        "    losses.append(loss)  # expect: TL202\n"
        "torch.stack(all_losses).mean().backward()\n",
        # back-propagated by a helper of the file (no fix: whether the loss is one number
        # is the helper's business)
        "def backward(loss, scaler):\n"
        "    scaler.scale(loss).backward()\n"
        "def train(model, loader, optimizer, scaler):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        backward(loss, scaler)\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        total += loss  # expect: TL202\n"
        "    print(total / len(loader))\n",
        # a history of lists keyed by name, as Keras keeps it
        "import torch\n"
        "def fit(model, loader, optimizer):\n"
        "    history = {'train_loss': []}\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        history['train_loss'].append(loss)  # expect: TL202\n"
        "    return history\n",
        # the name of the back-propagated loss bound again after the loop, to the epoch's mean: no backward reads that
        "import torch\n"
        "def train_epoch(model, optimizer, criterion, loader):\n"
        "    epoch_losses = []\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        epoch_losses.append(loss)  # expect: TL202\n"
        "    loss = sum(epoch_losses) / len(epoch_losses)\n"
        "    return loss.item()\n",
        # the same inside an epoch loop: the loop binds `loss` again before its next backward
        "import torch\n"
        "def train(model, optimizer, criterion, loader, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        epoch_losses = []\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            loss = criterion(model(x), y)\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            epoch_losses.append(loss)  # expect: TL202\n"
        "        loss = sum(epoch_losses) / len(epoch_losses)\n"
        "        print(f\"epoch {epoch}: {loss.item():.4f}\")\n",
        # a nested step function back-propagates its own `loss`, not the epoch's mean bound to the same name outside
        "import torch\n"
        "def train(model, optimizer, criterion, loader, epochs):\n"
        "    def step(x, y):\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        return loss\n"
        "    for epoch in range(epochs):\n"
        "        history = []\n"
        "        for x, y in loader:\n"
        "            history.append(step(x, y))  # expect: TL202\n"
        "        loss = torch.stack(history).mean()\n"
        "        print(epoch, loss.item())\n",
        # a loss bound by the backward's own walrus
        "import torch.nn.functional as F\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        (loss := F.mse_loss(model(x), y)).backward()\n"
        "        opt.step()\n"
        "        total += loss  # expect: TL202\n"
        "    return total / len(loader)\n",
        # one function trains (an optimizer given) and evaluates (under `no_grad`): the
        # evaluation's call does not excuse the training's (fast-autoaugment's run_epoch)
        "import torch\n"
        "def run_epoch(model, loader, loss_fn, optimizer):\n"
        "    total = 0.0\n"
        "    for data, label in loader:\n"
        "        loss = loss_fn(model(data), label)\n"
        "        if optimizer:\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        total += loss * len(data)  # expect: TL202\n"
        "    return total\n"
        "def main(model, trainloader, validloader, loss_fn, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        run_epoch(model, trainloader, loss_fn, optimizer)\n"
        "        with torch.no_grad():\n"
        "            run_epoch(model, validloader, loss_fn, None)\n",
        # a total kept in a dict under a constant key, added to as `+=` would
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    logs = {\"loss\": 0.0}\n"
        "    totals = {}\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = model(x).pow(2).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        logs[\"loss\"] = logs[\"loss\"] + loss  # expect: TL202\n"
        "        totals['loss'] = totals.get(\"loss\", 0.0) + loss  # expect: TL202\n"
        "    return logs, totals\n",
        # a trainer's per-step method, called from the loop of another (ParallelWaveGAN's
        # Trainer): the attributes outlive each call, reset only every 100 steps
        "from collections import defaultdict\n"
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader):\n"
        "        self.model, self.optimizer, self.loader = model, optimizer, loader\n"
        "        self.steps = 0\n"
        "        self.total_train_loss = defaultdict(float)\n"
        "        self.total = 0.0\n"
        "    def _train_step(self, x, y):\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        self.total_train_loss[\"loss\"] += loss  # expect: TL202\n"
        "        self.total += loss  # expect: TL202\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def _check_log_interval(self):\n"
        "        if self.steps % 100 == 0:\n"
        "            print(self.total_train_loss, self.total)\n"
        "            self.total_train_loss = defaultdict(float)\n"
        "            self.total = 0.0\n"
        "    def _train_epoch(self):\n"
        "        for x, y in self.loader:\n"
        "            self._train_step(x, y)\n"
        "            self.steps += 1\n"
        "            self._check_log_interval()\n"
        "    def run(self, epochs):\n"
        "        for _ in range(epochs):\n"
        "            self._train_epoch()\n",
        # a term added to the back-propagated loss by `+=` (ParallelWaveGAN's generator loss)
        "import torch.nn.functional as F\n"
        "def train(model, disc, loader, optimizer, lambda_adv):\n"
        "    adv_total = 0.0\n"
        "    for x, y in loader:\n"
        "        fake = model(x)\n"
        "        gen_loss = F.l1_loss(fake, y)\n"
        "        adv_loss = -disc(fake).mean()\n"
        "        gen_loss += lambda_adv * adv_loss\n"
        "        adv_total += adv_loss  # expect: TL202\n"
        "        optimizer.zero_grad()\n"
        "        gen_loss.backward()\n"
        "        optimizer.step()\n"
        "    print(f\"adversarial loss {adv_total / len(loader):.4f}\")\n",
        # a trainer's per-step method called on the trainer by a function's loop
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def train_step(self, x, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        self.total += loss  # expect: TL202\n"
        "    def reset(self):\n"
        "        self.total = 0.0\n"
        "def main(model, optimizer, loader):\n"
        "    trainer = Trainer(model, optimizer)\n"
        "    for x, y in loader:\n"
        "        trainer.train_step(x, y)\n",
        # the same terms kept in a list made once before the training loop
        "import torch\n"
        "def perturb(model, xs, bows, iterations):\n"
        "    kept = []\n"
        "    for i in range(iterations):\n"
        "        probs = model(xs)\n"
        "        loss = 0.0\n"
        "        for bow in bows:\n"
        "            bow_loss = -torch.log((probs * bow).sum())\n"
        "            loss += bow_loss\n"
        "            kept.append(bow_loss)  # expect: TL202\n"
        "        loss.backward()\n",
        # apex back-propagates the loss it scales: on the fp16 branch `loss` is the
        # multi-crop sum, a tensor, though it starts as the number 0 (SwAV)
        "import apex\n"
        "def train(loader, model, optimizer, use_fp16):\n"
        "    total = 0.0\n"
        "    for x in loader:\n"
        "        loss = 0\n"
        "        for crop in model(x):\n"
        "            loss += crop.mean()\n"
        "        if use_fp16:\n"
        "            with apex.amp.scale_loss(loss, optimizer) as scaled_loss:\n"
        "                scaled_loss.backward()\n"
        "        else:\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total += loss  # expect: TL202\n",
        # a trainer's step that hands its loss to the method that back-propagates it, then returns it (XLM's `optimize`)
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def optimize(self, loss):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def step(self, batch):\n"
        "        loss = self.model(batch).mean()\n"
        "        self.optimize(loss)\n"
        "        return loss\n"
        "def train(model, optimizer, loader):\n"
        "    trainer = Trainer(model, optimizer)\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += trainer.step(batch)  # expect: TL202\n"
        "    return total\n",
        # the total is set once, before the loop: on the multi-head branch each iteration adds to
        # the loss the last one back-propagated, and keeps every earlier graph in it
        "import torch\n"
        "criterion = torch.nn.MSELoss()\n"
        "def train(model, heads, loader, optimizer, multi_head):\n"
        "    loss = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        if multi_head:\n"
        "            for head in heads:\n"
        "                loss = loss + criterion(head(model(x)), y)  # expect: TL202\n"
        "        else:\n"
        "            loss = criterion(model(x), y)\n"
        "        loss.mean().backward(retain_graph=True)\n"
        "        optimizer.step()\n",
        # statements joined on one line: a backward before the addition still tells the loss
        # is one number (`.item()` is offered); one after it does not
        Example(
            "def train(model, loader, opt):\n"
            "    total_loss = 0.0\n"
            "    for x, y in loader:\n"
            "        loss = model(x, y)\n"
            "        loss.backward(); opt.step(); total_loss += loss  # expect: TL202\n"
            "    print(total_loss)\n",
            fixed="def train(model, loader, opt):\n"
            "    total_loss = 0.0\n"
            "    for x, y in loader:\n"
            "        loss = model(x, y)\n"
            "        loss.backward(); opt.step(); total_loss += loss.item()  # expect: TL202\n"
            "    print(total_loss)\n",
        ),
        "def train(model, loader, opt):\n"
        "    total_loss = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = model(x, y)\n"
        "        total_loss += loss; loss.backward(); opt.step()  # expect: TL202\n"
        "    print(total_loss)\n",
        # a tensor total added to in place, before or after the backward (no fix: see the docs)
        "import torch\n"
        "def train(model, loader, optimizer, criterion):\n"
        "    total_loss = torch.zeros(())\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        total_loss.add_(loss)  # expect: TL202\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return total_loss.item() / len(loader)\n",
        "import torch\n"
        "criterion = torch.nn.CrossEntropyLoss()\n"
        "running = torch.tensor(0.0)\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    running.add_(loss, alpha=0.5)  # expect: TL202\n"
        "print(running)\n",
        # the step function reached through a variable: a partial of it, an item of a dict of
        # step functions, a trainer's attribute assigned its step method
        "import functools\n"
        "def train_step(model, opt, batch):\n"
        "    opt.zero_grad()\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def train(model, opt, loader, mode):\n"
        "    step = functools.partial(train_step, model, opt)\n"
        "    steps = {\"train\": train_step}\n"
        "    total, by_mode = 0.0, 0.0\n"
        "    for batch in loader:\n"
        "        total += step(batch)  # expect: TL202\n"
        "        by_mode += steps[mode](model, opt, batch)  # expect: TL202\n"
        "    return total, by_mode\n",
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.step_fn = self.train_step\n"
        "    def train_step(self, batch):\n"
        "        self.opt.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        return loss\n"
        "    def fit(self, loader):\n"
        "        total = 0.0\n"
        "        for batch in loader:\n"
        "            total += self.step_fn(batch)  # expect: TL202\n"
        "        return total\n",
        # a step function that returns the loss in a tuple or a dict, with other values
        "def train_step(model, opt, batch):\n"
        "    out = model(batch)\n"
        "    loss = out.sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss, len(out)\n"
        "def step_logs(model, opt, batch):\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return {\"loss\": loss, \"lr\": opt.param_groups[0][\"lr\"]}\n"
        "def train(model, opt, loader):\n"
        "    total, seen, logged, first = 0.0, 0, 0.0, 0.0\n"
        "    for batch in loader:\n"
        "        loss, n = train_step(model, opt, batch)\n"
        "        total += loss  # expect: TL202\n"
        "        seen += n\n"
        "        logs = step_logs(model, opt, batch)\n"
        "        logged += logs[\"loss\"]  # expect: TL202\n"
        "        first += train_step(model, opt, batch)[0]  # expect: TL202\n"
        "    return total / seen, logged, first\n",
        # the step picked from a dict of step functions by `.get`, or from one a trainer keeps
        "def train_step(model, opt, batch):\n"
        "    opt.zero_grad()\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def train(model, opt, loader, mode):\n"
        "    steps = {\"train\": train_step}\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += steps.get(mode)(model, opt, batch)  # expect: TL202\n"
        "    return total\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.steps = {\"train\": self.train_step}\n"
        "    def train_step(self, batch):\n"
        "        self.opt.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        return loss\n"
        "    def fit(self, loader, mode):\n"
        "        total = 0.0\n"
        "        for batch in loader:\n"
        "            total += self.steps[mode](batch)  # expect: TL202\n"
        "            total += self.steps.get(\"train\")(batch)  # expect: TL202\n"
        "        return total\n",
        # a PPO step returns its back-propagated loss in a named tuple of statistics, kept
        # in a list across the minibatches
        "from typing import NamedTuple\n"
        "import torch\n"
        "class PPOStats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    policy_loss: torch.Tensor\n"
        "    approx_kl: torch.Tensor\n"
        "class Recipe:\n"
        "    def ppo_step(self, batch):\n"
        "        loss, policy_loss = self.loss_fn(self.policy(batch), batch)\n"
        "        loss.backward()\n"
        "        with torch.no_grad():\n"
        "            approx_kl = (self.policy(batch) - batch).pow(2).mean()\n"
        "        return PPOStats(loss, policy_loss.detach(), approx_kl)\n"
        "    def train(self, batches, ppo_epochs):\n"
        "        for _ in range(ppo_epochs):\n"
        "            stats = []\n"
        "            for batch in batches:\n"
        "                stats.append(self.ppo_step(batch))  # expect: TL202\n"
        "                self.optimizer.step()\n"
        "                self.optimizer.zero_grad()\n"
        "            self.log(PPOStats(*map(torch.stack, zip(*stats))))\n",
        # the back-propagated loss read from the named tuple by its field's name
        "import collections\n"
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "Logged = collections.namedtuple(\"Logged\", \"kl loss\")\n"
        "def train_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return Stats(loss=loss, kl=kl.detach())\n"
        "def logged_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return Logged(kl.detach(), loss)\n"
        "def train(model, opt, loader):\n"
        "    history, total = [], 0.0\n"
        "    for batch in loader:\n"
        "        stats = train_step(model, opt, batch)\n"
        "        history.append(stats.loss)  # expect: TL202\n"
        "        total += logged_step(model, opt, batch).loss  # expect: TL202\n"
        "    print(history, total)\n",
        # the statistics of a training iteration's micro-batches, built in a comprehension,
        # their back-propagated loss read through a loop variable into a sum that outlives
        # the iteration
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "def train_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Stats(loss, kl.detach())\n"
        "def train(model, opt, loader):\n"
        "    total, running, history = 0.0, 0.0, []\n"
        "    for batch in loader:\n"
        "        stats = [train_step(model, opt, mb) for mb in batch.split(4)]\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "        total += sum(s.loss for s in stats)  # expect: TL202\n"
        "        history.append(sum([s[0] for s in stats]))  # expect: TL202\n"
        "        for s in stats:\n"
        "            running += s.loss  # expect: TL202\n"
        "    print(total, running, history)\n",
        # the named tuple kept whole: the finding is the step's (no `.detach()` of a named
        # tuple is offered), and what is then built from the list that keeps it, a
        # field-wise sum or a sum over a loop variable, is that finding again, not another
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "def train_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Stats(loss, kl.detach())\n"
        "def fit(model, opt, loader, epochs):\n"
        "    total, epoch_stats, seen = 0.0, [], []\n"
        "    for epoch in range(epochs):\n"
        "        kept = []\n"
        "        for batch in loader:\n"
        "            stats = train_step(model, opt, batch)\n"
        "            kept.append(stats)  # expect: TL202\n"
        "            seen.append(stats)  # expect: TL202\n"
        "            opt.step()\n"
        "            total += sum(s.loss for s in seen) / len(seen)\n"
        "        epoch_stats.append(Stats(*map(sum, zip(*kept))))\n"
        "        epoch_stats.append(sum(s.loss for s in kept))\n"
        "        for s in kept:\n"
        "            total += s.loss\n"
        "    print(len(epoch_stats), len(seen), total)\n",
        # a step method called on its class returns the back-propagated loss, summed by its caller
        "class Trainer:\n"
        "    def train_step(self, batch):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        return loss\n"
        "    def fit(self, loader):\n"
        "        total = 0\n"
        "        for batch in loader:\n"
        "            total += Trainer.train_step(self, batch)  # expect: TL202\n"
        "        return total\n",
        # the same trainer, its methods calling their instance `trainer`: `trainer.total` is an
        # attribute of the instance, outliving each call of `_train_step`
        "from collections import defaultdict\n"
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(trainer, model, optimizer, loader):\n"
        "        trainer.model, trainer.optimizer, trainer.loader = model, optimizer, loader\n"
        "        trainer.steps = 0\n"
        "        trainer.total_train_loss = defaultdict(float)\n"
        "        trainer.total = 0.0\n"
        "    def _train_step(trainer, x, y):\n"
        "        loss = torch.nn.functional.mse_loss(trainer.model(x), y)\n"
        '        trainer.total_train_loss["loss"] += loss  # expect: TL202\n'
        "        trainer.total += loss  # expect: TL202\n"
        "        trainer.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        trainer.optimizer.step()\n"
        "    def _check_log_interval(trainer):\n"
        "        if trainer.steps % 100 == 0:\n"
        "            print(trainer.total_train_loss, trainer.total)\n"
        "            trainer.total_train_loss = defaultdict(float)\n"
        "            trainer.total = 0.0\n"
        "    def _train_epoch(trainer):\n"
        "        for x, y in trainer.loader:\n"
        "            trainer._train_step(x, y)\n"
        "            trainer.steps += 1\n"
        "            trainer._check_log_interval()\n"
        "    def run(trainer, epochs):\n"
        "        for _ in range(epochs):\n"
        "            trainer._train_epoch()\n",
        # a list given the loss by `extend`, `insert`, a deque's `appendleft`, `+= [loss]` or
        # `= history + [loss]` keeps it as `append` does, and is mended the same way
        Example(
            "import collections\n"
            "import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    losses, newest_first, recent = [], [], collections.deque(maxlen=100)\n"
            "    history, curve = [], []\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        losses.extend([loss])  # expect: TL202\n"
            "        newest_first.insert(0, loss)  # expect: TL202\n"
            "        recent.appendleft(loss)  # expect: TL202\n"
            "        history += [loss]  # expect: TL202\n"
            "        curve = curve + [loss]  # expect: TL202\n"
            "    print(len(losses), newest_first[:3], len(recent), len(history), len(curve))\n",
            fixed="import collections\n"
            "import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    losses, newest_first, recent = [], [], collections.deque(maxlen=100)\n"
            "    history, curve = [], []\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        losses.extend([loss.detach()])  # expect: TL202\n"
            "        newest_first.insert(0, loss.detach())  # expect: TL202\n"
            "        recent.appendleft(loss.detach())  # expect: TL202\n"
            "        history += [loss.detach()]  # expect: TL202\n"
            "        curve = curve + [loss.detach()]  # expect: TL202\n"
            "    print(len(losses), newest_first[:3], len(recent), len(history), len(curve))\n",
        ),
        # several elements at once: flagged, but no fix (it is offered for one element, as
        # `append` adds); nor for a list that is returned
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    terms, kept = [], []\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "        ce = F.cross_entropy(out, y)\n"
        "        reg = out.pow(2).mean()\n"
        "        loss = ce + 0.1 * reg\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        terms.extend((ce.item(), loss))  # expect: TL202\n"
        "        kept += [loss]  # expect: TL202\n"
        "    print(len(terms))\n"
        "    return kept\n",
        # emptied only now and then, or in part: the graphs of every iteration until then stay
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, window, others = [], [], []\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        others.clear()\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        window.append(loss)  # expect: TL202\n"
        "        if step % 100 == 0:\n"
        "            print(sum(recent) / len(recent))\n"
        "            recent.clear()\n"
        "        if len(window) > 10:\n"
        "            del window[:1]\n"
        "        others.append(len(window))\n",
        # a window of the last steps kept by slicing (`recent = recent[-100:]`): 100 graphs
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent = []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        recent = recent[-100:]\n"
        "        print(sum(recent) / len(recent))\n",
        # a clear that may not run on an iteration empties nothing for sure: one in a
        # lambda (never called here), in a comprehension, on the right of `and`, in an
        # arm of `... if ... else ...`
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, restart, per_step):\n"
        "    kept, recent, steps, chosen, last = [], [], [], [], []\n"
        "    for x, y in loader:\n"
        "        reset = lambda: kept.clear()\n"
        "        _ = [recent.clear() for _ in range(int(restart))]\n"
        "        per_step and steps.clear()\n"
        "        chosen.clear() if per_step else None\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        kept.append(loss)  # expect: TL202\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        steps.append(loss)  # expect: TL202\n"
        "        chosen.append(loss)  # expect: TL202\n"
        "        last.append(loss)  # expect: TL202\n"
        "        per_step and last.clear()\n"
        "    return kept, recent, steps, chosen, last\n",
        # a reset method called only every 100 steps, a clear in a lambda of the step method
        # or on the right of `or`: the graphs of the steps in between stay
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, keep_curve):\n"
        "        self.model, self.opt, self.keep_curve = model, opt, keep_curve\n"
        "        self.losses, self.window, self.curve, self.total = [], [], [], 0.0\n"
        "    def reset(self):\n"
        "        self.losses.clear()\n"
        "        self.total = 0.0\n"
        "    def step(self, x, y):\n"
        "        self.on_epoch_end = lambda: self.window.clear()\n"
        "        self.keep_curve or self.curve.clear()\n"
        "        loss = F.cross_entropy(self.model(x), y)\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        self.losses.append(loss)  # expect: TL202\n"
        "        self.window.append(loss)  # expect: TL202\n"
        "        self.curve.append(loss)  # expect: TL202\n"
        "        self.total += loss  # expect: TL202\n"
        "    def fit(self, loader):\n"
        "        for i, (x, y) in enumerate(loader):\n"
        "            self.step(x, y)\n"
        "            if i % 100 == 0:\n"
        "                print(self.total / len(self.losses))\n"
        "                self.reset()\n",
        # a `continue` of the loop before the reset skips it on that iteration: the
        # graphs stay until an iteration reaches the reset
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    losses, total = [], 0.0\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)  # expect: TL202\n"
        "        total = total + loss  # expect: TL202\n"
        "        if loss > 10:\n"
        "            continue\n"
        "        print(total, len(losses))\n"
        "        losses.clear()\n"
        "        total = 0.0\n"
        "    return losses, total\n",
        # a window of the last steps copied (`list(recent[-100:])`), cut only once long
        # enough, or rebuilt with the new loss (`last[-99:] + [loss]`): up to 100 graphs
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, window, last = [], [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        recent = list(recent[-100:])\n"
        "        window.append(loss)  # expect: TL202\n"
        "        window = window[-100:] if len(window) > 100 else window\n"
        "        last = last[-99:] + [loss]  # expect: TL202\n"
        "        print(sum(recent) / len(recent), len(window), len(last))\n"
        "    return recent, window, last\n",
        # `+= [loss]` grows a list known to be one (`history = []`): flagged and mended as an
        # append; an array it is added to (`np.zeros(1)`) is not judged: no list keeps the loss
        Example(
            "import numpy as np\n"
            "import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    history, scores = [], np.zeros(1)\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        history += [loss]  # expect: TL202\n"
            "        scores = scores + [loss]\n"
            "    print(len(history), scores)\n",
            fixed="import numpy as np\n"
            "import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    history, scores = [], np.zeros(1)\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        history += [loss.detach()]  # expect: TL202\n"
            "        scores = scores + [loss]\n"
            "    print(len(history), scores)\n",
        ),
        # an annotation alone (`recent: list[torch.Tensor]`) sets nothing: the list keeps growing
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent = []\n"
        "    for x, y in loader:\n"
        "        recent: list[torch.Tensor]\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "    return recent\n",
        # a function of the module the class takes in as a method: `self.train_step(x, y)`
        # hands it the instance, whose `total` outlives each call
        "import torch\n"
        "def train_step(self, x, y):\n"
        "    loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "    self.total += loss  # expect: TL202\n"
        "    self.optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    self.optimizer.step()\n"
        "class Trainer:\n"
        "    train_step = train_step\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.train_step(x, y)\n"
        "        print(self.total)\n",
        # a function nested in the method, with a `self` of its own that each call is handed
        # the method's instance by
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def fit(self, loader):\n"
        "        def helper(self, x, y):\n"
        "            loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "            self.total += loss  # expect: TL202\n"
        "            self.optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "        for x, y in loader:\n"
        "            helper(self, x, y)\n"
        "        print(self.total)\n",
        # the list kept before the loop, handed on each iteration under another name (`h =
        # history` names the same list; it sets nothing anew)
        "import torch.nn.functional as F\n"
        "def record(history, v):\n"
        "    history.append(v)\n"
        "def train(model, loader, opt):\n"
        "    history, seen = [], []\n"
        "    for x, y in loader:\n"
        "        h, s = history, seen\n"
        "        h = history\n"
        "        s = seen\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        record(h, loss)  # expect: TL202\n"
        "        s.append(loss)  # expect: TL202\n"
        "    return len(history), len(seen)\n",
        # the helper sums the loss into the object it is handed, one made before the loop
        "import torch.nn.functional as F\n"
        "class Tally:\n"
        "    def __init__(self):\n"
        "        self.total = 0\n"
        "def add_loss(self, loss):\n"
        "    self.total += loss\n"
        "    return self\n"
        "def train(model, loader, opt):\n"
        "    tally = Tally()\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        add_loss(tally, loss)  # expect: TL202\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n",
        # the object a helper sums into comes from another call, which may hand back the same
        # one each time (a module's tally, a dict's entry kept by `setdefault`)
        "import torch.nn.functional as F\n"
        "class Tally:\n"
        "    def __init__(self):\n"
        "        self.total = 0\n"
        "def add_loss(self, loss):\n"
        "    self.total += loss\n"
        "    return self\n"
        "TALLY = Tally()\n"
        "def get_tally():\n"
        "    return TALLY\n"
        "def train(model, loader, opt, meters):\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        add_loss(get_tally(), loss)  # expect: TL202\n"
        "        add_loss(meters.setdefault('loss', Tally()), loss)  # expect: TL202\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n",
        # a window rebuilt of the losses it holds (`[l for l in recent[-100:]]`), of those
        # it keeps (`if l < 10`), or of tensors computed from them (`l.float() * 2`): their
        # graphs are in it still
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, window, scaled = [], [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        recent = [l for l in recent[-100:]]\n"
        "        window.append(loss)  # expect: TL202\n"
        "        window = [l for l in window if l < 10]\n"
        "        scaled.append(loss)  # expect: TL202\n"
        "        scaled = list(l.float() * 2 for l in scaled[-100:])\n"
        "        print(sum(recent) / len(recent), len(window), len(scaled))\n",
        # a reset late in a `try` whose handler goes on (`continue`, `pass`), or in its
        # `else:`: an iteration that raises before it skips it, and the graphs stay
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, total, kept = [], 0.0, []\n"
        "    for x, y in loader:\n"
        "        try:\n"
        "            loss = F.cross_entropy(model(x), y)\n"
        "            opt.zero_grad()\n"
        "            loss.backward()\n"
        "            opt.step()\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            total = total + loss  # expect: TL202\n"
        "            kept.append(loss)  # expect: TL202\n"
        "            log(total, len(losses), len(kept))\n"
        "            losses.clear()\n"
        "            total = 0.0\n"
        "        except RuntimeError:\n"
        "            continue\n"
        "        except ValueError:\n"
        "            pass\n"
        "        else:\n"
        "            kept.clear()\n"
        "    return losses, total, kept\n",
        # a reset in a `try` before the accumulation, whose handler goes on with it
        # (`pass`): an iteration that raises before the reset still adds its loss
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        try:\n"
        "            log(len(losses))\n"
        "            losses.clear()\n"
        "        except OSError:\n"
        "            pass\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)  # expect: TL202\n"
        "    return losses\n",
        # a reset in a method whose handler returns: that run of the method ends, and the caller's
        # loop goes on with the graphs kept
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, log):\n"
        "        self.model, self.opt, self.log = model, opt, log\n"
        "        self.losses = []\n"
        "    def flush(self):\n"
        "        try:\n"
        "            self.log(len(self.losses))\n"
        "            self.losses.clear()\n"
        "        except OSError:\n"
        "            return\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            loss = F.cross_entropy(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "            self.losses.append(loss)  # expect: TL202\n"
        "            self.flush()\n",
        # a reset after other code of a `try` whose handler may go on: one arm of an `if` that
        # re-raises (the other goes on), `except*` that passes
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, kept = [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)  # expect: TL202\n"
        "        kept.append(loss)  # expect: TL202\n"
        "        try:\n"
        "            log(len(losses))\n"
        "            losses.clear()\n"
        "        except OSError as e:\n"
        "            if 'disk' in str(e):\n"
        "                raise\n"
        "        try:\n"
        "            log(len(kept))\n"
        "            kept.clear()\n"
        "        except* OSError:\n"
        "            pass\n",
        # windows rebuilt of the losses they hold: an arm of `x if c else y`, the element
        # `enumerate` / `zip` pair with them, a list of one, `-l`, a set of them, `(last := l)`
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, win, pairs, neg, seen, named, last = [], [], [], [], [], [], None\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)  # expect: TL202\n"
        "        recent = [l.float() if l < 10 else l for l in recent[-100:]]\n"
        "        win.append(loss)  # expect: TL202\n"
        "        win = [l for i, l in enumerate(win) if i % 2 == 0]\n"
        "        pairs.append(loss)  # expect: TL202\n"
        "        pairs = [[s, l] for s, l in zip(range(step), pairs[-100:])]\n"
        "        neg.append(loss)  # expect: TL202\n"
        "        neg = [-l for l in neg[-100:]]\n"
        "        seen.append(loss)  # expect: TL202\n"
        "        seen = list({l for l in seen if l < 10})\n"
        "        named.append(loss)  # expect: TL202\n"
        "        named = [(last := l) for l in named[-100:]]\n"
        "        print(recent, win, pairs, neg, seen, named, last)\n",
        # a handler that clears another list before `continue`: the losses are kept
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, seen = [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)  # expect: TL202\n"
        "        try:\n"
        "            log(len(losses))\n"
        "        except OSError:\n"
        "            seen.clear()\n"
        "            continue\n"
        "        losses.clear()\n",
        # a list rebuilt with the loss unpacked beside its old elements, a list kept in a dict
        # through `setdefault` (no fix: the list is stored in a display, the dict's item
        # is read by whatever reads the dict)
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, history = [], {}\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent = [*recent, loss]  # expect: TL202\n"
        "        history.setdefault(\"train\", []).append(loss)  # expect: TL202\n"
        "    print(len(recent), len(history))\n",
        # a tuple rebuilt with the loss beside a window of the old one, a set the losses are
        # added to: their fix detaches the element
        Example(
            "import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    window, seen = (), set()\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        window = (loss, *window[:99])  # expect: TL202\n"
            "        seen.add(loss)  # expect: TL202\n"
            "    print(len(window), len(seen))\n",
            fixed="import torch.nn.functional as F\n"
            "def train(model, loader, opt):\n"
            "    window, seen = (), set()\n"
            "    for x, y in loader:\n"
            "        loss = F.cross_entropy(model(x), y)\n"
            "        opt.zero_grad()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "        window = (loss.detach(), *window[:99])  # expect: TL202\n"
            "        seen.add(loss.detach())  # expect: TL202\n"
            "    print(len(window), len(seen))\n",
        ),
        # a total and a list kept in a dict under the key a variable holds
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, names):\n"
        "    totals, history = {n: 0.0 for n in names}, {}\n"
        "    for x, y, name in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        totals[name] += loss  # expect: TL202\n"
        "        history.setdefault(name, []).append(loss)  # expect: TL202\n"
        "    print(totals, len(history))\n",
        # an item set anew under one key, then added to under another: `key` is bound anew
        # between the reset and the add, so the item kept across iterations grows
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, keys):\n"
        "    totals = {}\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        key = keys[i]\n"
        "        totals[key] = 0.0\n"
        "        key = \"other\"\n"
        "        totals[key] += loss  # expect: TL202\n"
        "    print(totals)\n",
        # an override that a base class's loop runs (its line is reported)
        'import torch.nn.functional as F\n'
        'class Trainer:\n'
        '    def on_step_end(self, loss):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x, y in loader:\n'
        '            loss = F.cross_entropy(self.model(x), y)\n'
        '            self.optimizer.zero_grad()\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end(loss)\n'
        'class HistoryTrainer(Trainer):\n'
        '    def on_step_end(self, loss):\n'
        '        self.history.append(loss)  # expect: TL202\n',
        # the loop hands the hook the loss it back-propagates, in a slot before `*args`, and
        # takes its number only afterwards
        'import torch.nn.functional as F\n'
        'class Trainer:\n'
        '    def on_step_end(self, loss, *stats):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x, y in loader:\n'
        '            loss = F.cross_entropy(self.model(x), y)\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end(loss, *self.stats)\n'
        '            loss = loss.item()\n'
        '            print(loss)\n'
        'class HistoryTrainer(Trainer):\n'
        '    def on_step_end(self, loss, *stats):\n'
        '        self.history.append(loss)  # expect: TL202\n',
        # the file's only `record` is what the loop's call runs: that call is the one finding,
        # the override is not reported again as a hook the loop runs
        "import torch.nn as nn\n"
        "class Trainer(nn.Module):\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.opt.zero_grad()\n"
        "            loss = self(x).mean()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "            self.record(loss)  # expect: TL202\n"
        "class Net(Trainer):\n"
        "    def record(self, loss):\n"
        "        self.history.append(loss)\n",
        # a step's micro-batch losses, each back-propagated, in a list set anew every step: what
        # is built from it still outlives the step when an in-place op's result is kept
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts, history):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total = sum(losses)\n"
        "        history.append(total.div_(parts))\n",
        # ... when a differentiable collective's result (a tensor of the graph) is kept
        "import torch.distributed.nn\n"
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts, history):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        history.append(torch.distributed.nn.all_reduce(sum(losses)))\n",
        # ... when the list is read while it is filled, its last item kept
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts, history):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "            history.append(losses[-1])\n"
        "        optimizer.step()\n",
        # a step's micro-batch list set anew at the end of the step, after a `continue` that may skip
        # it: the skipped steps' losses stay in the list
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        if not all(torch.isfinite(l) for l in losses):\n"
        "            continue\n"
        "        optimizer.step()\n"
        "        print(sum(losses).item())\n"
        "        losses = []\n",
        # ... set anew only in one branch, every `log_every` steps: the graphs of those steps live until then
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts, log_every):\n"
        "    losses = []\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        if step % log_every == 0:\n"
        "            losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        print(sum(losses).item() / len(losses))\n",
        # ... set anew each step, but the step before's list kept under another name past that step
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        previous = losses\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        if previous:\n"
        "            print((sum(losses) - sum(previous)).item())\n",
        # ... an attribute set anew each step, read by another method that keeps its sum
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, criterion):\n"
        "        self.model, self.optimizer, self.criterion = model, optimizer, criterion\n"
        "        self.history = []\n"
        "    def train_epoch(self, loader, parts):\n"
        "        for x, y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.losses = []\n"
        "            for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "                loss = self.criterion(self.model(xc), yc)\n"
        "                self.losses.append(loss)  # expect: TL202\n"
        "                loss.backward()\n"
        "            self.optimizer.step()\n"
        "            self.on_step_end()\n"
        "    def on_step_end(self):\n"
        "        self.history.append(sum(self.losses))\n",
        # an epoch's losses in a list set anew every epoch: the loop over the batches steps through
        # a function it is handed, out of sight, and only the scheduler steps once per epoch
        "import torch\n"
        "def train(model, optimizer, scheduler, loader, criterion, epochs, update):\n"
        "    for epoch in range(epochs):\n"
        "        losses = []\n"
        "        for x, y in loader:\n"
        "            loss = criterion(model(x), y)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "            update(optimizer)\n"
        "        scheduler.step()\n"
        "        print(sum(losses).item())\n",
        # a step's micro-batch list set anew each step, but its sum carried from step to step in a total
        # under its own name: the total holds every step's graph
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total = total + sum(losses)\n"
        "        print(total.item())\n",
        # ... the total on the right of the sum
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total = sum(losses) + total\n",
        # ... the last micro-batch loss of each step carried in the total
        Example(
            "import torch\n"
            "def train(model, optimizer, loader, criterion, parts):\n"
            "    total = 0\n"
            "    for x, y in loader:\n"
            "        optimizer.zero_grad()\n"
            "        losses = []\n"
            "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
            "            loss = criterion(model(xc), yc)\n"
            "            losses.append(loss)  # expect: TL202\n"
            "            loss.backward()\n"
            "        optimizer.step()\n"
            "        total = total + losses[-1]\n",
            fixed="import torch\n"
            "def train(model, optimizer, loader, criterion, parts):\n"
            "    total = 0\n"
            "    for x, y in loader:\n"
            "        optimizer.zero_grad()\n"
            "        losses = []\n"
            "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
            "            loss = criterion(model(xc), yc)\n"
            "            losses.append(loss.detach())  # expect: TL202\n"
            "            loss.backward()\n"
            "        optimizer.step()\n"
            "        total = total + losses[-1]\n",
        ),
        # ... the largest sum so far kept: a call that may return the total it is given
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total = max(total, sum(losses))\n",
        # ... the total annotated
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total: float = total + sum(losses)\n",
        # ... the total carried only in one branch
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts, flag):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        if flag:\n"
        "            total = total + sum(losses)\n",
        # ... the sum bound first, then added to the total
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total = 0\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        s = sum(losses)\n"
        "        total = total + s\n",
        # ... the first step's last micro-batch loss kept for every later step
        Example(
            "import torch\n"
            "def train(model, optimizer, loader, criterion, parts):\n"
            "    last = None\n"
            "    for x, y in loader:\n"
            "        optimizer.zero_grad()\n"
            "        losses = []\n"
            "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
            "            loss = criterion(model(xc), yc)\n"
            "            losses.append(loss)  # expect: TL202\n"
            "            loss.backward()\n"
            "        optimizer.step()\n"
            "        last = losses[-1] if last is None else last\n"
            "        print(last.item())\n",
            fixed="import torch\n"
            "def train(model, optimizer, loader, criterion, parts):\n"
            "    last = None\n"
            "    for x, y in loader:\n"
            "        optimizer.zero_grad()\n"
            "        losses = []\n"
            "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
            "            loss = criterion(model(xc), yc)\n"
            "            losses.append(loss.detach())  # expect: TL202\n"
            "            loss.backward()\n"
            "        optimizer.step()\n"
            "        last = losses[-1] if last is None else last\n"
            "        print(last.item())\n",
        ),
        # an epoch's losses in a list set anew every epoch: the loop over the batches steps the optimizer
        # every `accum` batches, and once more after it for the last, partial accumulation
        "import torch\n"
        "def train(model, optimizer, loader, criterion, epochs, accum):\n"
        "    for epoch in range(epochs):\n"
        "        losses = []\n"
        "        for i, (x, y) in enumerate(loader):\n"
        "            loss = criterion(model(x), y) / accum\n"
        "            losses.append(loss)  # expect: TL202\n"
        "            loss.backward()\n"
        "            if (i + 1) % accum == 0:\n"
        "                optimizer.step()\n"
        "                optimizer.zero_grad()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        print(sum(losses).item() / len(losses))\n",
        # the list is set anew every step, but the loop over it keeps its last loss for the next step
        Example(
            "import torch\n"
            "def train(model, opt, loader):\n"
            "    last = None\n"
            "    for batch in loader:\n"
            "        if last is not None:\n"
            "            print(last.item())\n"
            "        losses = []\n"
            "        for micro in batch:\n"
            "            loss = model(micro).mean()\n"
            "            loss.backward()\n"
            "            losses.append(loss)  # expect: TL202\n"
            "        opt.step()\n"
            "        opt.zero_grad()\n"
            "        for l in losses:\n"
            "            last = l\n",
            fixed="import torch\n"
            "def train(model, opt, loader):\n"
            "    last = None\n"
            "    for batch in loader:\n"
            "        if last is not None:\n"
            "            print(last.item())\n"
            "        losses = []\n"
            "        for micro in batch:\n"
            "            loss = model(micro).mean()\n"
            "            loss.backward()\n"
            "            losses.append(loss.detach())  # expect: TL202\n"
            "        opt.step()\n"
            "        opt.zero_grad()\n"
            "        for l in losses:\n"
            "            last = l\n",
        ),
    )
    good = (
        # the list is a loss being built: a helper of the file back-propagates it
        "import torch\n"
        "def optimize(optimizer, losses):\n"
        "    optimizer.zero_grad()\n"
        "    torch.stack(losses).mean().backward()\n"
        "    optimizer.step()\n"
        "def train(model, loader, optimizer, k):\n"
        "    criterion = torch.nn.CrossEntropyLoss()\n"
        "    losses = []\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        losses.append(criterion(model(x), y))\n"
        "        if (i + 1) % k == 0:\n"
        "            optimize(optimizer, losses)\n"
        "            losses = []\n",
        # a mask the loss is weighted by is no loss: summing it keeps no graph
        "import torch\n"
        "kept = 0\n"
        "for x, y, mask in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    (loss * mask).sum().backward()\n"
        "    (loss_total * mask).backward()\n"
        "    kept += mask\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        # the number of a loss kept in an attribute
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        total = 0\n"
        "        for x in loader:\n"
        "            self.loss = self.model(x).sum()\n"
        "            total += self.loss.item()\n"
        "            self.loss.backward()\n"
        "            self.optimizer.step()\n"
        "        return total / len(loader)\n",
        # a running average of numbers; a product that is not the average kept
        "import torch\n"
        "def train(model, loader, opt, decay):\n"
        "    smooth = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        smooth = decay * smooth + (1 - decay) * loss.item()\n"
        "        scale = 0.5 * loss + 0.5 * loss\n"
        "    return smooth\n",
        # Hugging Face Accelerate: the loss back-propagated by the accelerator, summed detached
        "from accelerate import Accelerator\n"
        "accelerator = Accelerator()\n"
        "for epoch in range(epochs):\n"
        "    total_loss = 0\n"
        "    for batch in loader:\n"
        "        loss = model(**batch).loss\n"
        "        total_loss += loss.detach().float()\n"
        "        accelerator.backward(loss)\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # the evaluation's `loss` read from outputs made under no_grad, in the function
        # whose training loop back-propagates a `loss`
        "import torch\n"
        "def train(model, optimizer, accelerator, train_loader, eval_loader):\n"
        "    for batch in train_loader:\n"
        "        outputs = model(**batch)\n"
        "        loss = outputs.loss\n"
        "        accelerator.backward(loss)\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    losses = []\n"
        "    for batch in eval_loader:\n"
        "        with torch.no_grad():\n"
        "            outputs = model(**batch)\n"
        "        loss = outputs.loss\n"
        "        losses.append(loss)\n"
        "    for batch in eval_loader:\n"
        "        with torch.no_grad():\n"
        "            loss = model(**batch).loss\n"
        "        losses.append(loss)\n"
        "    return torch.stack(losses).mean()\n",
        # one loss built in a branch of the step, not a total
        "import torch.nn.functional as F\n"
        "for x, y in loader:\n"
        "    out = model(x)\n"
        "    if two_views:\n"
        "        a, b = out.chunk(2)\n"
        "        loss = 0.5 * F.cross_entropy(a, y)\n"
        "        loss = loss + 0.5 * F.cross_entropy(b, y)\n"
        "    else:\n"
        "        loss = F.cross_entropy(out, y)\n"
        "    loss_value = loss.item()\n"
        "    loss_scaler(loss, optimizer, parameters=model.parameters())\n",
        # gradient accumulation: the sum is what is back-propagated, every 4 batches
        "import torch.nn.functional as F\n"
        "def fit(net, batches, optim, accum=4):\n"
        "    total = 0\n"
        "    for i, (x, y) in enumerate(batches):\n"
        "        total = total + F.cross_entropy(net(x), y) / accum\n"
        "        if (i + 1) % accum == 0:\n"
        "            total.backward()\n"
        "            optim.step()\n"
        "            optim.zero_grad()\n"
        "            total = 0\n",
        # the chapter's template: the number, not the tensor
        "import torch\n"
        "def train_one_epoch(model, loader, criterion, optimizer):\n"
        "    total_loss = 0\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        total_loss += loss.item() * x.size(0)\n"
        "    return total_loss\n",
        # several terms summed into one step's loss
        "import torch.nn.functional as F\n"
        "for x, y in loader:\n"
        "    loss = F.cross_entropy(model(x), y)\n"
        "    loss = loss + aux_weight * aux_loss\n"
        "    loss.backward()\n",
        # an accumulator that is itself back-propagated (a multi-head loss)
        "from torch import nn\n"
        "crit = nn.MSELoss()\n"
        "for x, y in loader:\n"
        "    total = 0\n"
        "    for head in heads:\n"
        "        loss = crit(head(x), y)\n"
        "        total += loss\n"
        "    total.backward()\n",
        # already numbers: float(), detach(), and a helper's return value
        "import torch\n"
        "losses, total, seen = [], 0.0, 0.0\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    total += float(loss)\n"
        "    losses.append(loss.detach())\n"
        "    loss = loss.item()\n"
        "    seen += loss\n",
        # the name holds whatever `compute_loss` returns: nothing says it is a tensor
        "total_loss = 0\n"
        "for batch in loader:\n"
        "    loss = compute_loss(batch)\n"
        "    total_loss += loss\n",
        # a head's loss summed over levels and returned in a dict, for the caller to back-propagate
        "import torch.nn.functional as F\n"
        "class MaskHead:\n"
        "    def losses(self, preds, targets):\n"
        "        losses = {}\n"
        "        loss_mask = 0\n"
        "        for pred, target in zip(preds, targets):\n"
        "            loss_mask += F.binary_cross_entropy_with_logits(pred, target, reduction='sum')\n"
        "        losses['loss_mask'] = loss_mask / len(preds)\n"
        "        return losses\n",
        # losses kept on purpose, each back-propagated later through an Accelerator
        "import torch.nn.functional as F\n"
        "def accumulate_then_sync(accelerator, model, batches):\n"
        "    losses = []\n"
        "    for x, y in batches:\n"
        "        loss = F.mse_loss(model(x), y)\n"
        "        losses.append(loss)\n"
        "    for i in range(len(losses)):\n"
        "        loss = losses[i]\n"
        "        accelerator.backward(loss)\n",
        # reset inside the iteration: nothing outlives it
        "import torch\n"
        "for x, y in loader:\n"
        "    step_losses = []\n"
        "    loss = torch.nn.functional.l1_loss(model(x), y)\n"
        "    step_losses.append(loss)\n"
        "    torch.stack(step_losses).sum().backward()\n",
        # a project's own `criterion`: not a torch loss, never back-propagated here
        "def criterion(a, b):\n"
        "    return abs(a - b)\n"
        "errors = 0\n"
        "for a, b in pairs:\n"
        "    err = criterion(a, b)\n"
        "    errors += err\n",
        # helpers given numbers, or keeping the tensor only for this call
        "import torch\n"
        "class AverageMeter:\n"
        "    def update(self, val, n=1):\n"
        "        self.sum += val * n\n"
        "def mean_of(values):\n"
        "    kept = []\n"
        "    for v in values:\n"
        "        kept.append(v)\n"
        "    return sum(kept) / len(kept)\n"
        "def train(model, loader, opt):\n"
        "    meter = AverageMeter()\n"
        "    for x, y in loader:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        meter.update(loss.item(), x.size(0))\n"
        "        print(mean_of([loss]))\n",
        # a meter that takes the tensor and keeps only its numbers
        "import torch\n"
        "class Averager:\n"
        "    def add(self, v):\n"
        "        count = v.data.numel()\n"
        "        v = v.data.sum()\n"
        "        self.n_count += count\n"
        "        self.sum += v\n"
        "    def add_item(self, loss):\n"
        "        loss = loss.item()\n"
        "        self.history.append(loss)\n"
        "def train(model, loader, opt):\n"
        "    averager = Averager()\n"
        "    for x, y in loader:\n"
        "        cost = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        model.zero_grad()\n"
        "        cost.backward()\n"
        "        opt.step()\n"
        "        averager.add(cost)\n"
        "        averager.add_item(cost)\n",
        # a step function that returns the number
        "def train_step(model, batch, opt):\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss.item()\n"
        "def train(model, loader, opt):\n"
        "    total = 0\n"
        "    for batch in loader:\n"
        "        total += train_step(model, batch, opt)\n",
        # terms of the loss read as numbers, or computed without a graph
        "import torch\n"
        "def train(model, teacher, loader, opt):\n"
        "    task_total, distill_total = 0.0, 0.0\n"
        "    for x, y in loader:\n"
        "        with torch.no_grad():\n"
        "            distill_loss = teacher(x).mean()\n"
        "        task_loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        loss = task_loss + 0.1 * distill_loss\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        task_total += task_loss.item()\n"
        "        distill_total += distill_loss\n",
        # losses kept to be differentiated once more, by `torch.autograd`: a loss being
        # built, as for `.backward()`
        "import torch\n"
        "losses, total = [], 0\n"
        "for x, y in loader:\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    loss.backward(retain_graph=True)\n"
        "    losses.append(loss)\n"
        "    total += loss\n"
        "grads = torch.autograd.grad(torch.stack(losses).sum(), model.weight)\n"
        "torch.autograd.backward(tensors=total)\n",
        # the same methods after the graph is dropped
        "import torch\n"
        "total_loss, history = 0.0, []\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    total_loss += loss.detach().float()\n"
        "    history.append(loss.float().item())\n"
        "print(total_loss, history)\n",
        # the loss read into a number in a tuple assignment (SlowFast's
        # `loss, grad_norm = (loss.item(), grad_norm.item())`)
        "import torch\n"
        "total = 0.0\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    loss, n = loss.item(), x.size(0)\n"
        "    total += loss * n\n",
        # a swap reads both values before binding either: `b` gets the old `a`, a number
        "import torch\n"
        "a, b, total = 0.0, 0.0, 0.0\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    a, b = 0.0, loss\n"
        "    a, b = b, a\n"
        "    total += b\n",
        # the history is made anew every iteration, or holds numbers
        "import torch\n"
        "def fit(model, loader, optimizer, history, logger):\n"
        "    for x, y in loader:\n"
        "        step = {'loss': []}\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        step['loss'].append(loss)\n"
        "        history['loss'].append(loss.item())\n"
        "        logger.log(step)\n",
        # the list summed into the loss that is back-propagated after it
        "import torch\n"
        "def train_step(model, optimizer, criterion, chunks):\n"
        "    losses = []\n"
        "    for x, y in chunks:\n"
        "        losses.append(criterion(model(x), y))\n"
        "    loss = sum(losses) / len(losses)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        # the backward in a function defined before the sum and called after it
        "import torch\n"
        "def train_step(model, optimizer, chunks):\n"
        "    def apply():\n"
        "        optimizer.zero_grad()\n"
        "        total.backward()\n"
        "        optimizer.step()\n"
        "    losses = []\n"
        "    for x, y in chunks:\n"
        "        losses.append(torch.nn.functional.mse_loss(model(x), y))\n"
        "    total = torch.stack(losses).mean()\n"
        "    apply()\n"
        "    return total.item()\n",
        # an evaluation function called under `no_grad` / `inference_mode` at every call site
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def evaluate(model, loader):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        total += loss\n"
        "    print(f\"validation loss {total / len(loader):.4f}\")\n"
        "def fit(model, train_loader, val_loader, optimizer, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in train_loader:\n"
        "            optimizer.zero_grad()\n"
        "            F.cross_entropy(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        with torch.no_grad():\n"
        "            evaluate(model, val_loader)\n"
        "    with torch.inference_mode():\n"
        "        evaluate(model, val_loader)\n",
        # a dict made anew every iteration, another key's value read, numbers added
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    logs = {\"loss\": 0.0, \"detached\": 0.0}\n"
        "    for x in loader:\n"
        "        step = {}\n"
        "        optimizer.zero_grad()\n"
        "        loss = model(x).pow(2).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        step[\"loss\"] = step.get(\"loss\", 0.0) + loss\n"
        "        logs[\"last\"] = logs[\"loss\"] + loss\n"
        "        logs[\"loss\"] = logs.get(\"loss\", 0.0) + loss.item()\n"
        "        logs[\"detached\"] = logs[\"detached\"] + loss.detach()\n"
        "        print(step)\n"
        "    return logs\n",
        # per-step methods whose attributes are reset on every call, or hold numbers, or
        # are reset by a method every iteration calls; a loss built across calls and
        # back-propagated by the loop's method; a method called outside any loop
        "import torch\n"
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer, loader):\n"
        "        self.model, self.optimizer, self.loader = model, optimizer, loader\n"
        "        self.total = self.step_loss = self.numbers = self.logged = self.once = 0.0\n"
        "        self.loss_sum = 0.0\n"
        "    def _train_step(self, x, y):\n"
        "        self.step_loss = 0.0\n"
        "        loss = F.mse_loss(self.model(x), y)\n"
        "        self.step_loss += loss\n"
        "        self.numbers += loss.item()\n"
        "        self.logged += loss\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def _log(self):\n"
        "        print(self.logged)\n"
        "        self.logged = 0.0\n"
        "    def _accumulate(self, x, y):\n"
        "        self.loss_sum += F.mse_loss(self.model(x), y)\n"
        "    def fit(self):\n"
        "        for x, y in self.loader:\n"
        "            self._train_step(x, y)\n"
        "            self._log()\n"
        "        self.loss_sum = 0.0\n"
        "        for x, y in self.loader:\n"
        "            self._accumulate(x, y)\n"
        "        self.optimizer.zero_grad()\n"
        "        self.loss_sum.backward()\n"
        "        self.optimizer.step()\n"
        "        self.finetune_once(*next(iter(self.loader)))\n"
        "    def finetune_once(self, x, y):\n"
        "        loss = F.mse_loss(self.model(x), y)\n"
        "        self.once += loss\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n",
        # the weight of a term added to the loss is no loss; the term read as a number
        "import torch.nn.functional as F\n"
        "def train(model, disc, loader, optimizer, lambda_adv):\n"
        "    weights, adv_total = 0.0, 0.0\n"
        "    for x, y in loader:\n"
        "        fake = model(x)\n"
        "        gen_loss = F.l1_loss(fake, y)\n"
        "        adv_loss = -disc(fake).mean()\n"
        "        gen_loss += lambda_adv * adv_loss\n"
        "        weights += lambda_adv\n"
        "        adv_total += adv_loss.item()\n"
        "        optimizer.zero_grad()\n"
        "        gen_loss.backward()\n"
        "        optimizer.step()\n"
        "    return weights, adv_total\n",
        # ... the total set anew through the trainer before each step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def train_step(self, x, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        self.total += loss\n"
        "    def reset(self):\n"
        "        self.total = 0.0\n"
        "def main(model, optimizer, loader):\n"
        "    trainer = Trainer(model, optimizer)\n"
        "    for x, y in loader:\n"
        "        trainer.total = 0.0\n"
        "        trainer.train_step(x, y)\n"
        "        print(trainer.total.item())\n",
        # ... or by a method of the trainer the iteration calls
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def train_step(self, x, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        self.total += loss\n"
        "    def reset(self):\n"
        "        self.total = 0.0\n"
        "def main(model, optimizer, loader):\n"
        "    trainer = Trainer(model, optimizer)\n"
        "    for x, y in loader:\n"
        "        trainer.train_step(x, y)\n"
        "        print(trainer.total.item())\n"
        "        trainer.reset()\n",
        # ... or by the constructor of a trainer built for each batch
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.total = 0.0\n"
        "    def train_step(self, x, y):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        self.total += loss\n"
        "    def reset(self):\n"
        "        self.total = 0.0\n"
        "def main(model, optimizer, loader):\n"
        "    for x, y in loader:\n"
        "        trainer = Trainer(model, optimizer)\n"
        "        trainer.train_step(x, y)\n"
        "        print(trainer.total.item())\n",
        # the terms of a loss being built in a loop within one training iteration, kept in a list the iteration sets anew (PPLM's bag-of-words losses)
        "import torch\n"
        "def perturb(model, xs, bows, iterations):\n"
        "    for i in range(iterations):\n"
        "        probs = model(xs)\n"
        "        loss = 0.0\n"
        "        loss_list = []\n"
        "        for bow in bows:\n"
        "            bow_loss = -torch.log((probs * bow).sum())\n"
        "            loss += bow_loss\n"
        "            loss_list.append(bow_loss)\n"
        "        loss.backward()\n",
        # a sum of losses over micro-batches that apex then back-propagates: a loss being built
        "import torch.nn.functional as F\n"
        "from apex import amp\n"
        "def train(model, loader, optimizer, accum):\n"
        "    total = 0.0\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        total += F.cross_entropy(model(x), y)\n"
        "        if i % accum == accum - 1:\n"
        "            with amp.scale_loss(total, optimizer) as scaled_loss:\n"
        "                scaled_loss.backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "            total = 0.0\n",
        # the step hands its loss to the method that back-propagates it, then returns a number
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "    def optimize(self, loss):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "    def step(self, batch):\n"
        "        loss = self.model(batch).mean()\n"
        "        self.optimize(loss)\n"
        "        loss = loss.item()\n"
        "        return loss\n"
        "    def log_step(self, batch):\n"
        "        loss = self.model(batch).mean()\n"
        "        self.optimize(loss)\n"
        "        return loss.detach()\n"
        "def train(model, optimizer, loader):\n"
        "    trainer = Trainer(model, optimizer)\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += trainer.step(batch) + trainer.log_step(batch)\n"
        "    return total\n",
        # the loss set anew at the start of each iteration, summed over the heads, back-propagated once
        "import torch\n"
        "criterion = torch.nn.MSELoss()\n"
        "def train(model, heads, loader, optimizer, multi_head):\n"
        "    for x, y in loader:\n"
        "        loss = 0\n"
        "        optimizer.zero_grad()\n"
        "        if multi_head:\n"
        "            for head in heads:\n"
        "                loss = loss + criterion(head(model(x)), y)\n"
        "        else:\n"
        "            loss = criterion(model(x), y)\n"
        "        loss.mean().backward()\n"
        "        optimizer.step()\n",
        # gradient accumulation: the total is set anew right after each backward of it
        "import torch\n"
        "criterion = torch.nn.MSELoss()\n"
        "def train(model, loader, optimizer, accum):\n"
        "    loss = 0\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        loss = loss + criterion(model(x), y)\n"
        "        if (step + 1) % accum == 0:\n"
        "            loss.mean().backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "            loss = 0\n",
        # a tensor total added to in place with the loss's number, or a tensor without its graph
        "import torch\n"
        "def train(model, loader, optimizer, criterion):\n"
        "    total_loss = torch.zeros(())\n"
        "    last = torch.zeros(())\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        total_loss.add_(loss.detach())\n"
        "        last.add_(loss.item())\n"
        "    return total_loss.item() / len(loader), last.item()\n",
        # a step reached through a variable that returns the number, or that may not be the
        # step returning the loss: a dict changed after it is written, a key no item has
        # alone, a partial rebound, an attribute assigned two functions, a parameter
        "import functools\n"
        "def train_step(model, opt, batch):\n"
        "    opt.zero_grad()\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def logged_step(model, opt, batch):\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss.item()\n"
        "def train(model, opt, loader, mode, fallback, step_fn=None):\n"
        "    logged = functools.partial(logged_step, model, opt)\n"
        "    changed = {\"train\": train_step}\n"
        "    changed[\"log\"] = logged_step\n"
        "    either = {\"train\": train_step, \"log\": logged_step}\n"
        "    step = functools.partial(train_step, model, opt)\n"
        "    if fallback:\n"
        "        step = functools.partial(logged_step, model, opt)\n"
        "    if step_fn is None:\n"
        "        step_fn = train_step\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += logged(batch)\n"
        "        total += changed[mode](model, opt, batch)\n"
        "        total += either[mode](model, opt, batch)\n"
        "        total += either[\"log\"](model, opt, batch)\n"
        "        total += step(batch)\n"
        "        total += step_fn(model, opt, batch)\n"
        "    print(total)\n",
        "class Trainer:\n"
        "    def __init__(self, model, opt, logging):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.step_fn = self.train_step\n"
        "        if logging:\n"
        "            self.step_fn = self.logged_step\n"
        "    def train_step(self, batch):\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        return loss\n"
        "    def logged_step(self, batch):\n"
        "        return self.train_step(batch).item()\n"
        "    def fit(self, loader):\n"
        "        total = 0.0\n"
        "        for batch in loader:\n"
        "            total += self.step_fn(batch)\n"
        "        print(total)\n",
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.step_fn = self.train_step\n"
        "    def train_step(self, batch):\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        return loss\n"
        "    def fit(self, loader):\n"
        "        total = 0.0\n"
        "        for batch in loader:\n"
        "            total += self.step_fn(batch)\n"
        "        print(total)\n"
        "def logged_step(batch):\n"
        "    return 0.0\n"
        "def main(model, opt, loader):\n"
        "    trainer = Trainer(model, opt)\n"
        "    trainer.step_fn = logged_step\n"
        "    trainer.fit(loader)\n",
        # the items of a step's tuple or dict that hold no graph, or the loss's number read
        # before it is summed
        "def train_step(model, opt, batch):\n"
        "    out = model(batch)\n"
        "    loss = out.sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss, loss.item(), {\"loss\": loss.detach()}\n"
        "def step_logs(model, opt, batch):\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return {\"loss\": loss, \"value\": loss.item()}\n"
        "def train(model, opt, loader):\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        loss, value, logs = train_step(model, opt, batch)\n"
        "        total += value\n"
        "        total += logs[\"loss\"]\n"
        "        total += train_step(model, opt, batch)[1]\n"
        "        out = step_logs(model, opt, batch)\n"
        "        total += out[\"value\"]\n"
        "        out[\"loss\"] = out[\"loss\"].item()\n"
        "        total += out[\"loss\"]\n"
        "        out = step_logs(model, opt, batch)[\"value\"]\n"
        "        total += out\n"
        "    print(total)\n",
        # a variable once assigned the step returning the loss, then rebound by a loop or a
        # `with` to steps that return its number
        "import functools\n"
        "def train_step(model, opt, batch):\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def logged_step(model, opt, batch):\n"
        "    return train_step(model, opt, batch).item()\n"
        "def train(model, opt, loader, stepper):\n"
        "    step = functools.partial(train_step, model, opt)\n"
        "    total = 0.0\n"
        "    for step in (functools.partial(logged_step, model, opt),):\n"
        "        for batch in loader:\n"
        "            total += step(batch)\n"
        "    held = functools.partial(train_step, model, opt)\n"
        "    with stepper(model, opt) as held:\n"
        "        for batch in loader:\n"
        "            total += held(batch)\n"
        "    print(total)\n",
        # a dict's `.get` with a default step returning the number, a trainer's dict of steps
        # replaced through the instance
        "def train_step(model, opt, batch):\n"
        "    opt.zero_grad()\n"
        "    loss = model(batch).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return loss\n"
        "def logged_step(model, opt, batch):\n"
        "    return train_step(model, opt, batch).item()\n"
        "def train(model, opt, loader, mode):\n"
        "    steps = {\"train\": train_step}\n"
        "    total = 0.0\n"
        "    for batch in loader:\n"
        "        total += steps.get(mode, logged_step)(model, opt, batch)\n"
        "    print(total)\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.steps = {\"train\": self.train_step}\n"
        "    def train_step(self, batch):\n"
        "        self.opt.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        return loss\n"
        "    def logged_step(self, batch):\n"
        "        return self.train_step(batch).item()\n"
        "    def fit(self, loader, mode):\n"
        "        total = 0.0\n"
        "        for batch in loader:\n"
        "            total += self.steps[mode](batch)\n"
        "            total += self.steps.get(\"train\")(batch)\n"
        "        print(total)\n"
        "def main(model, opt, loader):\n"
        "    trainer = Trainer(model, opt)\n"
        "    trainer.steps = {\"train\": trainer.logged_step}\n"
        "    trainer.fit(loader, \"train\")\n",
        # the named tuple of statistics holds the loss detached: no graph is kept
        "from typing import NamedTuple\n"
        "import torch\n"
        "class PPOStats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    policy_loss: torch.Tensor\n"
        "    approx_kl: torch.Tensor\n"
        "class Recipe:\n"
        "    def ppo_step(self, batch):\n"
        "        loss, policy_loss = self.loss_fn(self.policy(batch), batch)\n"
        "        loss.backward()\n"
        "        with torch.no_grad():\n"
        "            approx_kl = (self.policy(batch) - batch).pow(2).mean()\n"
        "        return PPOStats(loss.detach(), policy_loss.detach(), approx_kl=approx_kl)\n"
        "    def train(self, batches, ppo_epochs):\n"
        "        for _ in range(ppo_epochs):\n"
        "            stats = []\n"
        "            for batch in batches:\n"
        "                stats.append(self.ppo_step(batch))\n"
        "                self.optimizer.step()\n"
        "                self.optimizer.zero_grad()\n"
        "            self.log(PPOStats(*map(torch.stack, zip(*stats))))\n",
        # a field that holds the loss detached or as a number, another field than the loss's,
        # the loss's field read as a number, and a plain class or a dataclass with a `loss`
        "import dataclasses\n"
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "class Plain:\n"
        "    def __init__(self, loss, kl):\n"
        "        self.loss = loss\n"
        "        self.kl = kl\n"
        "@dataclasses.dataclass\n"
        "class Record:\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "def train_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    return Stats(loss, kl)\n"
        "def detached_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Stats(loss=loss.detach(), kl=kl)\n"
        "def number_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Stats(loss.item(), kl)\n"
        "def plain_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Plain(loss, kl)\n"
        "def record_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Record(loss=loss.detach(), kl=kl)\n"
        "def train(model, opt, loader):\n"
        "    history, total = [], 0.0\n"
        "    for batch in loader:\n"
        "        stats = train_step(model, opt, batch)\n"
        "        history.append(stats.kl)\n"
        "        total += stats.loss.item()\n"
        "        total += train_step(model, opt, batch).kl\n"
        "        history.append(detached_step(model, opt, batch).loss)\n"
        "        total += number_step(model, opt, batch).loss\n"
        "        history.append(plain_step(model, opt, batch).loss)\n"
        "        record = record_step(model, opt, batch)\n"
        "        total += record.loss\n"
        "    print(history, total)\n",
        # read through a loop variable: a field that holds no graph, the loss's field as a
        # number, a plain class, a comprehension's own `loss` (not the one outside it), a
        # total set anew each iteration, and a sum after training, in a loop of its own
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "class Plain:\n"
        "    def __init__(self, loss, kl):\n"
        "        self.loss = loss\n"
        "        self.kl = kl\n"
        "def train_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Stats(loss, kl.detach())\n"
        "def plain_step(model, opt, batch):\n"
        "    loss, kl = model(batch)\n"
        "    loss.backward()\n"
        "    return Plain(loss, kl)\n"
        "def train(model, opt, loader, logged):\n"
        "    total, history = 0.0, []\n"
        "    for batch in loader:\n"
        "        stats = [train_step(model, opt, mb) for mb in batch.split(4)]\n"
        "        plain = [plain_step(model, opt, mb) for mb in batch.split(4)]\n"
        "        loss = train_step(model, opt, batch).loss\n"
        "        opt.step()\n"
        "        total += sum(s.kl for s in stats)\n"
        "        total += sum(s.loss.item() for s in stats)\n"
        "        total += sum(p.loss for p in plain)\n"
        "        total += sum(loss for loss in logged)\n"
        "        step_loss = 0.0\n"
        "        for s in stats:\n"
        "            step_loss += s.loss\n"
        "            total += s.loss.item()\n"
        "        history.append(step_loss.item())\n"
        "    last = [train_step(model, opt, mb) for mb in loader]\n"
        "    final = 0.0\n"
        "    for s in last:\n"
        "        final += s.loss\n"
        "    print(total, history, final)\n",
        # the step method called on its class returns the loss's number
        "class Trainer:\n"
        "    def train_step(self, batch):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        return loss.item()\n"
        "    def fit(self, loader):\n"
        "        total = 0\n"
        "        for batch in loader:\n"
        "            total += Trainer.train_step(self, batch)\n"
        "        return total\n",
        # a step method called on its class, the class's name bound again to what a decorator
        # made of it: `Trainer.train_step` may no longer be the method above
        "class Trainer:\n"
        "    def train_step(self, batch):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss = self.model(batch).sum()\n"
        "        loss.backward()\n"
        "        self.optimizer.step()\n"
        "        return loss\n"
        "    def fit(self, loader):\n"
        "        total = 0\n"
        "        for batch in loader:\n"
        "            total += Trainer.train_step(self, batch)\n"
        "        return total\n"
        "Trainer = traced(Trainer)\n",
        # a list given the loss's number (`[loss.item()]`, `loss.tolist()`), a list of
        # what cannot be told (a parameter, one built once before the loop), a loss
        # being built from a list (`terms += [aux]`, then back-propagated), and a list
        # filled once, outside any loop
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, logged, x0, y0):\n"
        "    numbers, values, seen, history = [], [], [], []\n"
        "    warmup = [F.cross_entropy(model(x0), y0)]\n"
        "    first = []\n"
        "    first.extend([F.cross_entropy(model(x0), y0)])\n"
        "    for x, y in loader:\n"
        "        out = model(x)\n"
        "        loss = F.cross_entropy(out, y)\n"
        "        terms = [loss]\n"
        "        terms += [out.pow(2).mean()]\n"
        "        opt.zero_grad()\n"
        "        sum(terms).backward()\n"
        "        opt.step()\n"
        "        numbers.extend([loss.item()])\n"
        "        numbers += [loss.item()]\n"
        "        values.extend(loss.tolist())\n"
        "        seen.extend(logged)\n"
        "        history.extend(warmup)\n"
        "        history.insert(0, float(loss))\n"
        "    print(len(numbers), len(values), len(seen), len(history), len(first))\n",
        # a list emptied every iteration (`.clear()`, `del losses[:]`), also at the start of a
        # step method the loop calls: it holds the graph of one step only
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.step_losses = []\n"
        "    def training_step(self, x, y):\n"
        "        self.step_losses.clear()\n"
        "        loss = F.cross_entropy(self.model(x), y)\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        self.step_losses.append(loss)\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.training_step(x, y)\n"
        "            print(self.step_losses)\n"
        "def train(model, loader, opt):\n"
        "    losses, parts = [], []\n"
        "    for x, y in loader:\n"
        "        losses.clear()\n"
        "        del parts[:]\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        parts.extend([loss])\n"
        "        print(losses, parts)\n",
        # a window rebuilt from numbers every iteration: the loss it was given is gone
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent = []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)\n"
        "        recent = [float(l) for l in recent[-100:]]\n"
        "        print(sum(recent) / len(recent))\n",
        # a reset method called on every iteration, before the step: one step's graph at a time
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.losses, self.total = [], 0.0\n"
        "    def reset(self):\n"
        "        self.losses.clear()\n"
        "        self.total = 0.0\n"
        "    def step(self, x, y):\n"
        "        loss = F.cross_entropy(self.model(x), y)\n"
        "        self.opt.zero_grad()\n"
        "        loss.backward()\n"
        "        self.opt.step()\n"
        "        self.losses.append(loss)\n"
        "        self.total += loss\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.reset()\n"
        "            self.step(x, y)\n"
        "            print(self.total, len(self.losses))\n",
        # the `continue` belongs to the loop over the parameters, or comes after the reset:
        # every iteration of the training loop reaches the reset
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    losses, total = [], 0.0\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        for p in model.parameters():\n"
        "            if p.grad is None:\n"
        "                continue\n"
        "            p.grad.clamp_(-1, 1)\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        total = total + loss\n"
        "        print(total, len(losses))\n"
        "        losses.clear()\n"
        "        total = 0.0\n"
        "        if loss > 10:\n"
        "            continue\n"
        "        print(loss.item())\n"
        "    return losses, total\n",
        # a window rebuilt of numbers, or grown by a number: no graph in it
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, last = [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)\n"
        "        recent = [l.item() for l in recent[-100:]] if recent else []\n"
        "        last = last[-99:] + [loss.item()]\n"
        "        print(sum(recent) / len(recent), sum(last) / len(last))\n",
        # a function whose first parameter is called `self` but is handed a new run each
        # iteration, never a method's instance: the sum goes with the run
        "import torch\n"
        "class Run:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer, self.total = model, optimizer, 0.0\n"
        "def train_step(self, x, y):\n"
        "    loss = torch.nn.functional.mse_loss(self.model(x), y)\n"
        "    self.total += loss\n"
        "    self.optimizer.zero_grad()\n"
        "    loss.backward()\n"
        "    self.optimizer.step()\n"
        "    return self.total.item()\n"
        "def fit(model, optimizer, loader):\n"
        "    for x, y in loader:\n"
        "        print(train_step(Run(model, optimizer), x, y))\n",
        # two lists emptied by one `del` each iteration: one step's graph at a time
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    losses, scaled = [], []\n"
        "    for x, y in loader:\n"
        "        del losses[:], scaled[:]\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        scaled.append(loss * 2)\n"
        "        print(sum(losses), sum(scaled))\n",
        # the helper (or method) sums the loss into the object it is handed (or runs on), a new
        # one at each iteration
        "import torch.nn.functional as F\n"
        "class Tally:\n"
        "    def __init__(self):\n"
        "        self.total = 0\n"
        "    def add(self, loss):\n"
        "        self.total += loss\n"
        "def add_loss(self, loss):\n"
        "    self.total += loss\n"
        "    return self\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        tally = add_loss(Tally(), loss)\n"
        "        add_loss(Tally(), loss)\n"
        "        Tally().add(loss)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        print(tally.total)\n",
        # a window rebuilt of detached losses, of numbers, or of something else than the
        # losses (their positions): no graph is left in it
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, window, last, steps = [], [], [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)\n"
        "        recent = [l.detach() for l in recent[-100:]]\n"
        "        window.append(loss)\n"
        "        window = [x.item() for x in window if x < 10]\n"
        "        last.append(loss)\n"
        "        last = [0.0 for _ in last]\n"
        "        steps.append(loss)\n"
        "        steps = [i for i, _ in enumerate(steps)]\n"
        "        print(sum(recent) / len(recent), len(window), sum(last), steps)\n",
        # a reset that every iteration reaches: first in its `try`, in a `try` whose
        # handlers re-raise, break out of the loop or exit, or in a `finally:`
        "import sys\n"
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, total, kept, last = [], 0.0, [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        total = total + loss\n"
        "        kept.append(loss)\n"
        "        last.append(loss)\n"
        "        try:\n"
        "            last.clear()\n"
        "            log(len(last))\n"
        "        except OSError:\n"
        "            pass\n"
        "        try:\n"
        "            log(total, len(losses))\n"
        "            losses.clear()\n"
        "            total = 0.0\n"
        "        except RuntimeError:\n"
        "            raise\n"
        "        except KeyboardInterrupt:\n"
        "            break\n"
        "        except ValueError:\n"
        "            sys.exit(1)\n"
        "        try:\n"
        "            log(len(kept))\n"
        "        except OSError:\n"
        "            continue\n"
        "        finally:\n"
        "            kept.clear()\n"
        "    return losses, total, kept, last\n",
        # a reset in a `try` (or its `else:`) before the accumulation, whose handler goes on
        # only with the next iteration: an iteration that skips the reset adds nothing
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, steps):\n"
        "    losses, total, batches = [], 0.0, iter(loader)\n"
        "    for _ in range(steps):\n"
        "        try:\n"
        "            x, y = next(batches)\n"
        "            losses.clear()\n"
        "        except StopIteration:\n"
        "            batches = iter(loader)\n"
        "            continue\n"
        "        else:\n"
        "            total = 0.0\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        total = total + loss\n"
        "        print(total, len(losses))\n",
        # a reset in a `try` whose handlers leave by every arm (re-raise, raise anew, end the
        # program), or end in code the linter cannot follow (a `try` that re-raises in `finally:`)
        "import os\n"
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, kept, last = [], [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        kept.append(loss)\n"
        "        last.append(loss)\n"
        "        try:\n"
        "            log(len(losses))\n"
        "            losses.clear()\n"
        "        except OSError as e:\n"
        "            if 'disk' in str(e):\n"
        "                raise\n"
        "            else:\n"
        "                raise RuntimeError('cannot log') from e\n"
        "        try:\n"
        "            log(len(kept))\n"
        "            kept.clear()\n"
        "        except OSError:\n"
        "            log.exception('cannot log')\n"
        "            os.abort()\n"
        "        try:\n"
        "            log(len(last))\n"
        "            last.clear()\n"
        "        except OSError:\n"
        "            try:\n"
        "                log.close()\n"
        "            finally:\n"
        "                raise\n",
        # a reset in a `try` after code that cannot raise (another reset, a constant):
        # every iteration reaches it
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses, total = [], 0.0\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        total = total + loss\n"
        "        log(total, len(losses))\n"
        "        try:\n"
        "            losses.clear()\n"
        "            total = 0.0\n"
        "        except Exception:\n"
        "            pass\n",
        # a reset in an `except*` group's `try` before the accumulation, whose handler
        # re-raises: an iteration that skips it (`continue`, an error) adds nothing
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, log):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        if x is None:\n"
        "            continue\n"
        "        try:\n"
        "            log(len(losses))\n"
        "            losses.clear()\n"
        "        except* OSError as group:\n"
        "            log(group.exceptions)\n"
        "            raise\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n",
        # a window rebuilt of what a later `for` binds anew (`for v in v.view(-1).tolist()`),
        # or of the positions `enumerate` gives: no graph is left in it
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, win = [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)\n"
        "        recent = [v for v in recent[-100:] for v in v.view(-1).tolist()]\n"
        "        win.append(loss)\n"
        "        win = [i for i, l in enumerate(win) if l < 10]\n"
        "        print(sum(recent), win)\n",
        # a reset method whose handler resets as well before it returns, one whose handler
        # resets and returns before the reset after its `try`, and a loop whose handler
        # resets before `continue`: every path clears the list
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, log):\n"
        "        self.model, self.opt, self.log = model, opt, log\n"
        "        self.losses, self.window = [], []\n"
        "    def flush(self):\n"
        "        try:\n"
        "            self.log(len(self.losses))\n"
        "            self.losses.clear()\n"
        "        except OSError:\n"
        "            self.losses.clear()\n"
        "            return\n"
        "    def roll(self):\n"
        "        try:\n"
        "            self.log(len(self.window))\n"
        "        except OSError:\n"
        "            self.window.clear()\n"
        "            return\n"
        "        self.window.clear()\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            loss = F.cross_entropy(self.model(x), y)\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()\n"
        "            self.opt.step()\n"
        "            self.losses.append(loss)\n"
        "            self.window.append(loss)\n"
        "            self.flush()\n"
        "            self.roll()\n"
        "def train(model, loader, opt, log):\n"
        "    losses = []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        losses.append(loss)\n"
        "        try:\n"
        "            log(len(losses))\n"
        "        except OSError:\n"
        "            losses.clear()\n"
        "            continue\n"
        "        losses.clear()\n",
        # a window made numbers where its elements are tensors (`l.item()` on the arm
        # tensors take): the arm that keeps `l` holds no graph
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    recent, window = [], []\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent.append(loss)\n"
        "        recent = [l.item() if torch.is_tensor(l) else l for l in recent[-100:]]\n"
        "        window.append(loss)\n"
        "        window = [l if isinstance(l, float) else l.item() for l in window[-100:]]\n"
        "        print(recent, window)\n",
        # the same forms given numbers or detached tensors, set anew on every iteration, or
        # made within one iteration; `add` of an object that is no set is not read
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, meter):\n"
        "    recent, seen, history, kept, unique = [], set(), {}, [], set()\n"
        "    for x, y in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        recent = [*recent, loss.item()]\n"
        "        seen.add(loss.detach())\n"
        "        history.setdefault(\"train\", []).append(float(loss))\n"
        "        meter.add(loss)\n"
        "        kept = [*kept, loss]\n"
        "        unique.add(loss)\n"
        "        step, parts, logs = [], set(), {}\n"
        "        step = [*step, loss]\n"
        "        parts.add(loss)\n"
        "        logs.setdefault(\"train\", []).append(loss)\n"
        "        print(len(kept), len(unique), len(step), len(parts), len(logs))\n"
        "        kept = []\n"
        "        unique.clear()\n"
        "    return recent, seen, history\n",
        # the same under a variable key: numbers, set anew for the key before it is added to,
        # a dict made anew on every iteration
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt):\n"
        "    totals, history, kept = {}, {}, {}\n"
        "    for x, y, name in loader:\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        kept[name] = kept.get(name, 0.0) + loss.item()\n"
        "        totals[name] = 0.0\n"
        "        totals[name] += loss\n"
        "        history[name] = []\n"
        "        history.setdefault(name, []).append(loss)\n"
        "        step = {}\n"
        "        step[name] = step.get(name, 0.0) + loss\n"
        "        print(totals, len(history), step)\n"
        "    return kept\n",
        # the key bound anew before the reset, not between it and the add; and an item
        # reset after the add under the same key, before the loop's next key
        "import torch.nn.functional as F\n"
        "def train(model, loader, opt, keys):\n"
        "    totals, window = {}, {}\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = F.cross_entropy(model(x), y)\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        key = keys[i]\n"
        "        key = \"other\" if key is None else key\n"
        "        totals[key] = 0.0\n"
        "        totals[key] += loss\n"
        "        window[key] = window.get(key, 0.0) + loss\n"
        "        print(totals, window)\n"
        "        window[key] = 0.0\n",
        # overrides of a base class's hooks that do it right, or that the loop runs now and then or by name
        'import torch.nn.functional as F\n'
        'class Trainer:\n'
        '    def on_step_end(self, loss):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x, y in loader:\n'
        '            loss = F.cross_entropy(self.model(x), y)\n'
        '            self.optimizer.zero_grad()\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end(loss)\n'
        '            getattr(self, "on_" + self.event)(loss)\n'
        'class HistoryTrainer(Trainer):\n'
        '    def on_step_end(self, loss):\n'
        '        self.history.append(loss.detach())\n'
        '    def on_batch(self, loss):\n'
        '        self.batches.append(loss)\n',
        # the loop hands the hook the loss's number (`loss = loss.item()` after the backward)
        'import torch.nn.functional as F\n'
        'class Trainer:\n'
        '    def on_step_end(self, loss):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x, y in loader:\n'
        '            loss = F.cross_entropy(self.model(x), y)\n'
        '            self.optimizer.zero_grad()\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        '            loss = loss.item()\n'
        '            self.on_step_end(loss)\n'
        'class HistoryTrainer(Trainer):\n'
        '    def on_step_end(self, loss):\n'
        '        self.history.append(loss)\n',
        # after `*args` the loss has no slot that is known: which parameter gets it is not told
        'import torch.nn.functional as F\n'
        'class Trainer:\n'
        '    def on_step_end(self, a, b, c=None):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x, y in loader:\n'
        '            loss = F.cross_entropy(self.model(x), y)\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end(*self.stats, loss)\n'
        'class HistoryTrainer(Trainer):\n'
        '    def on_step_end(self, a, b, c=None):\n'
        '        self.history.append(b)\n',
        # a step's micro-batch losses, each back-propagated, in a list bound to a fresh empty one at the
        # top of every step: summed, reduced across processes in place and made a number before anything
        # keeps it, nothing built from it outlives the step
        "import torch\n"
        "import torch.distributed as dist\n"
        "def train(model, optimizer, loader, criterion, parts, meter, distributed):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        loss = sum(losses)\n"
        "        if distributed:\n"
        "            work = dist.all_reduce(loss, async_op=True)\n"
        "            work.wait()\n"
        "            loss.div_(dist.get_world_size())\n"
        "        loss = loss.item()\n"
        "        meter.update(loss, len(losses))\n",
        # a step's micro-batch list set anew each step, its sum made a number before it is added to the
        # total carried from step to step: the total holds no graph
        "import torch\n"
        "def train(model, optimizer, loader, criterion, parts):\n"
        "    total, best = 0.0, float('inf')\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        losses = []\n"
        "        for xc, yc in zip(x.chunk(parts), y.chunk(parts)):\n"
        "            loss = criterion(model(xc), yc)\n"
        "            losses.append(loss)\n"
        "            loss.backward()\n"
        "        optimizer.step()\n"
        "        total = total + sum(losses).item()\n"
        "        s = sum(losses)\n"
        "        best = min(best, s.item())\n"
        "        print(total, best)\n",
        # one step's micro-batch losses printed one by one after the step: the loop over them
        # binds each anew, within the iteration that built the list
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    for batch in loader:\n"
        "        losses = []\n"
        "        for micro in batch:\n"
        "            loss = model(micro).mean()\n"
        "            loss.backward()\n"
        "            losses.append(loss)\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "        for l in losses:\n"
        "            print(l.item())\n",
    )

    def finish(self) -> None:
        self._paths: dict[cst.CSTNode, list[tuple[bool, frozenset[cst.Name]]]] = {}
        self._accumulators: dict[cst.CSTNode, str] = {}
        self._helpers: set[cst.CSTNode] = set()
        # accumulations of a loss back-propagated in an earlier iteration, on some path
        self._respent: dict[cst.CSTNode, str] = {}
        self._spent: list[cst.CSTNode] = []  # the backward calls that ran through a name
        self._in_place: set[cst.CSTNode] = set()  # `total.add_(loss)`: flagged as `+=`, no fix
        # what adds elements to a list (`losses.append(loss)`, `losses += [loss]`): its fix detaches
        self._stored: set[cst.CSTNode] = set()
        self._run_each_iteration: dict[cst.CSTNode, set[cst.FunctionDef]] = {}  # see `_always_run`
        self._kinds: dict[tuple[cst.CSTNode | None, str], str | None] = {}  # see `_variable_kind`
        self._kept_lists: dict[tuple[cst.CSTNode, str], bool] = {}  # see `_one_step_list`
        # what a step returns whole, its items holding the graph (`stats.append(ppo_step(b))`):
        # the items, as `_item_read` writes them
        self._containers: dict[cst.CSTNode, tuple[cst.BaseExpression, set[str]]] = {}
        # accumulations whose value holds a graph only through the elements of these lists
        # (`total += s.loss` in `for s in stats:`), and those that hold one otherwise on some path
        self._through_elements: dict[cst.CSTNode, set[str]] = {}
        self._direct: set[cst.CSTNode] = set()
        summaries = self.ctx.summaries
        # asked of every call: no need when no function of the project stores what it is given
        self._helpers_store = any(s.accumulates for s in (*summaries.closed.values(), *summaries.external.values()))
        self._helpers_backward = any(s.backpropagates for s in (*summaries.closed.values(), *summaries.external.values()))
        bodies = self._bodies_with_accumulation()
        for body in code_bodies(self.ctx):
            if body not in bodies:
                continue
            self._backpropagated = backpropagated_names(self.ctx, body)
            self._components = loss_components(self.ctx, body, self._backpropagated)
            self._consumed = consumed_names(self.ctx, body, self._handed_to_backward(body), differentiated=True)
            Flow(self.ctx, self._transfer, loop_back=_next_iteration, events=self._is_event).run(body)
        self._check_overrides()
        for node, accumulator in self._respent.items():
            self.report(self._statement_node(node), _RESPENT.format(accumulator, accumulator))
        found: list[tuple[cst.CSTNode, str, frozenset[cst.Name]]] = []
        for node, paths in self._paths.items():
            if node in self._respent or not all(carries for carries, _ in paths):
                continue
            # the costlier context checks run only for what carries a graph on every path
            accumulator = self._accumulators[node]
            if not self._outlives_iteration(node, accumulator) or self._builds_loss(node, accumulator):
                continue
            found.append((node, accumulator, frozenset.intersection(*(names for _, names in paths))))
        kept = {(self.ctx.enclosing_function(node), accumulator) for node, accumulator, _ in found}
        for node, accumulator, operands in found:
            lists = self._through_elements.get(node) if node not in self._direct else None
            if lists is not None and (not self._crosses_training_loop(node, accumulator) or any(
                    (self.ctx.enclosing_function(node), kept_list) in kept for kept_list in lists)):
                # the list's own accumulation is reported: it keeps these graphs first, and
                # detaching the loss where the step returns it mends both
                continue
            if node in self._containers:
                self._report_container(node)
            elif node in self._helpers:
                self.report(self._statement_node(node), _THROUGH_HELPER.format(self.ctx.code(node.func)))  # type: ignore[attr-defined]
            elif innermost_loop(self.ctx, node) is None:  # in a method a loop of another calls
                caller = self.ctx.enclosing_function(self._keeping_loops(node, accumulator)[0])
                self.report(self._statement_node(node), _ACROSS_CALLS.format(
                    caller.name.value if caller is not None else "<module>",
                    self.ctx.enclosing_function(node).name.value))  # type: ignore[union-attr]
            else:
                fix = None if node in self._in_place else self._fix(node, accumulator, operands)
                self.report(self._statement_node(node), fix=fix)

    def _check_overrides(self) -> None:
        """An override a base class's training loop hands the loss it back-propagates, on
        every iteration or on some, that keeps it whole (see `hook_runs`): what keeps it is
        reported in the override."""
        for run in hook_runs(self.ctx):
            kept = run.given(run.backpropagated()) & run.summary.accumulates
            for node in kept_parameters(self.ctx, run.function, kept):
                self.report(self._statement_node(node), _IN_HOOK.format(run.names()))

    def _report_container(self, node: cst.CSTNode) -> None:
        """A step's named tuple (tuple, dict) kept whole: the step is what to mend, and no
        fix is offered (it has no `.detach()`, and other callers of the step may need the
        graph)."""
        added, items = self._containers[node]
        step = self._step_returning(added)
        if step is None:
            self.report(self._statement_node(node))
        else:
            self.report(self._statement_node(node), _KEPT_STATS.format(step, _describe_items(items)))

    def _step_returning(self, value: cst.BaseExpression) -> str | None:
        """The step function whose call `value` is, or, for a variable, the one whose
        calls are all it is assigned (`stats = self.grpo_step(batch)`): `self.grpo_step`."""
        calls = Values.of_file(self.ctx).of(value) if type(value) is cst.Name else [value]
        steps = {self.ctx.code(call.func) if type(call) is cst.Call and self._graph_items(call) else None
                 for call in calls or ()}
        return steps.pop() if len(steps) == 1 else None

    def _handed_to_backward(self, body: cst.CSTNode) -> set[str]:
        """Names `body` passes to a function of the project that back-propagates
        them (`optimize(opt, losses)`): a list of losses being built, not a log."""
        names: set[str] = set()
        if not self._helpers_backward:
            return names
        for call in iter_nodes(body):
            if type(call) is not cst.Call:
                continue
            summary = self.ctx.summaries.of_call(call)
            if summary is None or not summary.backpropagates:
                continue
            for slot, arg in argument_slots(call):
                if summary.slot(slot) in summary.backpropagates:
                    names |= names_in(arg.value)
        return names

    def _given_to_backward(self, call: cst.Call) -> list[cst.BaseExpression]:
        """The arguments `call` hands a function of the project that back-propagates
        them (`self.mp_trainer.backward(loss)`, `backward(scaler, loss)` of utils.py)."""
        if not self._helpers_backward:
            return []
        summary = self.ctx.summaries.of_call(call)
        if summary is None or not summary.backpropagates:
            return []
        return [arg.value for slot, arg in argument_slots(call) if summary.slot(slot) in summary.backpropagates]

    def _function_back_propagates(self, function: cst.FunctionDef) -> bool:
        """`function` runs a backward pass or a step, itself, in a function of the file it
        calls, or through a call of another module's function or of a method
        (`trainer.mt_step(batch)`), also one a variable holds (see `of_held_call`)."""
        return (bool(backpropagated_names(self.ctx, function.body)) or self._back_propagates(function)
                or self._calls_backward(function.body))

    def _calls_backward(self, body: cst.CSTNode) -> bool:
        """`body` calls a function of the project that runs a backward pass, also through a
        variable holding it (`step = partial(train_step, ...)`)."""
        summaries = self.ctx.summaries
        for call in iter_nodes(body):
            if type(call) is cst.Call:
                summary = summaries.of_call(call) or summaries.of_held_call(call)
                if summary is not None and summary.does(BACKWARD):
                    return True
        return False

    def _builds_loss(self, node: cst.CSTNode, accumulator: str) -> bool:
        """A sum that is no log: built without a graph (under `no_grad`), in a
        module's `forward`, or returned by a function that never
        back-propagates it, for its caller to back-propagate."""
        if grad_mode_at(self.ctx, node) == "off":
            return True
        function = self.ctx.enclosing_function(node)
        if function is None:
            return False
        if function.name.value == "forward":
            return True
        if innermost_loop(self.ctx, node) is None and self._consumed_by_class(function, accumulator):
            return True
        if self._function_back_propagates(function):
            return False
        return _base(accumulator) in returned_names(self.ctx, function)

    def _consumed_by_class(self, function: cst.FunctionDef, accumulator: str) -> bool:
        """An attribute summed in one method and back-propagated by another method of
        the class (the one whose loop calls it): a loss being built across calls."""
        cls = next((a for a in self.ctx.ancestors(function) if type(a) is cst.ClassDef), None)
        methods = [m for m in cls.body.body if type(m) is cst.FunctionDef] if cls is not None else []  # type: ignore[union-attr]
        return any({accumulator, _base(accumulator)} & consumed_names(
            self.ctx, m.body, self._handed_to_backward(m.body), differentiated=True) for m in methods)

    def _bodies_with_accumulation(self) -> set[cst.CSTNode]:
        """Bodies holding something that could accumulate (`+=`, `x = x + ...`,
        `.append(...)`) inside a loop, or into an attribute of `self` in a method a
        loop calls (a trainer's per-step method): only they need the flow."""
        bodies: set[cst.CSTNode] = set()
        for node in self.ctx.nodes_of(cst.AugAssign, cst.Assign, cst.Call):
            if not self._may_accumulate(node):
                continue
            function = self.ctx.enclosing_function(node)
            if innermost_loop(self.ctx, node) is not None or self._calling_loops(node, self._accumulator_of(node)):
                bodies.add(function.body if function is not None else self.ctx.module)
        return bodies

    def _accumulator_of(self, node: cst.CSTNode) -> str | None:
        """What `node` accumulates into (see `_accumulated_into`); for a call of a function
        of the project that stores what it is given, what it keeps it in (see `_kept_in`)."""
        stored = self._stored_elements(node)
        into = _accumulator_name(stored[0]) if stored is not None else _accumulated_into(node)
        summary = self._accumulating(node) if into is None else None
        return self._kept_in(node, summary) if summary is not None else into  # type: ignore[arg-type]

    def _kept_in(self, call: cst.Call, summary: Summary) -> str:
        """Where a function of the project that stores what `call` gives it keeps it, as
        far as the caller can tell: the object whose method it is (`meter` of
        `meter.update(loss)`, `self.meter`), else the one variable the call hands it
        beside what it stores (`history` of `record(history, loss)`, `self.losses`,
        `self.history["train"]`);
        else the function itself (`self.record`: a method keeping it in its object)."""
        func = call.func
        if type(func) is cst.Attribute and self.ctx.qualified_name(func.value) is None:  # no module's function
            receiver = dotted_name(func.value)
            if receiver is not None and receiver != "self":
                return receiver
        else:
            held = {_accumulator_name(arg.value) for slot, arg in argument_slots(call)
                    if summary.slot(slot) not in summary.accumulates
                    and type(arg.value) in (cst.Name, cst.Attribute, cst.Subscript)}
            if len(held) == 1 and None not in held:
                return held.pop()  # type: ignore[return-value]
        return dotted_name(func) or ""

    def _calling_loops(self, node: cst.CSTNode, accumulator: str | None) -> list[tuple[cst.For | cst.While, cst.Call]]:
        """For an accumulation into an attribute of `self` outside any loop of its
        method (`self.total += loss` in `_train_step`), the loops whose iterations
        call the method, each with its call there: the attribute outlives each call."""
        function = self.ctx.enclosing_function(node)
        if function is None or accumulator is None or self._receiver(node, accumulator) is None:
            return []
        return calling_loops(self.ctx, function)

    def _may_accumulate(self, node: cst.CSTNode) -> bool:
        """What `_transfer` checks as an accumulation: `s += x`, `s -= x`,
        `s = s + x`, `s.append(x)`, a helper that stores its argument."""
        kind = type(node)
        if kind is cst.AugAssign:
            return type(node.operator) in (cst.AddAssign, cst.SubtractAssign)  # type: ignore[attr-defined]
        if kind is cst.Assign:
            return _adds_to_itself(node)
        return (self._stored_elements(node) is not None or _added_in_place(node) is not None
                or self._accumulating(node) is not None)

    # -- flow ------------------------------------------------------------------
    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to."""
        if type(node) in (cst.Assign, cst.AugAssign) or method_call(node, "backward", *_IN_PLACE) is not None:
            return True
        if self._stored_elements(node) is not None:
            return True
        return self._accumulating(node) is not None or (type(node) is cst.Call and bool(self._given_to_backward(node)))  # type: ignore[arg-type]

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        if type(node) is cst.Call:
            for target in [*backward_targets(node, self.ctx), *self._given_to_backward(node)]:  # type: ignore[arg-type]
                if type(target) is cst.NamedExpr:  # `(loss := criterion(out, y)).backward()`
                    target = target.target
                if type(target) in (cst.Name, cst.Attribute) and (name := dotted_name(target)) is not None:
                    facts = facts | {name}  # `loss`, or a loss kept in an attribute (`self.loss`)
                spent = _spent_name(target)
                if spent is not None:
                    if node not in self._spent:
                        self._spent.append(node)
                    facts = facts | {f"{_SPENT}{spent}@{self._spent.index(node)}"}
            stored = self._stored_elements(node)
            if stored is not None:
                self._check_elements(node, stored[0], stored[1], facts)
                facts = self._appended(facts, *stored)
            added = _added_in_place(node)  # type: ignore[arg-type]
            if added is not None:
                self._in_place.add(node)
                self._check(node, node.func.value, added, facts)  # type: ignore[attr-defined]
            self._check_helper(facts, node)
        elif type(node) is cst.AugAssign:
            if type(node.operator) in (cst.AddAssign, cst.SubtractAssign):
                self._check_added(node, node.target, node.value, facts)
        elif type(node) is cst.Assign:
            added = _added_to_itself(node)
            spread = _spread_with_itself(node)
            if added is not None:
                self._check_added(node, node.targets[0].target, added, facts)
            elif spread:
                self._check_elements(node, node.targets[0].target, spread, facts)
            facts = self._assign(facts, node)
        return facts

    def _assign(self, facts: Facts, node: cst.Assign) -> Facts:
        # bound under `no_grad` (`~name`), or read from what was (`loss = outputs.loss`
        # after `with torch.no_grad(): outputs = model(x)`): no graph, whatever the
        # name is back-propagated as elsewhere in the function
        no_graph = grad_mode_at(self.ctx, node) == "off" or _NO_GRAD + (_root_name(node.value) or "") in facts
        before = facts  # every value is read before any name is bound (`a, b = b, a`)
        added_to = _accumulator_name(node.targets[0].target) if _adds_to_itself(node) else None
        # the items a step function returns with the graph of its backward: `loss, acc =
        # train_step(batch)`, or `out = train_step(batch)` read as `out["loss"]` (`out.loss`
        # of a named tuple)
        items = () if no_graph else self._graph_items(node.value)
        for target in node.targets:
            unpacked = _unpacked_items(target.target, items)
            if type(target.target) is cst.Subscript and (item := _accumulator_name(target.target)) is not None:
                facts = facts - {item}  # `out["loss"] = out["loss"].item()`
            for bound, value in assigned_parts(target.target, node.value):
                for name in _bound_names(bound):
                    single = value is not None
                    facts = frozenset(f for f in facts - {_NO_GRAD + name} if not f.startswith((f"{name}[", f"{name}.")))
                    if name != added_to and self._spent:  # set anew: what was back-propagated is gone from it
                        facts = _without_spent(facts, name)
                    if no_graph:
                        facts = (facts - {name}) | {_NO_GRAD + name}
                    elif single and detaches(value):  # type: ignore[arg-type]
                        facts = facts - {name}
                    elif ((single and self._carries(value, before)) or name in self._backpropagated  # type: ignore[arg-type]
                          or name in self._components or name in unpacked):
                        facts = facts | {name}
                    else:
                        facts = facts - {name}
                    if single and items and type(bound) is cst.Name:
                        facts = facts | {_item_fact(name, item) for item in items}
                    if single and type(value) is cst.ListComp and not no_graph:  # `[step(b) for b in bs]`
                        held = self._held_reads(value.elt, before)  # type: ignore[attr-defined]
                        facts = facts | {name + _ELEMENT + read for read in held}
        return facts

    def _graph_items(self, value: cst.BaseExpression) -> tuple[str, ...]:
        """The items of the tuple or dict a call of a step function of the project returns
        that hold the loss it back-propagated (see `Summary.returned_items`)."""
        if type(value) is not cst.Call:
            return ()
        summaries = self.ctx.summaries
        summary = summaries.of_call(value) or summaries.of_held_call(value)
        return summary.items_holding(GRAPH) if summary is not None and summary.returns_graph else ()

    def _carries(self, expr: cst.BaseExpression, facts: Facts) -> bool:
        """`expr` is a tensor with a graph: a tracked name, a loss call, or
        arithmetic on one of them."""
        if type(expr) is cst.Name:
            return expr.value in facts
        if type(expr) in (cst.Attribute, cst.Subscript):
            if _accumulator_name(expr) in facts:
                return True  # `self.loss`, `out["loss"]` or `out.loss` of `out = train_step(batch)`
            if type(expr.value) is cst.Call:  # `train_step(batch)[0]`, `train_step(batch).loss`
                read = _item_read(expr)  # type: ignore[arg-type]
                return read is not None and read in {_item_fact("", item) for item in self._graph_items(expr.value)}
            if type(expr.value) is cst.Name and _holds_elements(facts):  # `s.loss` of `for s in stats:`
                read, listed = _item_read(expr), self._iterated_list(expr.value)  # type: ignore[arg-type]
                return read is not None and listed is not None and listed + _ELEMENT + read in facts
        if type(expr) is cst.BinaryOperation and isinstance(expr.operator, _ARITHMETIC):
            return self._carries(expr.left, facts) or self._carries(expr.right, facts)
        if type(expr) is cst.UnaryOperation:
            return self._carries(expr.expression, facts)
        if (type(expr) is cst.Call and type(expr.func) is cst.Attribute
                and expr.func.attr.value in _GRAPH_KEEPING_METHODS):
            return self._carries(expr.func.value, facts)  # `loss.float()`: the same graph
        if (type(expr) is cst.Call and expr.args and type(expr.args[0].value) in (cst.GeneratorExp, cst.ListComp)
                and self._is_builtin_sum(expr.func)):  # `sum(s.loss for s in stats)`
            comprehension = expr.args[0].value
            return self._carries(comprehension.elt, _without_bound(facts, comprehension))  # type: ignore[attr-defined]
        return is_loss_call(self.ctx, expr) or self._returns_graph(expr)

    def _is_builtin_sum(self, func: cst.BaseExpression) -> bool:
        """`sum`, Python's own: not a name the file binds."""
        return (type(func) is cst.Name and func.value == "sum" and self.ctx.receivers.binding(func) is None
                and self.ctx.qualified_name(func) in (None, "builtins.sum"))

    def _held_reads(self, value: cst.BaseExpression, facts: Facts) -> set[str]:
        """The items holding a graph of the named tuple (tuple, dict) `value` is, as
        `_item_read` writes them: the call of a step function that returns one
        (`ppo_step(batch)`: ".loss", "[0]"), or a variable bound to one."""
        if type(value) is cst.Call:
            return {_item_fact("", item) for item in self._graph_items(value)}
        if type(value) is not cst.Name:
            return set()
        prefixes = (value.value + ".", value.value + "[")
        return {fact[len(value.value):] for fact in facts
                if fact.startswith(prefixes) and not fact.startswith(value.value + _ELEMENT)}

    def _appended(self, facts: Facts, receiver: cst.BaseExpression, elements: list[cst.BaseExpression]) -> Facts:
        """`stats.append(ppo_step(batch))`: the list's elements hold what the step's named
        tuple holds, for a loop over it to read (`for s in stats: total += s.loss`)."""
        listed = _accumulator_name(receiver)
        if listed is None:
            return facts
        return facts | {listed + _ELEMENT + read for element in elements for read in self._held_reads(element, facts)}

    def _iterated_list(self, name: cst.Name) -> str | None:
        """The list (`stats`, `self.stats`) that the loop or comprehension binding the loop
        variable `name` iterates (`for s in stats:`, `sum(s.loss for s in stats)`), where
        nothing binds `name` again in between."""
        child: cst.CSTNode = name
        for ancestor in self.ctx.ancestors(name):
            kind = type(ancestor)
            if kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                return None
            if kind in (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp):
                for_in: cst.CompFor | None = ancestor.for_in  # type: ignore[attr-defined]
                while for_in is not None and for_in is not child:
                    if type(for_in.target) is cst.Name and for_in.target.value == name.value:
                        return _accumulator_name(for_in.iter)
                    for_in = for_in.inner_for_in
            elif kind is cst.For and child is ancestor.body:  # type: ignore[attr-defined]
                target = ancestor.target  # type: ignore[attr-defined]
                if type(target) is cst.Name and target.value == name.value:
                    rebound = self._rebound_between(name.value, ancestor, name)
                    return None if rebound else _accumulator_name(ancestor.iter)  # type: ignore[attr-defined]
            child = ancestor
        return None

    def _returns_graph(self, expr: cst.BaseExpression) -> bool:
        """A call of a function of the project that returns a loss it has
        back-propagated (`loss = train_step(batch)`)."""
        if type(expr) is not cst.Call:
            return False
        summaries = self.ctx.summaries
        summary = summaries.of_call(expr) or summaries.of_held_call(expr)
        return summary is not None and summary.returns_graph

    def _check_added(self, node: cst.CSTNode, accumulator: cst.BaseExpression, added: cst.BaseExpression,
                     facts: Facts) -> None:
        """`total += x`, `total = total + x`; of a list or tuple written out (`losses +=
        [loss]`, `losses = losses + [loss]`), its elements, added to a list known to
        be one (see `_grows_sequence`)."""
        elements = written_elements(added)
        if elements is None:
            self._check(node, accumulator, added, facts)
        elif elements and self._grows_sequence(node, accumulator, added):
            self._check_elements(node, accumulator, elements, facts)

    def _grows_sequence(self, node: cst.CSTNode, accumulator: cst.BaseExpression, added: cst.BaseExpression) -> bool:
        """`node` adds `added`, a list or tuple written out, to an accumulator known to be
        a list (tuple) it grows (see `_variable_kind`); by `+`, a list grows only by a list, a
        tuple by a tuple. Anything else is not judged: an array or a tensor (`arr =
        np.zeros(1)`, then `arr = arr + [loss]`) adds the loss to its elements or fails, and a
        parameter may be either."""
        if type(node) not in (cst.AugAssign, cst.Assign):
            return False
        kind = self._variable_kind(node, accumulator)
        if kind not in ("list", "tuple"):
            return False
        return _sequence_kind(added) == kind or (kind == "list" and type(node) is cst.AugAssign)

    def _variable_kind(self, node: cst.CSTNode, accumulator: cst.BaseExpression) -> str | None:
        """"list", "tuple" or "set" for an accumulator read at `node` whose every other
        assignment in its function (of an attribute of `self`, in its class) gives one
        written out or built by `list()` (`tuple()`, `set()`); None for anything else: a
        parameter, a name bound by a loop, a `with`, `:=` or unpacking, assignments of
        several kinds."""
        name = _accumulator_name(accumulator)
        if name is None or "[" in name:
            return None
        if name.startswith("self."):
            where = next((a for a in self.ctx.ancestors(node) if type(a) is cst.ClassDef), None)
        elif own_variable(self.ctx, node, name):
            where = self.ctx.enclosing_function(node) or self.ctx.module
        else:
            return None
        if (where, name) not in self._kinds:
            self._kinds[(where, name)] = _kind_assigned(self.ctx, where, name)
        return self._kinds[(where, name)]

    def _stored_elements(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, list[cst.BaseExpression]] | None:
        """What `stored_elements` reads, and the element added to a set known to be one
        (`seen.add(loss)` of a `seen = set()`; `meter.add(loss)` of any other object is
        not read)."""
        stored = stored_elements(node)
        receiver = method_call(node, "add") if stored is None else None
        if receiver is None or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:  # type: ignore[attr-defined]
            return stored
        return (receiver, [node.args[0].value]) if self._variable_kind(node, receiver) == "set" else None  # type: ignore[attr-defined]

    def _check_elements(self, node: cst.CSTNode, accumulator: cst.BaseExpression,
                        elements: list[cst.BaseExpression], facts: Facts) -> None:
        """Elements added to a list: one is judged as an append is; of several
        (`losses.extend((loss, aux))`), the first that holds a graph, and no fix is
        offered (it is offered for the one element an append adds)."""
        self._stored.add(node)
        if len(elements) == 1:
            self._check(node, accumulator, elements[0], facts)
            return
        carrying = next((element for element in elements if self._carries(element, facts)), elements[0])
        self._check(node, accumulator, carrying, facts, fixable=False)

    def _check(self, node: cst.CSTNode, accumulator: cst.BaseExpression, added: cst.BaseExpression, facts: Facts,
               fixable: bool = True) -> None:
        name = _accumulator_name(accumulator)
        if (self._spent and name is not None and type(accumulator) is cst.Name and node not in self._respent
                and self._spent_earlier(node, name, facts) and self._carries(added, facts)):
            # a loss being built, back-propagated, and carried on into the next iteration's sum
            self._respent[node] = name
        if name is None or name in self._consumed or _base(name) in self._consumed:
            return
        self._accumulators[node] = name
        carries = self._carries(added, facts)
        operands = _graph_names(added, facts) if carries and fixable else frozenset()
        self._paths.setdefault(node, []).append((carries, operands))
        if not carries:
            return
        if _holds_elements(facts) and not self._carries(added, _without_elements(facts)):
            self._through_elements.setdefault(node, set()).update(self._lists_read(added))
        else:
            self._direct.add(node)
        held = self._held_reads(added, facts)
        if held:
            self._containers.setdefault(node, (added, set()))[1].update(held)

    def _lists_read(self, added: cst.BaseExpression) -> set[str]:
        """The lists whose elements `added` reads through loop variables."""
        return {listed for name in iter_nodes(added) if type(name) is cst.Name
                and (listed := self._iterated_list(name)) is not None}

    def _spent_earlier(self, node: cst.CSTNode, name: str, facts: Facts) -> bool:
        """`name` reaches `node` unchanged from a backward through it that comes after
        `node` in a loop around both: from an earlier iteration of that loop (not from a
        backward before a loop of its own that `node` is in)."""
        ctx = self.ctx
        for index, backward in enumerate(self._spent):
            if f"{_SPENT_BEFORE}{name}@{index}" not in facts or ctx.order_index(backward) < ctx.order_index(node):
                continue
            around = {id(a) for a in ctx.ancestors(backward) if type(a) in (cst.For, cst.While)}
            if any(id(a) in around for a in ctx.ancestors(node) if type(a) in (cst.For, cst.While)):
                return True
        return False

    def _check_helper(self, facts: Facts, call: cst.Call) -> None:
        """`meter.update(loss)`, `log(history, {"loss": loss})`: a function of
        the project that stores what it is given where it outlives the call."""
        summary = self._accumulating(call)
        if summary is None:
            return
        carries = False
        for slot, arg in argument_slots(call):
            if summary.slot(slot) in summary.accumulates:
                carries = carries or any(self._carries(value, facts) for value in _packed(arg.value))
        self._accumulators[call] = self._kept_in(call, summary)
        self._helpers.add(call)
        self._paths.setdefault(call, []).append((carries, frozenset()))

    def _accumulating(self, call: cst.CSTNode) -> Summary | None:
        if not self._helpers_store or type(call) is not cst.Call:
            return None
        summary = self.ctx.summaries.of_call(call)
        if summary is None or not summary.accumulates or self._kept_in_new_object(call, summary):  # type: ignore[arg-type]
            return None
        return summary

    def _kept_in_new_object(self, call: cst.Call, summary: Summary) -> bool:
        """Where `call` keeps what it stores (see `_kept_in`) is an object the call
        expression itself makes by calling a class of the file (`add_loss(Tally(), loss)`,
        `Tally().add(loss)`): made anew at each call, it holds one graph at a time. An
        object another call returns may be one kept across calls (`get_tally()`,
        `meters.setdefault("loss", Tally())`), so it is not taken for a new one."""
        func = call.func
        if type(func) is cst.Attribute:
            return self._constructs(func.value)
        held = [arg.value for slot, arg in argument_slots(call) if summary.slot(slot) not in summary.accumulates
                and type(arg.value) in (cst.Name, cst.Attribute, cst.Subscript, cst.Call)]
        return len(held) == 1 and self._constructs(held[0])

    def _constructs(self, expr: cst.BaseExpression) -> bool:
        """`expr` makes a new instance of a class of the file (`Tally()`)."""
        return type(expr) is cst.Call and self.ctx.local_class(expr.func) is not None

    # -- context ---------------------------------------------------------------
    def _outlives_iteration(self, node: cst.CSTNode, accumulator: str) -> bool:
        return bool(self._keeping_loops(node, accumulator))

    def _keeping_loops(self, node: cst.CSTNode, accumulator: str) -> list[cst.For | cst.While]:
        """The loops across whose iterations the accumulator keeps what `node` adds:
        the loop around it, or the loops calling its method (see `_calling_loops`),
        unless they set it anew each iteration."""
        receiver = self._receiver(node, accumulator)
        loop = innermost_loop(self.ctx, node)
        if loop is not None:
            if self._reset_each_iteration(loop, node, accumulator, receiver):
                return []
            # a loop inside one training iteration (it back-propagates nothing: the terms of
            # the loss being built, `for bow in bows: loss_list.append(bow_loss)`) keeps
            # nothing past that iteration when the training loop around it, which
            # back-propagates, sets the accumulator anew
            inner, outer = loop, self._loop_around(loop)
            while outer is not None and not self._back_propagates(inner):
                if self._back_propagates(outer) and self._reset_each_iteration(outer, inner, accumulator, receiver):
                    return []
                inner, outer = outer, self._loop_around(outer)
            return [] if self._one_step_list(loop, node, accumulator) else [loop]
        return [loop for loop, call in self._calling_loops(node, accumulator)
                if not self._reset_each_iteration(loop, call, accumulator, receiver)]

    def _receiver(self, node: cst.CSTNode, accumulator: str) -> str | None:
        """What the method whose instance `accumulator` (read at `node`) is an attribute of
        calls that instance: `self` of `self.total`, `trainer` of `trainer.total` in `def
        _train_step(trainer, x)` or in a function nested in it, `self` of a function that
        calls hand the instance (see `instance_parameter`); None for anything else."""
        head, dot, _ = accumulator.partition(".")
        scope = binding_scope(head, self.ctx.scope_of(node)) if dot else None
        if scope is None or not scope.is_function:
            return None
        return head if instance_parameter(self.ctx, scope.node) == head else None  # type: ignore[arg-type]

    def _loop_around(self, loop: cst.For | cst.While) -> cst.For | cst.While | None:
        parent = self.ctx.parent(loop)
        return innermost_loop(self.ctx, parent) if parent is not None else None

    def _crosses_training_loop(self, node: cst.CSTNode, accumulator: str) -> bool:
        """What `node` adds outlives an iteration of a loop that trains (back-propagates or
        steps, itself or through a step function of the project), or of a loop inside one: a
        sum over a list of statistics after training, in a loop of its own, keeps nothing
        the list did not keep already."""
        for loop in self._keeping_loops(node, accumulator):
            around: cst.For | cst.While | None = loop
            while around is not None:
                if self._back_propagates(around) or self._calls_backward(around.body):
                    return True
                around = self._loop_around(around)
        return False

    def _back_propagates(self, loop: cst.For | cst.While | cst.FunctionDef) -> bool:
        """An iteration of `loop` (or a run of a function) may run a backward pass or a step
        (in it, or in a function of the file it calls; `accelerator.backward(loss)`,
        `opt.step()` count)."""
        return any(is_backward(node) or method_call(node, "backward", "step") is not None
                   for node in reachable_nodes(self.ctx, loop.body))

    def _one_step_list(self, inner: cst.For | cst.While, node: cst.CSTNode, accumulator: str) -> bool:
        """The list `accumulator`, filled at `node` by `inner` (a loop over the micro-batches
        of one step: it steps nothing), holds one step's losses only: the loop around
        `inner` steps an optimizer itself, past `inner` (`optimizer.step()`), binds the list
        to a fresh empty one on every iteration before `inner` fills it, and keeps nothing
        built from it past the iteration (see `kept_past_iteration`)."""
        outer = self._loop_around(inner)
        if (outer is None or not accumulator.isidentifier() or not own_variable(self.ctx, node, accumulator)
                or self._steps(inner) or not self._steps_past(outer, inner)
                or not self._fresh_before(outer, inner, accumulator)):
            return False
        if (outer, accumulator) not in self._kept_lists:  # asked again for every call filling the list
            filling = {other for other, name in self._accumulators.items() if name == accumulator} | {node}
            self._kept_lists[outer, accumulator] = kept_past_iteration(self.ctx, outer, accumulator, filling)
        return not self._kept_lists[outer, accumulator]

    def _fresh_before(self, outer: cst.For | cst.While, inner: cst.For | cst.While, accumulator: str) -> bool:
        """A statement of `outer`'s body that every iteration runs before the one holding
        `inner` binds `accumulator` (`losses = []`: that it is a fresh empty list, as every
        binding of it must be, `kept_past_iteration` tells)."""
        body = outer.body.body  # type: ignore[union-attr]
        around = {id(a) for a in self.ctx.ancestors(inner)} | {id(inner)}
        holding = next((statement for statement in body if id(statement) in around), None)
        for statement in body[:body.index(holding)] if holding is not None else ():
            if type(statement) is not cst.SimpleStatementLine:
                continue
            for small in statement.body:
                if (type(small) is cst.Assign and len(small.targets) == 1
                        and type(small.targets[0].target) is cst.Name and small.targets[0].target.value == accumulator
                        and self._every_iteration(small, outer)):
                    return True
        return False

    def _steps_past(self, outer: cst.For | cst.While, inner: cst.For | cst.While) -> bool:
        """`outer`'s own body steps an optimizer (see `optimizer_step`) past `inner`."""
        end = self.ctx.subtree_end(inner)
        return any(self.ctx.order_index(node) > end and optimizer_step(self.ctx, node) is not None
                   for node in self.ctx.subtree(outer.body))

    def _steps(self, loop: cst.For | cst.While) -> bool:
        """An iteration of `loop` may step something (`opt.step()`, `scaler.step(opt)`, even
        `scheduler.step()`), in it or in a function of the file it calls, or may call a
        function of another module of the project that steps."""
        for node in reachable_nodes(self.ctx, loop.body):
            if method_call(node, "step") is not None:
                return True
            summary = self.ctx.summaries.of_external_call(node) if type(node) is cst.Call else None
            if summary is not None and summary.does(STEP):
                return True
        return False

    def _reset_each_iteration(self, loop: cst.For | cst.While, at: cst.CSTNode, accumulator: str,
                              receiver: str | None) -> bool:
        """Each iteration of `loop` sets the accumulator anew, before `at` (the
        accumulation, or the call that leads to it) or on every iteration. An attribute
        of `self` may also be set by a method the iteration calls: anywhere in it but
        under a condition (a reset under `if self.steps % 100 == 0:` keeps 100 graphs),
        and, where `at` calls it on an instance (`trainer.train_step(x)`), set through
        that instance by the loop (`trainer.total = 0.0`). `receiver`: what the method
        that accumulates calls its instance (None for no method)."""
        own = self.ctx.enclosing_function(loop)
        on_self = receiver is not None
        inside = reachable_nodes(self.ctx, loop.body, methods=True) if on_self else iter_nodes(loop.body)
        instance = at.func.value if on_self and type(at) is cst.Call and type(at.func) is cst.Attribute \
            and self.ctx.summaries.targets.method_run(at) is not None else None  # type: ignore[attr-defined]
        as_written = self.ctx.code(instance) + accumulator[len(receiver):] if instance is not None else accumulator  # type: ignore[arg-type]
        for inner in inside:
            if type(inner) not in (cst.Assign, cst.AnnAssign, cst.Call, cst.Del) or inner is at:
                continue
            function = self.ctx.enclosing_function(inner)
            if not _resets(inner, as_written if function is own else accumulator):
                continue
            # a reset counts where it surely runs when its statement does: not in a lambda
            # (`reset = lambda: losses.clear()`), a comprehension, nor `flag and losses.clear()`
            statement = evaluating_statement(self.ctx, inner)
            if statement is None:
                continue
            if function is own:
                if self._key_moved(inner, at, accumulator):
                    continue
                if self._every_iteration(statement, loop) or self._runs_before(statement, at, loop):
                    return True
            elif (not any(a is loop for a in self.ctx.ancestors(inner))
                  and function in self._always_run(loop) and _unconditional(self.ctx, statement)
                  and not skipped_before(self.ctx, statement, function)):  # type: ignore[arg-type]
                return True  # in a method every iteration runs, on every run of it
        return False

    def _key_moved(self, reset: cst.CSTNode, at: cst.CSTNode, accumulator: str) -> bool:
        """`reset` sets an item under a key a variable holds (`totals[key] = 0.0`) and that
        variable is bound anew between it and `at` (`key = "other"`): another item is set."""
        key = _variable_key(accumulator)
        if key is None or _resets(reset, _base(accumulator)):
            return False
        first, last = sorted((reset, at), key=self.ctx.order_index)
        return self._rebound_between(key, first, last)

    def _always_run(self, loop: cst.For | cst.While) -> set[cst.FunctionDef]:
        """The functions of the file (methods of its classes too) that every iteration
        of `loop` runs: called on every iteration (see `_every_iteration`; not under
        `if i % 100 == 0:`, nor in a lambda), or on every run of such a function."""
        found = self._run_each_iteration.get(loop)
        if found is not None:
            return found
        found = set()
        pending: list[tuple[cst.CSTNode, cst.For | cst.While | cst.FunctionDef]] = [(loop.body, loop)]
        while pending:
            body, runner = pending.pop()
            for call in self.ctx.own_nodes(body):
                if type(call) is not cst.Call:
                    continue
                callee = self.ctx.local_callee(call) or self.ctx.summaries.targets.method_run(call)
                if type(callee) is not cst.FunctionDef or callee in found:
                    continue
                statement = evaluating_statement(self.ctx, call)
                if statement is None:
                    continue
                if runner is loop:
                    every_time = self._every_iteration(statement, loop)
                else:
                    every_time = _unconditional(self.ctx, statement) and not skipped_before(
                        self.ctx, statement, runner)
                if every_time:
                    found.add(callee)
                    pending.append((callee.body, callee))
        self._run_each_iteration[loop] = found
        return found

    def _runs_before(self, reset: cst.CSTNode, node: cst.CSTNode, loop: cst.For | cst.While) -> bool:
        """The statement `reset` always runs before `node` in the same iteration (`loss =
        a` then `loss = loss + b` in one branch builds one loss, nothing carried over), also
        as a statement of the body or `else:` of a `try` before `node` whose handlers go on
        only with the next iteration (`except StopIteration: continue`): an iteration
        that skips the reset skips `node` as well."""
        line = self.ctx.parent(reset) if isinstance(reset, cst.BaseSmallStatement) else reset
        return any(statement is line
                   or (type(statement) in (cst.Try, cst.TryStar) and _tried(line, statement))  # type: ignore[arg-type]
                   for statement in statements_before(self.ctx, node, loop))

    def _every_iteration(self, node: cst.CSTNode, loop: cst.For | cst.While) -> bool:
        """`node` runs on every iteration of `loop`: no condition or inner loop between
        them (a reset under `if step % 100 == 0:` lets the graphs of 100 iterations live),
        nor a `continue` before it (`if loss > 1: continue`, then `total = 0`)."""
        guards = loop_guards(self.ctx, node)
        return (guards is not None and guards[0] is loop and not guards[1]
                and not skipped_before(self.ctx, node, loop))

    def _statement_node(self, node: cst.CSTNode) -> cst.CSTNode:
        parent = self.ctx.parent(node)
        return parent if type(node) is cst.Call and type(parent) is cst.Expr else node

    # -- fix -------------------------------------------------------------------
    def _fix(self, node: cst.CSTNode, accumulator: str, operands: frozenset[cst.Name]) -> Fix | None:
        if not operands or not self._only_read_as_number(node, accumulator):
            return None
        function = self.ctx.enclosing_function(node)
        body = function.body if function is not None else self.ctx.module
        if any(may_hold_number(self.ctx, body, n.value) for n in operands):
            return None  # `.item()` / `.detach()` of a float raises
        if any(self._built_by_own_class(body, n.value) for n in operands):
            return None  # an object of the file's own class with a `backward()`: not a tensor
        if node in self._stored:  # an element of a list: a tensor still, for whatever reads the list
            if not all(self._known_tensor(n.value, node) for n in operands):
                return None
            method = "detach"
        elif all(self._is_scalar(n.value, node) for n in operands) and not self._used_as_tensor(node, accumulator):
            method = "item"
        else:
            return None
        edits: dict[cst.CSTNode, cst.CSTNode] = {
            name: cst.Call(func=cst.Attribute(value=name, attr=cst.Name(method))) for name in operands
        }
        return Fix(edits)  # type: ignore[arg-type]

    def _built_by_own_class(self, body: cst.CSTNode, name: str) -> bool:
        """`name` is assigned, in `body`, an instance of a class of this file
        (`loss = MultiTaskLoss(main=ce, reg=penalty)`, back-propagated by its own
        `backward()`): it may have no `.item()` or `.detach()`."""
        classes = {cls.name.value for cls in self.ctx.nodes_of(cst.ClassDef)}  # type: ignore[attr-defined]
        if not classes:
            return False
        for node in self.ctx.subtree(body):
            if type(node) is cst.Assign and type(node.value) is cst.Call and type(node.value.func) is cst.Name \
                    and node.value.func.value in classes \
                    and any(type(t.target) is cst.Name and t.target.value == name for t in node.targets):
                return True
        return False

    def _only_read_as_number(self, node: cst.CSTNode, accumulator: str) -> bool:
        """The fix is safe only when no later use could need the graph or the
        tensor: an attribute (`self.losses`) outlives the function, and a
        value returned, stored or handed to other code may be
        back-propagated or asked for `.grad_fn` there; so may a variable of
        another scope (`global`, `nonlocal`, a parameter, a module's list
        appended in a function) or a module's variable read in a function."""
        if "." in accumulator or "[" in accumulator or not own_variable(self.ctx, node, accumulator):
            return False
        body = self.ctx.enclosing_function(node) or self.ctx.module
        if self._aliased(node, accumulator):
            return False  # `losses = all_losses = []`: the other name may be back-propagated
        accumulating = {n for n in self._accumulators if self._accumulators[n] == accumulator}
        return not escapes(self.ctx, body, accumulator, accumulating)

    def _aliased(self, node: cst.CSTNode, accumulator: str) -> bool:
        """Another variable holds the total's object (see `Receivers.aliases`), or may
        (`before = total or 0.0`, `snapshot = total if seen else None`, a default
        `lambda t=total: ...`): a tensor's `+=` changes it in place, a number's does not."""
        receivers = self.ctx.receivers
        name = next((n for n in self.ctx.subtree(node) if type(n) is cst.Name and n.value == accumulator), None)  # type: ignore[attr-defined]
        binding = receivers.binding(name) if name is not None else None
        if binding is not None and len(receivers.aliases(binding)) > 1:
            return True
        for other in self.ctx.nodes_of(cst.Assign, cst.AnnAssign, cst.NamedExpr, cst.Param):
            value = other.default if type(other) is cst.Param else other.value  # type: ignore[attr-defined]
            if value is not None and accumulator in _arms(value):
                return True
        return False

    def _known_tensor(self, name: str, at: cst.CSTNode) -> bool:
        """`name` holds a tensor: it is back-propagated itself, or every assignment
        of it is a loss call. A term of a loss (`loss = ce + penalty`) may be a
        Python number, which has no `.detach()`."""
        if name not in self._components or name in self._backpropagated:
            return True
        return self._assigned_only_loss_calls(name, at, reducing=False)

    def _is_scalar(self, name: str, at: cst.CSTNode) -> bool:
        """Back-propagated by a plain `.backward()`, or computed by loss calls
        that reduce to one number."""
        return self._backpropagated_scalar(name, at) or self._assigned_only_loss_calls(name, at, reducing=True)

    def _assigned_only_loss_calls(self, name: str, at: cst.CSTNode, reducing: bool) -> bool:
        """Every assignment of `name` in the function is a loss call (`reducing`:
        one that returns one number)."""
        body = self.ctx.enclosing_function(at) or self.ctx.module
        calls = [
            n.value
            for n in iter_nodes(body)
            if type(n) is cst.Assign and any(dotted_name(t.target) == name for t in n.targets)
        ]
        losses = [c for c in calls if type(c) is cst.Call and is_loss_call(self.ctx, c)]
        return (bool(losses) and len(losses) == len(calls)
                and (not reducing or all(self._reduces(c) for c in losses)))

    def _reduces(self, call: cst.Call) -> bool:
        """A loss call that returns one number: neither it nor the loss module it calls
        (`nn.CrossEntropyLoss(reduction="none")`, built elsewhere in the file) asks for
        per-element losses, nor passes options we cannot read."""
        sources: list[cst.BaseExpression] = [call]
        if type(call.func) is cst.Call:
            sources.append(call.func)  # nn.MSELoss(...)(a, b)
        elif not is_loss_function(self.ctx.call_name(call)):
            built = Values.of_file(self.ctx).of(call.func)  # the loss module's constructions
            if not built or self._reconfigurable(call.func):
                return False
            sources.extend(built)
        for source in sources:
            if type(source) is not cst.Call or any(arg.star for arg in source.args):
                return False
            # options given by position (`nn.MSELoss(None, None, "none")`, `F.l1_loss(a, b,
            # None, None, "none")`) may ask for per-element losses
            if sum(arg.keyword is None for arg in source.args) > (2 if source is call else 0):
                return False
            if keyword(source, "reduce") is not None or keyword(source, "size_average") is not None:
                return False
            reduction = keyword(source, "reduction")
            if reduction is not None and string_value(reduction.value) not in ("mean", "sum"):
                return False
        return True

    def _reconfigurable(self, module: cst.BaseExpression) -> bool:
        """The loss module may be changed after it was built: its `reduction` (or
        any attribute) assigned, the module handed to a function (`per_sample(criterion)`
        setting `criterion.reduction = "none"`) or bound to another name too."""
        written = self.ctx.code(module)
        for node in self.ctx.nodes_of(cst.Assign, cst.Arg, cst.Attribute):
            if type(node) is cst.Arg:
                if self.ctx.code(node.value) == written:  # type: ignore[attr-defined]
                    return True
                continue
            if type(node) is cst.Attribute:  # `criterion.__init__(reduction="none")`, `criterion.__dict__`
                if node.attr.value in _RECONFIGURING and self.ctx.code(node.value) == written:  # type: ignore[attr-defined]
                    return True
                continue
            if self.ctx.code(node.value) == written or written in _arms(node.value):  # type: ignore[attr-defined]
                return True  # `per_element = criterion`: changed under the other name
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target.target) is cst.Attribute and self.ctx.code(target.target.value) == written:
                    return True
        return False

    def _backpropagated_scalar(self, name: str, at: cst.CSTNode) -> bool:
        """`name.backward()` (no gradient given: one number) ran on the value `at`
        reads: on every way to `at`, with no new value bound to `name` since. A
        backward under a condition the total is added outside of (`if loss != 0:`)
        says nothing of a value that may be a Python number there."""
        body = self.ctx.enclosing_function(at) or self.ctx.module
        if not backpropagated_names(self.ctx, body).get(name, False):
            return False
        before = set(statements_before(self.ctx, at))  # the statements that always run before it
        return any((statement_of(self.ctx, call) in before or self._earlier_on_its_line(call, at))
                   and not self._rebound_between(name, call, at)
                   for call in self.ctx.nodes_of(cst.Call) if self._plain_backward_of(call, name))

    def _earlier_on_its_line(self, call: cst.CSTNode, at: cst.CSTNode) -> bool:
        """`call` is a statement of its own, written before `at` on the same line
        (`loss.backward(); opt.step(); total += loss`): it always runs before it."""
        line = statement_of(self.ctx, at)
        if line is None or statement_of(self.ctx, call) is not line:
            return False
        small = self.ctx.parent(call)
        return (type(small) is cst.Expr and self.ctx.parent(small) is line
                and self.ctx.order_index(call) < self.ctx.order_index(at))

    @staticmethod
    def _plain_backward_of(call: cst.CSTNode, name: str) -> bool:
        """`name.backward()` or `(name / accum_steps).backward()`, no gradient given:
        it runs only on one number, and arithmetic that gives one number broadcasts
        each of its terms to one."""
        receiver = method_call(call, "backward")
        return (receiver is not None and name in {n.value for n in _arithmetic_names(receiver)}
                and not any(arg.keyword is None or arg.keyword.value in ("gradient", "inputs")
                            for arg in call.args))  # type: ignore[attr-defined]

    def _rebound_between(self, name: str, start: cst.CSTNode, end: cst.CSTNode) -> bool:
        first, last = self.ctx.order_index(start), self.ctx.order_index(end)
        for node in self.ctx.nodes_of(cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For):
            if not first < self.ctx.order_index(node) < last:
                continue
            targets = ([t.target for t in node.targets] if type(node) is cst.Assign  # type: ignore[attr-defined]
                       else [node.target])  # type: ignore[attr-defined]
            if any(name in _bound_names(target) for target in targets):
                return True
        return False

    def _used_as_tensor(self, at: cst.CSTNode, accumulator: str) -> bool:
        """Anything the total must be a tensor for would break once it is a float."""
        return needs_tensor(self.ctx, self.ctx.enclosing_function(at) or self.ctx.module, accumulator)


_RECONFIGURING = frozenset({"__init__", "__dict__", "__setattr__", "reduction", "reduce"})


def _packed(value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The value, or the values a dict / list / tuple literal packs."""
    if type(value) is cst.Dict:
        yield from (e.value for e in value.elements if type(e) is cst.DictElement)
    elif type(value) in (cst.List, cst.Tuple):
        yield from (e.value for e in value.elements)
    else:
        yield value


def _arithmetic_names(expr: cst.BaseExpression) -> list[cst.Name]:
    """The names `expr` combines by arithmetic alone (`loss / n + aux`, `-loss`), not
    those inside a call or a subscript."""
    if type(expr) is cst.Name:
        return [expr]
    if type(expr) is cst.BinaryOperation and isinstance(expr.operator, _ARITHMETIC):
        return [*_arithmetic_names(expr.left), *_arithmetic_names(expr.right)]
    if type(expr) is cst.UnaryOperation:
        return _arithmetic_names(expr.expression)
    return []


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if type(target) is cst.Name:
        return [target.value]
    if type(target) is cst.Attribute:
        name = dotted_name(target)  # `self.loss`
        return [name] if name is not None else []
    if type(target) in (cst.Tuple, cst.List):
        return [n for element in target.elements for n in _bound_names(element.value)]
    return []


def _graph_names(expr: cst.BaseExpression, facts: Facts) -> frozenset[cst.Name]:
    """The tracked names that are direct operands of the added value."""
    return frozenset(name for name in _arithmetic_names(expr) if name.value in facts)


def _sets(node: cst.Assign | cst.AnnAssign, accumulator: str) -> bool:
    """`node` sets the accumulator anew (`total = 0`, `self.meters = {}` for
    `self.meters["loss"]`), not adds to it, nor keeps elements of it (`recent =
    recent[-100:]`: a window of the last graphs), also as a part of a tuple assigned
    (`losses, n = [], 0`)."""
    if node.value is None or _adds_to_itself(node):  # `losses: list` sets nothing
        return False
    for target in assignment_targets(node):
        unpacked = type(target) in (cst.Tuple, cst.List)
        for bound, part in assigned_parts(target, node.value) if unpacked else [(target, node.value)]:
            if _accumulator_name(bound) == accumulator or dotted_name(bound) == _base(accumulator):
                return part is not None and not _keeps_elements(part, accumulator) and not _alias(part)
    return False


def _alias(value: cst.BaseExpression) -> bool:
    """`value` is another name for an object that may outlive the iteration (`h =
    history`, the list kept before the loop), not a new one (`None` is no object kept)."""
    return type(value) is cst.Name and value.value not in ("None", "True", "False")


def _keeps_elements(value: cst.BaseExpression, accumulator: str) -> bool:
    """`value` may hold elements of the accumulator as they are: it, a slice of it
    (`recent[-100:]`), a copy of either (`list(recent[-100:])`), an arm of
    `recent[-100:] if len(recent) > 100 else recent` or `recent or []`, a term of
    `recent[-99:] + [loss]`, a list rebuilt of them (see `_rebuilt_of_elements`); not a list
    rebuilt of numbers (`[float(l) for l in recent]`)."""
    if _read_name(value) == accumulator or _slice_of(value, accumulator):
        return True
    if type(value) is cst.Call:
        copied = value.args[0].value if value.args and not value.args[0].keyword and not value.args[0].star else None
        return dotted_name(value.func) in _COPIES and copied is not None and _keeps_elements(copied, accumulator)
    if type(value) is cst.IfExp:
        return _keeps_elements(value.body, accumulator) or _keeps_elements(value.orelse, accumulator)
    if type(value) in (cst.ListComp, cst.SetComp, cst.GeneratorExp):
        return _rebuilt_of_elements(value, accumulator)  # type: ignore[arg-type]
    if type(value) is cst.BooleanOperation or (type(value) is cst.BinaryOperation and type(value.operator) is cst.Add):
        return _keeps_elements(value.left, accumulator) or _keeps_elements(value.right, accumulator)
    if type(value) in (cst.List, cst.Tuple, cst.Set):  # `[*recent[-99:], loss]`
        return any(type(e) is cst.StarredElement and _keeps_elements(e.value, accumulator)
                   for e in value.elements)  # type: ignore[attr-defined]
    return False


def _rebuilt_of_elements(comprehension: cst.ListComp | cst.SetComp | cst.GeneratorExp, accumulator: str) -> bool:
    """A comprehension over the accumulator (or what keeps its elements, `recent[-100:]`)
    that gives its elements, or tensors computed from them with their graphs (`[l for l
    in recent[-100:]]`, `[l.float() for l in recent if l < 10]`); not one that gives
    numbers or detached tensors (`[l.item() for l in recent]`), nor what a call of them
    gives (`[f(l) for l in recent]`: not known)."""
    elements: set[str] = set()
    clause: cst.CompFor | None = comprehension.for_in
    while clause is not None:
        # a later clause binds its names anew (`for l in range(3)`): no element any more
        elements.difference_update(_bound_names(clause.target))
        elements.update(_element_names(clause.target, clause.iter, accumulator))
        clause = clause.inner_for_in
    return _holds_element(comprehension.elt, elements)


def _element_names(target: cst.BaseExpression, iterable: cst.BaseExpression, accumulator: str) -> list[str]:
    """The names a comprehension's `for target in iterable` binds to elements of the
    accumulator: the whole target over what keeps them (`for l in recent[-100:]`), or the
    part paired with them by `enumerate` / `zip` (`for i, l in enumerate(recent)`)."""
    if _keeps_elements(iterable, accumulator):
        return _bound_names(target)
    if type(iterable) is not cst.Call or type(target) not in (cst.Tuple, cst.List) \
            or any(type(e) is cst.StarredElement for e in target.elements):  # type: ignore[attr-defined]
        return []
    if any(arg.star for arg in iterable.args):
        return []
    positional = [arg.value for arg in iterable.args if arg.keyword is None]
    parts = [e.value for e in target.elements]  # type: ignore[attr-defined]
    func = dotted_name(iterable.func)
    if func == "enumerate" and positional and len(parts) == 2:
        pairs = [(parts[1], positional[0])]
    elif func == "zip" and len(positional) == len(parts):
        pairs = list(zip(parts, positional))
    else:
        return []
    return [name for part, source in pairs if _keeps_elements(source, accumulator) for name in _bound_names(part)]


def _holds_element(expr: cst.BaseExpression, elements: set[str]) -> bool:
    """`expr` is one of the names `elements`, or a tensor of its graph: arithmetic on it,
    a method that keeps the graph (`l.float()`), a tuple or list holding one, `x if c else y` whose
    arms both are, `(w := l)`."""
    if type(expr) is cst.Name:
        return expr.value in elements
    if type(expr) is cst.BinaryOperation and isinstance(expr.operator, _ARITHMETIC):
        return _holds_element(expr.left, elements) or _holds_element(expr.right, elements)
    if type(expr) is cst.UnaryOperation:
        return _holds_element(expr.expression, elements)
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in _GRAPH_KEEPING_METHODS:
        return _holds_element(expr.func.value, elements)
    if type(expr) in (cst.Tuple, cst.List):
        return any(_holds_element(element.value, elements) for element in expr.elements)  # type: ignore[attr-defined]
    if type(expr) is cst.IfExp:
        # one arm alone may be taken only for what holds no graph (`l if isinstance(l, float)
        # else l.item()`): both must hold one
        return _holds_element(expr.body, elements) and _holds_element(expr.orelse, elements)
    if type(expr) is cst.NamedExpr:
        return _holds_element(expr.value, elements)
    return False


def _loop_or_with_target(node: cst.CSTNode) -> cst.BaseExpression:
    """What a `for`, `with ... as` or `:=` binds (`node` of another kind: nothing)."""
    if type(node) in (cst.For, cst.NamedExpr):
        return node.target  # type: ignore[attr-defined]
    if type(node) is cst.WithItem and node.asname is not None:
        return node.asname.name
    return cst.Tuple([])


def _sequence_kind(value: cst.BaseExpression) -> str | None:
    """"list", "tuple" or "set" for one written out or built by `list()` / `tuple()` /
    `set()` (`[]`, `[x for x in xs]`, `()`, `list()`, `{x}`), else None."""
    if type(value) in (cst.List, cst.ListComp):
        return "list"
    if type(value) is cst.Tuple:
        return "tuple"
    if type(value) in (cst.Set, cst.SetComp):
        return "set"
    called = dotted_name(value.func) if type(value) is cst.Call else None
    return called if called in ("list", "tuple", "set") else None


def _kind_assigned(ctx: FileContext, where: cst.CSTNode | None, name: str) -> str | None:
    """The one kind (see `_sequence_kind`) every assignment of `name` in `where` (a
    function, the module, a class) gives it, leaving aside those that keep its elements
    (`xs = xs + [x]`, `xs = xs[-100:]`); None when any gives another, or binds it by a loop,
    a `with`, `:=` or unpacking a call's result."""
    nodes: Sequence[cst.CSTNode] = () if where is None else \
        ctx.subtree(where) if type(where) is cst.ClassDef else ctx.own_nodes(where)
    kinds: set[str | None] = set()
    for other in nodes:
        if name in _bound_names(_loop_or_with_target(other)):
            return None  # bound to what a loop, a `with` or `:=` gives
        if type(other) not in (cst.Assign, cst.AnnAssign) or other.value is None:  # type: ignore[attr-defined]
            continue
        for target in assignment_targets(other):
            for bound, part in assigned_parts(target, other.value):  # type: ignore[attr-defined]
                if name not in _bound_names(bound):
                    continue
                if part is None:
                    return None  # unpacked from a call's result
                if not _keeps_elements(part, name):  # `xs = xs + [x]`, `xs = xs[-100:]`: still one
                    kinds.add(_sequence_kind(part))
    return kinds.pop() if len(kinds) == 1 else None


# calls that copy a list's elements as they are
_COPIES = frozenset({"list", "tuple", "deque", "collections.deque"})


def _slice_of(value: cst.BaseExpression | None, accumulator: str) -> bool:
    """`value` is a slice of the accumulator: `recent[-100:]`, `self.losses[1:]`."""
    return (type(value) is cst.Subscript and _accumulator_name(value.value) == accumulator
            and any(type(element.slice) is cst.Slice for element in value.slice))


def _resets(node: cst.CSTNode, accumulator: str) -> bool:
    """`node` sets the accumulator anew (see `_sets`) or empties the list it is:
    `losses.clear()`, `del losses[:]`."""
    if type(node) in (cst.Assign, cst.AnnAssign):
        return _sets(node, accumulator)  # type: ignore[arg-type]
    if type(node) is cst.Call:
        receiver = method_call(node, "clear")
        emptied = receiver if receiver is not None and not node.args else None  # type: ignore[attr-defined]
    elif type(node) is cst.Del:
        # `del losses[:]`, or one of several: `del xs[:], ys[:]`
        targets = [element.value for element in node.target.elements] if type(node.target) is cst.Tuple \
            else [node.target]  # type: ignore[attr-defined]
        return any(type(target) is cst.Subscript and _whole_slice(target)
                   and _accumulator_name(target.value) in (accumulator, _base(accumulator)) for target in targets)
    else:
        return False
    return emptied is not None and _accumulator_name(emptied) in (accumulator, _base(accumulator))


def _whole_slice(subscript: cst.Subscript) -> bool:
    """`xs[:]`: every item."""
    if len(subscript.slice) != 1 or type(subscript.slice[0].slice) is not cst.Slice:
        return False
    whole = subscript.slice[0].slice
    return whole.lower is None and whole.upper is None and whole.step is None  # type: ignore[attr-defined]


def _tried(line: cst.CSTNode, statement: cst.Try | cst.TryStar) -> bool:
    """`line` is a statement of the body or the `else:` of `statement` (not under an `if`
    there), and no handler of it goes on with what follows the `try`: whatever skips
    `line` skips that too."""
    blocks = [statement.body] + ([statement.orelse.body] if statement.orelse is not None else [])
    return (any(any(kid is line for kid in block.body) for block in blocks if type(block) is cst.IndentedBlock)
            and not any(falls_through(handler) for handler in statement.handlers))


def _unconditional(ctx: FileContext, node: cst.CSTNode) -> bool:
    """The statement `node` runs whenever its function does: under no `if`, loop or
    exception handler of it."""
    for ancestor in ctx.ancestors(node):
        if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
            return True
        if type(ancestor) in (cst.If, cst.IfExp, cst.For, cst.While, cst.ExceptHandler, cst.ExceptStarHandler,
                              cst.Match):
            return False
    return True


def _accumulated_into(node: cst.CSTNode) -> str | None:
    """The accumulator of what `_may_accumulate` accepts but a helper's call (see
    `_kept_in`) and what stores elements (see `_stored_elements`): `total` of `total += x`,
    `total = total + x` and `total.add_(x)`."""
    if type(node) is cst.AugAssign:
        return _accumulator_name(node.target)
    if type(node) is cst.Assign:
        return _accumulator_name(node.targets[0].target)
    if _added_in_place(node) is not None:
        return _accumulator_name(node.func.value)  # type: ignore[attr-defined]
    return None


# a tensor's in-place sums: `total.add_(loss)` is `total += loss` on a tensor total
_IN_PLACE = ("add_", "sub_")


def _added_in_place(node: cst.CSTNode) -> cst.BaseExpression | None:
    """What `total.add_(x)` / `total.sub_(x)` (also with `alpha=`) adds to `total`: `x`."""
    if method_call(node, *_IN_PLACE) is None:
        return None
    positional = [arg for arg in node.args if arg.keyword is None]  # type: ignore[attr-defined]
    if len(positional) != 1 or positional[0].star:
        return None
    return positional[0].value


def _adds_to_itself(node: cst.CSTNode) -> bool:
    """`total = total + x`, `losses = [*losses, x]`: an accumulation, not a reset."""
    return type(node) is cst.Assign and (_added_to_itself(node) is not None or _spread_with_itself(node) is not None)


def _spread_with_itself(node: cst.Assign) -> list[cst.BaseExpression] | None:
    """The elements `node` writes beside the accumulator it assigns, unpacked into a new
    list or tuple: `x` of `losses = [*losses, x]`, `losses = (x, *losses[-99:])`. The new
    list keeps every element of the old one (whatever it was: a tensor unpacks into its
    rows) and these too."""
    if len(node.targets) != 1 or type(node.value) not in (cst.List, cst.Tuple):
        return None
    name = _accumulator_name(node.targets[0].target)
    elements = node.value.elements  # type: ignore[attr-defined]
    spread = [e for e in elements if type(e) is cst.StarredElement]
    if name is None or len(spread) != 1 or not _keeps_elements(spread[0].value, name):
        return None
    return [e.value for e in elements if type(e) is not cst.StarredElement]


def _next_iteration(facts: Facts) -> Facts:
    """What is back-propagated by the end of an iteration was so in an earlier one."""
    if not any(fact.startswith(_SPENT) for fact in facts):
        return facts
    return frozenset(_SPENT_BEFORE + fact[len(_SPENT):] if fact.startswith(_SPENT) else fact for fact in facts)


def _without_spent(facts: Facts, name: str) -> Facts:
    """`facts` but that `name` was back-propagated (it is set anew)."""
    marks = (f"{_SPENT}{name}@", f"{_SPENT_BEFORE}{name}@")
    return frozenset(fact for fact in facts if not fact.startswith(marks))


def _spent_name(target: cst.BaseExpression) -> str | None:
    """The variable a backward pass runs through: `loss` of `loss.backward()`, of
    `loss.mean().backward()`, `loss.sum()`, `loss.float()` (the same graph)."""
    while (type(target) is cst.Call and type(target.func) is cst.Attribute
           and target.func.attr.value in _GRAPH_KEEPING_METHODS and not target.args):
        target = target.func.value
    return target.value if type(target) is cst.Name else None


def _added_to_itself(node: cst.Assign) -> cst.BaseExpression | None:
    """What `node` adds to the variable it assigns: `x` of `total = total + x`,
    `x + total`, `logs["loss"] = logs.get("loss", 0.0) + x`, and of a running
    average, `avg = 0.98 * avg + 0.02 * x` (the old value scaled, then added to:
    each step's graph is still in it)."""
    if len(node.targets) != 1:
        return None
    name = _accumulator_name(node.targets[0].target)
    value = node.value
    if name is None or type(value) is not cst.BinaryOperation or type(value.operator) is not cst.Add:
        return None
    if _is_kept(value.left, name):
        return value.right
    if _is_kept(value.right, name):
        return value.left
    return None


def _is_kept(term: cst.BaseExpression, name: str) -> bool:
    """`term` reads the accumulator `name`, a slice of it (`recent[-99:]` of a
    window), or it scaled (`0.98 * avg`, `avg * decay`, `avg / 2`)."""
    if _read_name(term) == name or _slice_of(term, name):
        return True
    return (type(term) is cst.BinaryOperation and type(term.operator) in (cst.Multiply, cst.Divide)
            and (_read_name(term.left) == name or
                 (type(term.operator) is cst.Multiply and _read_name(term.right) == name)))


def _read_name(term: cst.BaseExpression) -> str | None:
    """The accumulator `term` reads: see `_accumulator_name`; `logs.get("loss", 0.0)`
    reads `logs["loss"]`."""
    if (type(term) is cst.Call and type(term.func) is cst.Attribute and term.func.attr.value == "get"
            and 1 <= len(term.args) <= 2 and not any(arg.keyword or arg.star for arg in term.args)):
        return _item_name(term.func.value, term.args[0].value)
    return _accumulator_name(term)


def _arms(value: cst.BaseExpression) -> set[str]:
    """The names `value` may evaluate to as it is (`a or b`, `a if c else b`: `a` and `b`)."""
    return {arm.value for arm in alternatives(value) if type(arm) is cst.Name}


def _accumulator_name(expr: cst.BaseExpression) -> str | None:
    """`losses` or `self.losses`, or an item of one (see `_item_name`:
    `history["train_loss"]`, a Keras-style history of lists, `meters[name]`), also as
    `setdefault` gives it (`history.setdefault("train_loss", [])`)."""
    if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
        return _item_name(expr.value, expr.slice[0].slice.value)
    if method_call(expr, "setdefault") is not None and len(expr.args) == 2 \
            and not any(arg.keyword or arg.star for arg in expr.args):  # type: ignore[attr-defined]
        return _item_name(expr.func.value, expr.args[0].value)  # type: ignore[attr-defined]
    return dotted_name(expr)


def _item_name(container: cst.BaseExpression, key: cst.BaseExpression) -> str | None:
    """The accumulator kept in `container` under `key`: a constant (`history["loss"]`,
    whatever its quotes), or a variable, as written (`meters[name]`: the item whose key
    the variable holds where it is read; a reset of it is `meters[name] = 0.0` with `name`
    not bound anew before the add (see `_key_moved`), or of the whole container); None for any other key (`meters[f"{name}_loss"]`)."""
    base = dotted_name(container)
    text = _key_text(key)
    if text is None and type(key) is cst.Name and key.value not in ("None", "True", "False"):
        text = key.value
    return f"{base}[{text}]" if base is not None and text is not None else None


def _item_fact(base: str, item: str) -> str:
    """An item of `Summary.returned_items` read from `base`, written as `_accumulator_name`
    writes the read: `out[0]` of "#0", `out['loss']` of "loss", `out.loss` of ".loss" (a
    named tuple's field)."""
    if item.startswith("."):
        return base + item
    return f"{base}[{item[1:] if item.startswith('#') else repr(item)}]"


def _item_read(expr: cst.Attribute | cst.Subscript) -> str | None:
    """The item `expr` reads from what it reads it of, as `_item_fact` writes it from "":
    `[0]` of `x[0]`, `['loss']` of `x["loss"]`, `.loss` of `x.loss`; None for a key that is
    no constant."""
    if type(expr) is cst.Attribute:
        return f".{expr.attr.value}"
    if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:  # type: ignore[union-attr]
        return None
    key = _key_text(expr.slice[0].slice.value)  # type: ignore[union-attr]
    return f"[{key}]" if key is not None else None


def _unpacked_items(target: cst.BaseExpression, items: tuple[str, ...]) -> set[str]:
    """The names of a tuple target (`loss, acc = ...`) given the items among `items`."""
    if not items or type(target) not in (cst.Tuple, cst.List) or any(
            type(element) is cst.StarredElement for element in target.elements):  # type: ignore[attr-defined]
        return set()
    return {name for index, element in enumerate(target.elements)  # type: ignore[attr-defined]
            if f"#{index}" in items and type(element.value) in (cst.Name, cst.Attribute)
            for name in _bound_names(element.value)}


def _holds_elements(facts: Facts) -> bool:
    return any(_ELEMENT in fact for fact in facts)


def _without_elements(facts: Facts) -> Facts:
    """`facts` but what the elements of lists hold."""
    return frozenset(fact for fact in facts if _ELEMENT not in fact)


def _without_bound(facts: Facts, comprehension: cst.GeneratorExp | cst.ListComp) -> Facts:
    """`facts` but those of the names a comprehension binds: its own variables, whatever
    the names outside it hold (`sum(loss for loss in logged)`)."""
    bound: set[str] = set()
    for_in: cst.CompFor | None = comprehension.for_in
    while for_in is not None:
        bound.update(_bound_names(for_in.target))
        for_in = for_in.inner_for_in
    return frozenset(fact for fact in facts
                     if fact not in bound and not fact.startswith(tuple(f"{n}{c}" for n in bound for c in ".[")))


def _describe_items(reads: set[str]) -> str:
    """The items of a step's named tuple (tuple, dict) holding the graph, for a message:
    its fields by name where it has them (".loss": "its `loss` field"), else its keys or
    positions ("['loss']", "[0]")."""
    fields = sorted(read[1:] for read in reads if read.startswith("."))
    if fields:
        return "its " + ", ".join(f"`{field}`" for field in fields) + (" field" if len(fields) == 1 else " fields")
    return "its item " + ", ".join(f"`{read[1:-1]}`" for read in sorted(reads))


def _key_text(key: cst.BaseExpression) -> str | None:
    """A constant key, written one way whatever its quotes (`"loss"`, `'loss'`)."""
    if type(key) is cst.Integer:
        return key.value
    value = string_value(key)
    return repr(value) if value is not None else None


def _variable_key(accumulator: str) -> str | None:
    """The variable whose value is the key of the item `accumulator` names: `name` of
    `meters[name]` (see `_item_name`); None for a constant key or no item."""
    base, bracket, key = accumulator.partition("[")
    return key[:-1] if bracket and key.endswith("]") and key[:-1].isidentifier() else None


def _base(accumulator: str) -> str:
    """The variable holding the accumulator: `history` of `history["train_loss"]`."""
    return accumulator.split("[", 1)[0]

