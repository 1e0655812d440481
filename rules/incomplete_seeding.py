from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from trainlint.analysis.training import ancestors_within, loops_within
from trainlint.rule import Rule

_TORCH_SEEDS = frozenset({"torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"})
_RANDOM_SEEDS = frozenset({"random.seed"})
_NUMPY_SEEDS = frozenset({"numpy.random.seed", "numpy.random.default_rng", "numpy.random.RandomState"})
# numpy.random names that do not draw from the global generator
_NUMPY_NOT_GLOBAL = frozenset({"seed", "default_rng", "RandomState", "Generator", "SeedSequence", "get_state", "set_state", "PCG64", "MT19937"})
# calls that put torch's generator back as it was (a function seeding only for its own draw)
# (CPU's: `torch.manual_seed` seeds it, and a CUDA generator put back leaves it seeded)
_RNG_RESTORES = frozenset({"torch.set_rng_state", "torch.random.set_rng_state"})
_RNG_FORKS = frozenset({"torch.random.fork_rng", "torch.cuda.random.fork_rng"})
_RANDOM_NOT_GLOBAL = frozenset({"seed", "Random", "SystemRandom", "getstate", "setstate"})


class IncompleteSeeding(Rule):
    """
    ## What it does
    Flags a function that seeds PyTorch (`torch.manual_seed(...)`) but not
    Python's `random` or NumPy's global generator, when the same file draws
    random numbers from them (`random.shuffle`, `np.random.randint`, ...).
    The finding points at the torch seeding call.

    ## Why is this bad?
    Each library has its own generator. A run seeded only through torch still
    shuffles, augments or samples differently every time through `random` and
    `numpy`, so two runs with "the same seed" are not comparable and a bug
    that depends on the data order cannot be reproduced.

    ## Example
    ```python
    import random
    import torch
    def set_seed(seed):
        torch.manual_seed(seed)
    order = random.sample(range(len(dataset)), len(dataset))
    ```

    ## Use instead
    ```python
    def set_seed(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
    ```

    ## Fix safety
    No fix: where the seed should come from is the author's choice.

    ## Limitations
    A preview rule (off unless selected). `torch.manual_seed` already seeds
    every CUDA device, so a missing `torch.cuda.manual_seed_all` is not a
    finding. A function that calls any other seeding helper
    (`seed_everything`, `transformers.set_seed`) is assumed to seed the rest,
    and a seed inside `with torch.random.fork_rng():` or followed by an
    unconditional `torch.set_rng_state(saved)` (a reproducible draw of the
    function's own) seeds no run. A seed set again on every pass of a loop
    (one per sampled answer) seeds those passes: it is flagged only when the
    function draws from `random` or NumPy, in its body or through the
    functions of the file it calls;
    randomness used only inside other modules (augmentation libraries,
    DataLoader workers) is not seen.
    """

    code = "TL503"
    name = "incomplete-seeding"
    severity = "info"
    message = "this seeding function seeds torch but not the `random` / `numpy` generators this file uses"
    preview = True
    triggers = ("manual_seed",)
    bad = (
        "import random\n"
        "import torch\n"
        "def set_seed(seed):\n"
        "    torch.manual_seed(seed)  # expect: TL503\n"
        "    torch.cuda.manual_seed_all(seed)\n"
        "random.shuffle(files)\n",
        "import numpy as np\n"
        "import torch\n"
        "def seed_all(seed=0):\n"
        "    torch.manual_seed(seed)  # expect: TL503\n"
        "def augment(x):\n"
        "    return x + np.random.normal(0, 0.1, x.shape)\n",
        "import random\n"
        "import numpy\n"
        "from torch import manual_seed\n"
        "def init(seed):\n"
        "    random.seed(seed)\n"
        "    manual_seed(seed)  # expect: TL503\n"
        "idx = numpy.random.permutation(100)\n",
        "from random import randint\n"
        "import torch as th\n"
        "class Experiment:\n"
        "    def seed(self, value):\n"
        "        th.cuda.manual_seed_all(value)  # expect: TL503\n"
        "        th.manual_seed(value)\n"
        "crop = randint(0, 32)\n",
        # a checkpoint's generator state restored on resume only: the seed is the run's
        "import random\n"
        "import torch\n"
        "def setup(seed, ckpt=None):\n"
        "    torch.manual_seed(seed)  # expect: TL503\n"
        "    if ckpt is not None:\n"
        "        torch.set_rng_state(ckpt[\"torch_rng\"])\n"
        "def augment(x):\n"
        "    return x.flip(-1) if random.random() < 0.5 else x\n",
        # seeded again on each pass of a loop (one run per seed), and each pass
        # draws from `random` through a function of the file
        "import random\n"
        "import torch\n"
        "def augment(x):\n"
        "    return x.flip(-1) if random.random() < 0.5 else x\n"
        "def sweep(make_model, batches, seeds):\n"
        "    for seed in seeds:\n"
        "        torch.manual_seed(seed)  # expect: TL503\n"
        "        model = make_model()\n"
        "        for x in batches:\n"
        "            model(augment(x)).sum().backward()\n",
    )
    good = (
        # the chapter's set_seed
        "import random\n"
        "import numpy as np\n"
        "import torch\n"
        "def set_seed(seed=42):\n"
        "    random.seed(seed)\n"
        "    np.random.seed(seed)\n"
        "    torch.manual_seed(seed)\n"
        "    torch.cuda.manual_seed_all(seed)\n"
        "x = np.random.rand(3)\n",
        # numpy imported but only its own generators used
        "import numpy as np\n"
        "import torch\n"
        "def set_seed(seed):\n"
        "    torch.manual_seed(seed)\n"
        "rng = np.random.default_rng(0)\n"
        "x = rng.normal(size=3)\n",
        # another helper seeds the rest
        "import random\n"
        "import torch\n"
        "from transformers import set_seed\n"
        "def setup(seed):\n"
        "    set_seed(seed)\n"
        "    torch.manual_seed(seed)\n"
        "random.shuffle(items)\n",
        # module-level seeding is not a seeding function
        "import random\n"
        "import torch\n"
        "torch.manual_seed(0)\n"
        "random.shuffle(items)\n",
        "import torch\n"
        "def set_seed(seed):\n"
        "    torch.manual_seed(seed)\n"
        "perm = torch.randperm(10)\n",
        # seeds for a draw of its own and puts the generator back
        "import random\n"
        "import torch\n"
        "def gumbel_sample(logits, seed):\n"
        "    state = torch.get_rng_state()\n"
        "    torch.manual_seed(seed)\n"
        "    try:\n"
        "        return torch.nn.functional.gumbel_softmax(logits, hard=True)\n"
        "    finally:\n"
        "        torch.set_rng_state(state)\n"
        "def pick():\n"
        "    return random.random() > 0.5\n",
        # a seed inside `fork_rng()`: the generator is put back when the block ends
        "import random\n"
        "import torch\n"
        "def fixed_noise(model):\n"
        "    with torch.random.fork_rng():\n"
        "        torch.manual_seed(0)\n"
        "        return model(torch.randn(16, 128))\n"
        "def augment(x):\n"
        "    return x.flip(-1) if random.random() < 0.5 else x\n",
        # seed and restore under the same condition
        "import random\n"
        "import torch\n"
        "def sample_grid(netG, fixed=True):\n"
        "    if fixed:\n"
        "        state = torch.get_rng_state()\n"
        "        torch.manual_seed(0)\n"
        "        z = torch.randn(64, 128)\n"
        "        torch.set_rng_state(state)\n"
        "    else:\n"
        "        z = torch.randn(64, 128)\n"
        "    return netG(z)\n"
        "def augment(x):\n"
        "    return x.flip(-1) if random.random() < 0.5 else x\n",
        # seeded again for each sampled answer: the pass draws from torch only; the
        # file's `random` shuffles the questions elsewhere (FastChat's answer generation)
        "import random\n"
        "import torch\n"
        "def answer_all(model, questions, n):\n"
        "    random.shuffle(questions)\n"
        "    return [sample_answers(model, q, n) for q in questions]\n"
        "def sample_answers(model, prompt, n):\n"
        "    answers = []\n"
        "    for i in range(n):\n"
        "        torch.manual_seed(i)\n"
        "        answers.append(model.generate(prompt, do_sample=True))\n"
        "    return answers\n",
    )

    def finish(self) -> None:
        uses = self._draws(self.ctx.nodes_of(cst.Call))
        uses_random, uses_numpy = "random" in uses, "numpy" in uses
        if not uses_random and not uses_numpy:
            return
        for func in (f for defs in self.ctx.scopes.functions.values() for f in defs):
            self._check(func, uses_random, uses_numpy)

    def _check(self, func: cst.FunctionDef, uses_random: bool, uses_numpy: bool) -> None:
        torch_seed: cst.Call | None = None
        every_pass = True  # each torch seed is set again on every pass of a loop
        seeded: set[str] = set()
        for call in self.ctx.calls_in_order(func.body):
            name = self.ctx.call_name(call)
            if name in _TORCH_SEEDS:
                if not self._own_draw(call, func):
                    torch_seed = torch_seed or call
                    every_pass &= bool(loops_within(self.ctx, call, func))
            elif name in _RANDOM_SEEDS:
                seeded.add("random")
            elif name in _NUMPY_SEEDS:
                seeded.add("numpy")
            elif "seed" in self.ctx.code(call.func).lower():
                return  # an unknown seeding helper may seed everything
        if torch_seed is not None and every_pass:
            # a seed for each pass (one per sampled answer) governs the draws of the
            # function's passes, not the run's: those of its body and what it calls here
            drawn = self._draws(self._reached_calls(func))
            uses_random, uses_numpy = "random" in drawn, "numpy" in drawn
        missing = [m for m, used in (("random", uses_random), ("numpy", uses_numpy)) if used and m not in seeded]
        if torch_seed is not None and missing:
            names = " or ".join(f"`{m}`" for m in missing)
            self.report(torch_seed, f"this seeding function seeds torch but not {names}, which this file uses")

    def _draws(self, calls: Iterable[cst.Call]) -> set[str]:
        """The global generators (`random`, `numpy`) that `calls` draw from."""
        found: set[str] = set()
        for call in calls:
            head, _, last = (self.ctx.call_name(call) or "").rpartition(".")
            if head == "random" and last not in _RANDOM_NOT_GLOBAL:
                found.add("random")
            elif head == "numpy.random" and last not in _NUMPY_NOT_GLOBAL:
                found.add("numpy")
        return found

    def _reached_calls(self, func: cst.FunctionDef) -> list[cst.Call]:
        """The calls of `func`'s body and of the functions of this file it calls, through them."""
        found: list[cst.Call] = []
        seen = {func}
        todo = [func]
        while todo:
            for call in self.ctx.calls_in_order(todo.pop().body):
                found.append(call)
                for callee in self.ctx.functions_called(call):
                    if callee not in seen:
                        seen.add(callee)
                        todo.append(callee)
        return found

    def _own_draw(self, seed: cst.Call, func: cst.FunctionDef) -> bool:
        """A seed for a draw of the function's own, not the run's: inside `with
        torch.random.fork_rng():`, or followed by a restore of the generator's state
        that always runs (`torch.set_rng_state(saved)`; one under an `if`, a resumed
        checkpoint's state, restores nothing the seed set)."""
        around_seed = ancestors_within(self.ctx, seed, func)
        if any(type(ancestor) is cst.With and any(type(item.item) is cst.Call and self.ctx.call_name(item.item) in _RNG_FORKS
                                                 for item in ancestor.items) for ancestor in around_seed):
            return True
        after = self.ctx.order_index(seed)
        # the restore runs whenever the seed did: no condition or loop of its own
        return any(self.ctx.call_name(call) in _RNG_RESTORES and self.ctx.order_index(call) > after
                   and not any(type(a) in (cst.If, cst.For, cst.While) and a not in around_seed
                               for a in ancestors_within(self.ctx, call, func))
                   for call in self.ctx.calls_in_order(func.body))

