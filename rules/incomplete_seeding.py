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
# calls a seeding helper makes besides its seeds: reporting, reading the environment, checks
_BOOKKEEPING = frozenset({"print", "info", "debug", "warning", "warn", "log", "format", "str", "int", "hash",
                          "getenv", "get", "is_available", "device_count", "use_deterministic_algorithms",
                          "get_rng_state", "set_rng_state", "getstate", "setstate", "get_state", "set_state"})


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
    function's own) seeds no run, nor does one whose generator is used
    (`pipe(..., generator=torch.manual_seed(0))`). A function that goes on,
    after seeding, to work of its own (a `main`, a test, a model builder, a
    loop sampling one answer per seed) rather than a seeding helper's
    printing and checks, is flagged only where the draws from `random` or
    NumPy run with its seed in force: in its body, in the functions and
    classes of the file it calls or builds (a dataset's `__getitem__`), or in
    a function of the file that calls it, after the call;
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
        # the run's seed beside a generator handed to one pipeline call
        "import numpy as np\n"
        "import torch\n"
        "def seed_all(seed):\n"
        "    torch.manual_seed(seed)  # expect: TL503\n"
        "def validate(pipe, prompts):\n"
        "    return pipe(prompts, generator=torch.manual_seed(0))\n"
        "noise = np.random.randn(4)\n",
        # a main that seeds, then trains on a dataset of the file that draws from `random`
        "import random\n"
        "import torch\n"
        "class PairDataset(torch.utils.data.Dataset):\n"
        "    def __getitem__(self, index):\n"
        "        return self.items[random.randint(0, 9)]\n"
        "def main(args):\n"
        "    torch.manual_seed(args.seed)  # expect: TL503\n"
        "    loader = torch.utils.data.DataLoader(PairDataset(), batch_size=8)\n"
        "    train(loader)\n",
        # a builder that seeds the model's initialisation, whose caller then draws from `random`
        "import random\n"
        "import torch\n"
        "def build(seed):\n"
        "    torch.manual_seed(seed)  # expect: TL503\n"
        "    return torch.nn.Linear(4, 4)\n"
        "def main(files):\n"
        "    model = build(0)\n"
        "    random.shuffle(files)\n"
        "    return model\n",
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
        # the seed's generator handed to one pipeline call (diffusers' tests)
        "import numpy as np\n"
        "import torch\n"
        "def make_inputs():\n"
        "    np.random.seed(0)\n"
        "    return {\"image\": np.random.randint(0, 255, (8, 8, 3))}\n"
        "def test_output(pipe):\n"
        "    return pipe(**make_inputs(), generator=torch.manual_seed(0))\n",
        # tests that seed torch for their own draws; another test draws from NumPy
        "import numpy as np\n"
        "import torch\n"
        "def test_loader():\n"
        "    torch.manual_seed(12345)\n"
        "    edge_index = torch.randint(0, 100, (2, 500))\n"
        "    assert edge_index.max() < 100\n"
        "def test_features():\n"
        "    x = np.random.randn(100, 32)\n"
        "    assert x.shape == (100, 32)\n",
        # a setup that seeds the model's initialisation; `random` only picks a port elsewhere
        "import random\n"
        "import torch\n"
        "def setup_model(args):\n"
        "    torch.manual_seed(1)\n"
        "    model = torch.nn.Linear(args.size, 2)\n"
        "    return model, torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "def setup_args(args):\n"
        "    args.port = random.randint(10000, 20000)\n"
        "    return args\n",
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
        works = False  # the function goes on to work of its own after seeding torch
        seeded: set[str] = set()
        for call in self.ctx.calls_in_order(func.body):
            name = self.ctx.call_name(call)
            if name in _TORCH_SEEDS:
                if not self._own_draw(call, func):
                    torch_seed = torch_seed or call
            elif name in _RANDOM_SEEDS:
                seeded.add("random")
            elif name in _NUMPY_SEEDS:
                seeded.add("numpy")
            elif "seed" in self.ctx.code(call.func).lower():
                return  # an unknown seeding helper may seed everything
            elif torch_seed is not None and (name or self.ctx.code(call.func)).rpartition(".")[2] not in _BOOKKEEPING:
                works = True
        if torch_seed is not None and works:
            # a function that seeds, then builds, trains, tests or samples (not a seeding
            # helper) seeds the draws it makes: those of its body, of what it calls or
            # builds here, and of the functions of the file that call it
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
        """The calls that run with `func`'s seed in force: those of its body (nested
        functions too), of the functions and classes of this file it calls or builds,
        and those of the functions of the file that call it (or of the module, where
        it is called there) from the call on, through them all."""
        found: list[cst.Call] = []
        seen: set[cst.CSTNode] = {func}
        todo: list[tuple[cst.CSTNode, cst.Call | None]] = [(func, None)]
        while todo:
            current, site = todo.pop()
            body = current.body if type(current) is cst.FunctionDef else current
            calls = [node for node in self.ctx.subtree(body) if type(node) is cst.Call]
            if site is not None:  # a caller: what runs after `site` returns
                around = loops_within(self.ctx, site, current)
                calls = [call for call in calls if self.ctx.order_index(call) > self.ctx.order_index(site)
                         or loops_within(self.ctx, call, current) & around]
            found += calls  # type: ignore[arg-type]
            reached: list[tuple[cst.CSTNode, cst.Call | None]] = []
            for call in calls:
                reached += [(method, None) for method in self._run_by(call)]  # type: ignore[arg-type]
            if type(current) is cst.FunctionDef and site is None:
                reached += [(self.ctx.enclosing_function(caller) or self.ctx.module, caller)
                            for caller in self.ctx.call_sites(current)]
            for node, after in reached:
                if node not in seen:
                    seen.add(node)
                    todo.append((node, after))
        return found

    def _run_by(self, call: cst.Call) -> list[cst.FunctionDef]:
        """The functions of this file `call` runs, and every method of a class of the
        file it builds: the object hands them (a dataset's `__getitem__`) to the code
        that uses it."""
        found: list[cst.FunctionDef] = []
        for callee in self.ctx.functions_called(call):
            found += self._class_methods(callee) or [callee]
        if not found and type(call.func) is cst.Name and self.ctx.qualified_name(call.func) is None:
            for owner in self.ctx.nodes_of(cst.ClassDef):  # a class without an `__init__`
                if owner.name.value == call.func.value:  # type: ignore[attr-defined]
                    found += _methods(owner)  # type: ignore[arg-type]
        return found

    def _class_methods(self, constructor: cst.FunctionDef) -> list[cst.FunctionDef]:
        """Every method of the class whose `__init__` `constructor` is: building an
        object hands its methods (a dataset's `__getitem__`) to the code that uses it."""
        if constructor.name.value != "__init__":
            return []
        owner = self.ctx.parent(self.ctx.parent(constructor))
        return _methods(owner) if type(owner) is cst.ClassDef else []

    def _own_draw(self, seed: cst.Call, func: cst.FunctionDef) -> bool:
        """A seed for a draw of the function's own, not the run's: inside `with
        torch.random.fork_rng():`, or followed by a restore of the generator's state
        that always runs (`torch.set_rng_state(saved)`; one under an `if`, a resumed
        checkpoint's state, restores nothing the seed set)."""
        if type(self.ctx.parent(seed)) is not cst.Expr:
            return True  # its generator is used: `pipe(..., generator=torch.manual_seed(0))`
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


def _methods(owner: cst.ClassDef) -> list[cst.FunctionDef]:
    """The methods a class body defines."""
    return [node for node in owner.body.body if type(node) is cst.FunctionDef]  # type: ignore[misc]
