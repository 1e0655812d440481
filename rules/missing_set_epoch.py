from __future__ import annotations

import re

import libcst as cst

from trainlint.analysis.accumulators import STORING_METHODS
from trainlint.analysis.dataflow import DATALOADER as DATALOADER_CLASS
from trainlint.analysis.dataflow import iterated_loader, iterated_where_built, only_splatted
from trainlint.analysis.iteration import file_trains, trains
from trainlint.analysis.literals import constant_text, string_value, subscript_key
from trainlint.analysis.receivers import DATALOADER, SAMPLER, Binding, sampler_shuffle
from trainlint.analysis.summarize import batched
from trainlint.analysis.scopes import argument_slots, bound_arguments
from trainlint.analysis.training import method_call
from trainlint.analysis.walk import children, iter_nodes
from trainlint.context import FileContext
from trainlint.summaries import BACKWARD, DISTRIBUTED_LOADER, LOOP, STEP, Summary, item_position, shuffles_with
from trainlint.rule import Rule

DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"
_EVALUATION = re.compile(r"val|test|eval|dev_|_dev|infer|predict", re.IGNORECASE)
_MAX_BUILDERS = 4  # returns followed to their call sites before giving up (silently)
# libraries that wrap a loader only to iterate it (progress bars and the like)
_LIBRARIES_THAT_ONLY_ITERATE = frozenset({"torch", "tqdm", "itertools", "rich", "builtins"})
# values made from a loader that are not the loader: a number, a text, a truth value
_MADE_FROM_IT = (cst.FormattedString, cst.ConcatenatedString, cst.BinaryOperation, cst.Comparison,
                 cst.UnaryOperation)
# what a loader's (or a sampler's) attributes hold besides the sampler: `loader.dataset` handed
# to a logger is not the loader, while `loader.sampler` and `loader.batch_sampler` may be set an epoch
_NOT_THE_SAMPLER = frozenset({"dataset", "batch_size", "num_workers", "collate_fn", "drop_last", "pin_memory",
                              "num_replicas", "rank"})
_MEASURES = frozenset({"len", "str", "repr", "int", "float", "bool", "format", "isinstance", "type", "id",
                       "hash", "builtins.len", "builtins.str", "builtins.repr", "builtins.int", "builtins.float",
                       "builtins.bool", "builtins.format", "builtins.isinstance", "builtins.type", "builtins.id",
                       "builtins.hash"})


class MissingSetEpoch(Rule):
    """
    ## What it does
    Flags a shuffling `DistributedSampler` used for training when nothing in
    the file calls `set_epoch(...)` on it: not directly, not through
    `loader.sampler`, not in a helper of the same file.

    ## Why is this bad?
    `DistributedSampler` shuffles with a generator seeded by `seed + epoch`.
    The epoch only changes when `set_epoch` is called, so without it every
    epoch visits the data in exactly the same order on every rank. Training
    still runs, but loses the benefit of reshuffling, often with a visible
    cost in accuracy, and nothing warns about it.

    ## Fix safety
    No fix: the call belongs at the start of each epoch of the training loop,
    which a tool cannot always find.

    The same holds across the files of a project: a builder of another
    module that returns a DataLoader on a `DistributedSampler` that always
    shuffles (`shuffle` left to its default, or `True`; given as `sampler=`,
    or as `batch_sampler=` wrapped in a `BatchSampler`), alone or in a tuple
    of loaders it builds itself (`return train_loader, val_loader`), or in the
    dict literal it returns (`return {"train": DataLoader(...), "val": ...}`,
    every return such a dict, its keys written out; when a loop of the file
    that trains reads the dict under such a key, `loaders["train"]`), is
    flagged where the file calls it, when nothing calls `set_epoch` on the
    loader it returns and the file trains (back-propagates or steps, itself or
    through the functions it calls: a module that only measures accuracy
    iterates its loaders for evaluation). So is a builder of another module
    that returns the sampler itself, or a DataLoader's keyword arguments that
    hold it (`kwargs["sampler"] = DistributedSampler(ds, shuffle=mode ==
    "train")`, then `return kwargs`): the finding is at each `DataLoader(ds,
    **kwargs)` (or `DataLoader(ds, sampler=sampler)`) of the calling file that a
    loop of the file, or a function of the project it is handed to, trains on,
    where the sampler shuffles for the argument the call writes out (`"train"`,
    by position or by keyword; a value the file does not write out is not
    followed), or for the parameter's default when the call leaves it out and
    unpacks nothing (`def loader_kwargs(ds, mode="train")`), and nothing may
    call `set_epoch` on the loader or the sampler. The dict may keep the sampler
    inside a batch sampler (`"batch_sampler": BatchSampler(DistributedSampler(ds),
    32, False)`), the calling file may wrap the returned sampler in one
    (`batch_sampler=BatchSampler(sampler, 32, False)`), and a function of the
    project that returns such a builder's result as it is (`return
    loader_kwargs(ds, "train")`, or passing on a parameter of its own), or after
    changing only other keys of it (`kwargs["shuffle"] = False`,
    `kwargs.update(num_workers=4)`: not `kwargs.update(sampler=None)` nor `del
    kwargs["sampler"]`), is a builder too, and so is the caller's own change of
    such keys before the loader takes them. A batch sampler around the sampler
    may be kept in a variable first (`batches = BatchSampler(sampler, 32,
    False)`, then `DataLoader(ds, batch_sampler=batches)`), in the calling file
    as in the builder's. A builder, of this file or another, that returns the
    DataLoader itself on a sampler that shuffles for the argument the call
    writes out (`return DataLoader(ds, sampler=DistributedSampler(ds,
    shuffle=mode == "train"))`) is flagged at the call (`build(ds, "train")`,
    not `build(ds, "val")`) when the file trains on the loader it returns.

    ## Limitations
    Samplers built with `shuffle=False` (or a `shuffle=` decided by an
    expression such as `split == "train"`, or a builder's parameter that
    defaults to `False`; a config value or a flag counts as shuffling),
    samplers for evaluation data (the variable or the dataset it samples
    named with `val`, `test`, `eval`, a dict that keeps them only under such
    keys, written out or run over by its comprehension (`{x:
    DistributedSampler(ds[x]) for x in ["val", "test"]}`), or a builder
    called only from a function so named or with `eval_set=True` /
    `split="val"`), and samplers
    that leave the file are not flagged: returned from a builder function
    (alone, inside their DataLoader or in a list that collects them, also
    from the attribute that keeps them, also one built as one branch of a
    conditional such as `DataLoader(...) if ds is not None else None`) that
    no code of the file calls, or whose result a call of the file passes on;
    or handed, alone or inside their DataLoader, to a function or class
    imported from another module, such as a project's `Trainer`, or to a
    method of an object whose class the file cannot see (`trainer.train(epoch,
    loader)`, when no loop of the file iterates the loader itself); or kept in an attribute of the object that nothing in the file
    reads, by a class that runs no loop (a mixin that sets `self.train_loader`
    for a base class elsewhere to train on) (a number or
    a text made from the loader, `len(loader)` or an f-string, is not the
    loader, nor is what it holds besides the sampler, `logger.info(loader.dataset)`,
    nor is another function's variable of the same name). Nor is a
    loader that objects of a class of the file keep (set in `__init__`) and
    step through by hand only (`self.pending = iter(self.loader)`, then
    `next(self.pending)`), when the file makes them itself and nothing in it
    trains: an environment that serves a dataset to a frozen policy (a class
    the file never makes may feed another module's training loop, and is
    flagged). A builder
    that the file calls is followed to each call site: `train_loader, valset
    = prepare_dataloaders(hparams)` keeps the sampler in `train_loader`, also
    where the builder makes the loader in the tuple or the dict literal it returns
    (`return DataLoader(ds, sampler=DistributedSampler(ds)), aux_loader`, or
    `return {"train": DataLoader(...)}`, the dict kept whole by the caller), and
    the checks start again from there, with what the builder returned beside
    the loader (`loader, sampler = build(ds)`: the sampler itself, handed on
    to a `train_model(model, sampler, loader)` that sets its epoch). A function of
    the project's other modules whose code shows it never calls `set_epoch`
    on what it is given (a `train_one_epoch(model, loader, ...)` of
    `engine.py`, a `sample_data(loader)` generator) is no such excuse; a
    class of the project is, since any of its methods may call it, but a
    builder that returns the loader wrapped in an iterable class of its own
    file that never calls `set_epoch` (a prefetcher) returns the loader as
    far as its callers go: the epoch is still theirs to set. Any
    `set_epoch(...)` call in the file whose receiver could be the sampler
    counts as calling it, including a call on a function parameter that a
    call in the file passes this sampler to; not one on a variable of another
    function that shares its name and holds a `DistributedSampler` built there
    (`sampler = DistributedSampler(val_ds, shuffle=False)`), nor on the
    `.sampler` of another function's loader built there on a sampler of its
    own (`DataLoader(ds, sampler=sampler)` of a `sampler =
    DistributedSampler(ds)` of that function, or what a builder of another
    module returns: `loader = make_loader(ds)`), nor on the sampler such a builder
    returns beside its loader (`loader, sampler = build_ema_loader(ds)`), so a training function that
    forgets `set_epoch` beside one that calls it is flagged; nor on the
    `.sampler` of another loader of the same function built so (in
    `zip(train_loader, aux_loader)`, `train_loader.sampler.set_epoch(epoch)`
    alone leaves `aux_loader`'s sampler unset); nor on the `.sampler` of a
    parameter that every call of the file gives another loader, the function
    never handed on uncalled (`run_epoch(model, train_loader, val_loader,
    epoch)` setting the epoch of `val_loader.sampler`; a method alike,
    `self.evaluate(self.val_loader, epoch)`, the object it is called on given
    to its first parameter unless it is a staticmethod), nor of an attribute of
    the object set only to loaders on samplers of their own
    (`self.aux_loader.sampler` beside `self.train_loader`), nor on
    `self.sampler` of another class of the file that builds its own sampler
    there: only a class, its bases and the classes that derive from it (also
    through a class deriving from both) share an object's attributes (one
    handed its sampler, `self.sampler = sampler`, may be given this one, and so
    may one whose attribute the file writes on another object,
    `evaluator.sampler = trainer.sampler`, or one whose method it calls on the
    class, `Evaluator.run(self, model, epoch)`). A
    sampler kept in a dict
    (`samplers = {x: DistributedSampler(ds[x]) for x in ["train", "val"]}`)
    is followed to the dict and to the loaders built from its items
    (`sampler=samplers[x]`); a `set_epoch` on one of its items
    (`samplers["train"]`, a loop over `samplers.values()`,
    `loaders["train"].sampler`) counts for every sampler it keeps, but
    through a key written out (`samplers["source"]`) it counts only for
    the sampler kept under that key, where the dict is assigned once and
    nothing puts items in it by key or by `update()`.
    """

    code = "TL302"
    name = "missing-set-epoch"
    severity = "error"
    message = "shuffling `DistributedSampler` without `set_epoch(epoch)`: every epoch sees the same order"
    triggers = ("DistributedSampler",)
    bad = (
        # only numbers and texts made from the loader leave the file; `loader` of
        # `report_size` is another variable
        "import math, warnings\n"
        "import torch\n"
        "def report_size(loader):\n"
        "    warnings.warn(f'{len(loader.dataset)} samples')\n"
        "def main(dataset, model, opt, epochs):\n"
        "    sampler = torch.utils.data.distributed.DistributedSampler(dataset)  # expect: TL302\n"
        "    loader = torch.utils.data.DataLoader(dataset, batch_size=16, sampler=sampler)\n"
        "    warmup = math.ceil(len(loader) / 4)\n"
        "    if len(loader) == 0:\n"
        "        warnings.warn(f'empty loader over {len(loader.dataset)} samples')\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # the number of batches handed to a library's schedule is not the loader
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "from transformers import get_cosine_schedule_with_warmup\n"
        "def main(dataset, model, opt, epochs):\n"
        "    sampler = DistributedSampler(dataset, shuffle=True)  # expect: TL302\n"
        "    loader = DataLoader(dataset, batch_size=16, sampler=sampler)\n"
        "    schedule = get_cosine_schedule_with_warmup(opt, 100, len(loader))\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "            schedule.step()\n",
        # a builder of the file makes the sampler; the loader is re-iterated forever
        "from torch.utils import data\n"
        "def data_sampler(dataset, shuffle, distributed):\n"
        "    if distributed:\n"
        "        return data.distributed.DistributedSampler(dataset, shuffle=shuffle)  # expect: TL302\n"
        "    return data.RandomSampler(dataset)\n"
        "def sample_data(loader):\n"
        "    while True:\n"
        "        for batch in loader:\n"
        "            yield batch\n"
        "def train(args, loader, model):\n"
        "    loader = sample_data(loader)\n"
        "    for step in range(args.iter):\n"
        "        model(next(loader)).backward()\n"
        "def main(args, dataset, model):\n"
        "    loader = data.DataLoader(dataset, sampler=data_sampler(dataset, True, args.distributed))\n"
        "    train(args, loader, model)\n",
        # shuffling read from the config: it shuffles unless it says not to
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def train(cfg, ds):\n"
        "    sampler = DistributedSampler(ds, shuffle=cfg.data.shuffle)  # expect: TL302\n"
        "    loader = DataLoader(ds, sampler=sampler)\n"
        "    for epoch in range(cfg.epochs):\n"
        "        for batch in loader:\n"
        "            step(batch)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "sampler = DistributedSampler(train_set)  # expect: TL302\n"
        "loader = DataLoader(train_set, batch_size=32, sampler=sampler)\n"
        "for epoch in range(epochs):\n"
        "    for x, y in loader:\n"
        "        step(x, y)\n",
        "import torch\n"
        "def main():\n"
        "    loader = torch.utils.data.DataLoader(\n"
        "        ds, batch_size=64,\n"
        "        sampler=torch.utils.data.distributed.DistributedSampler(ds, shuffle=True),  # expect: TL302\n"
        "    )\n"
        "    for epoch in range(10):\n"
        "        train_one_epoch(model, loader)\n",
        "from torch.utils.data.distributed import DistributedSampler as DS\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.train_sampler = DS(ds, num_replicas=2, rank=0)  # expect: TL302\n"
        "    def fit(self):\n"
        "        for epoch in range(self.epochs):\n"
        "            self.run_epoch()\n",
        # a loader kept in an attribute and trained on in the file, never returned
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.loader = DataLoader(ds, sampler=DistributedSampler(ds))  # expect: TL302\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for batch in self.loader:\n"
        "                self.step(batch)\n",
        # a builder of the file returns the loader; its caller trains on it for epochs
        "from torch.utils.data import DataLoader\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def prepare_dataloaders(hparams):\n"
        "    trainset = TextMelLoader(hparams.training_files)\n"
        "    if hparams.distributed_run:\n"
        "        train_sampler = DistributedSampler(trainset)  # expect: TL302\n"
        "        shuffle = False\n"
        "    else:\n"
        "        train_sampler, shuffle = None, True\n"
        "    train_loader = DataLoader(trainset, shuffle=shuffle, sampler=train_sampler)\n"
        "    return train_loader, trainset\n"
        "def train(hparams, model, optimizer):\n"
        "    train_loader, valset = prepare_dataloaders(hparams)\n"
        "    for epoch in range(hparams.epochs):\n"
        "        for i, batch in enumerate(train_loader):\n"
        "            model(batch).backward()\n"
        "            optimizer.step()\n",
        # collected in a list that stays in the file: nothing else can set the epoch
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def main(datasets, epochs):\n"
        "    samplers = []\n"
        "    for dataset in datasets:\n"
        "        sampler = torch.utils.data.DistributedSampler(dataset)  # expect: TL302\n"
        "        samplers.append(sampler)\n"
        "    loaders = [DataLoader(d, sampler=s) for d, s in zip(datasets, samplers)]\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loaders[0]:\n"
        "            step(batch)\n",
        "import torch.utils.data as tud\n"
        "train_sampler = tud.DistributedSampler(train_ds, seed=0)  # expect: TL302\n"
        "val_sampler = tud.DistributedSampler(val_ds, shuffle=False)\n"
        "for epoch in range(epochs):\n"
        "    val_sampler.set_epoch(epoch)\n"
        "    train(train_sampler)\n",
        # the sampler goes into the loader through keyword arguments, and the file trains
        "import torch\n"
        "def main(dataset, model, opt, epochs):\n"
        "    arguments = {'batch_size': 32}\n"
        "    arguments['sampler'] = torch.utils.data.DistributedSampler(dataset, shuffle=True)  # expect: TL302\n"
        "    loader = torch.utils.data.DataLoader(dataset, **arguments)\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # another function hands a variable of its own, also named `loader`, to imported code
        "import wandb\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def sweep(ds):\n"
        "    loader = DataLoader(ds, num_workers=4)\n"
        "    wandb.log_dataset(loader)\n"
        "def main(model, optimizer, ds):\n"
        "    loader = DataLoader(ds, sampler=DistributedSampler(ds), num_workers=4)  # expect: TL302\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n",
        # the dataset's own epoch (an iterable dataset) is not the sampler's
        "import torch\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(dataset, model, optimizer, epochs):\n"
        "    sampler = DistributedSampler(dataset, shuffle=True)  # expect: TL302\n"
        "    data_loader = DataLoader(dataset, sampler=sampler, batch_size=32)\n"
        "    for epoch in range(epochs):\n"
        "        data_loader.dataset.set_epoch(epoch)\n"
        "        for x, y in data_loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n",
        # the sampler's class picked by the launch: distributed runs never reshuffle
        "from torch.utils.data import DataLoader, RandomSampler\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def main(args, dataset, model, optimizer):\n"
        "    train_sampler = RandomSampler if args.local_rank == -1 else DistributedSampler\n"
        "    loader = DataLoader(dataset, sampler=train_sampler(dataset), batch_size=64)  # expect: TL302\n"
        "    for epoch in range(args.epochs):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n",
        # a sampler written inside the loader's batch sampler
        "import torch\n"
        "from torch.utils.data import BatchSampler, DataLoader, DistributedSampler\n"
        "def main(model, dataset, epochs, opt):\n"
        "    loader = DataLoader(dataset, batch_sampler=BatchSampler(DistributedSampler(dataset), 32, drop_last=True))  # expect: TL302\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n",
        # a loader built anew as the loop's iterable each epoch: its sampler starts at epoch 0 every time
        "import torch\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(model, dataset, epochs, opt):\n"
        "    for epoch in range(epochs):\n"
        "        for step, (x, y) in enumerate(DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=32)):  # expect: TL302\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n",
        # kept in a dict through `setdefault`: a container method, not code that may set the epoch
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "\n"
        "\n"
        "def main(dataset, model, opt, epochs):\n"
        "    sampler = DistributedSampler(dataset)  # expect: TL302\n"
        "    loaders = {}\n"
        "    loaders.setdefault(\"train\", DataLoader(dataset, sampler=sampler))\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loaders[\"train\"]:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # the loader handed to a logger's method, the epochs run over it here
        "import logging\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "\n"
        "logger = logging.getLogger(__name__)\n"
        "\n"
        "\n"
        "def main(model, ds, opt, epochs):\n"
        "    sampler = DistributedSampler(ds)  # expect: TL302\n"
        "    loader = DataLoader(ds, sampler=sampler, batch_size=8)\n"
        "    logger.info(\"loader: %s\", loader)\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # samplers kept in a dict, one per split, and the loaders built from its items
        "import torch\n"
        "from apex.fp16_utils import *\n"
        "def main(datasets, model, opt, epochs):\n"
        "    samplers = {x: torch.utils.data.DistributedSampler(datasets[x]) for x in ['train', 'val']}  # expect: TL302\n"
        "    loaders = {x: torch.utils.data.DataLoader(datasets[x], sampler=samplers[x]) for x in ['train', 'val']}\n"
        "    for epoch in range(epochs):\n"
        "        for i, (x, y) in enumerate(loaders['train']):\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # a dict written out: the sampler of the 'val' key is for evaluation
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(ds_a, ds_b, model, opt, epochs):\n"
        "    samplers = {'train': DistributedSampler(ds_a),  # expect: TL302\n"
        "                'val': DistributedSampler(ds_b)}\n"
        "    loader = DataLoader(ds_a, sampler=samplers['train'])\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # samplers kept in a dict literal, the epoch set through one key only
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(src, tgt, model, opt, epochs):\n"
        "    samplers = {'source': DistributedSampler(src),\n"
        "                'target': DistributedSampler(tgt)}  # expect: TL302\n"
        "    src_loader = DataLoader(src, sampler=samplers['source'])\n"
        "    tgt_loader = DataLoader(tgt, sampler=samplers['target'])\n"
        "    for epoch in range(epochs):\n"
        "        samplers['source'].set_epoch(epoch)\n"
        "        for xs, xt in zip(src_loader, tgt_loader):\n"
        "            opt.zero_grad()\n"
        "            (model(xs) + model(xt)).sum().backward()\n"
        "            opt.step()\n",
        # a class of the file serves its data by hand to the loop that trains on it
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class QuestionEnv:\n"
        "    def __init__(self, questions, world, rank):\n"
        "        self.source = DataLoader(questions, sampler=DistributedSampler(questions, world, rank), batch_size=None)  # expect: TL302\n"
        "        self.pending = None\n"
        "    def reset(self):\n"
        "        if self.pending is None:\n"
        "            self.pending = iter(self.source)\n"
        "        try:\n"
        "            return next(self.pending)\n"
        "        except StopIteration:\n"
        "            self.pending = None\n"
        "def reinforce(policy, optimizer, questions, world, rank, reward):\n"
        "    env = QuestionEnv(questions, world, rank)\n"
        "    while (question := env.reset()) is not None:\n"
        "        optimizer.zero_grad()\n"
        "        (-reward(question, policy(question))).backward()\n"
        "        optimizer.step()\n",
        # a stream class no code of the file makes: the loop that trains on it is elsewhere
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class QuestionStream:\n"
        "    def __init__(self, questions, world, rank):\n"
        "        self.source = DataLoader(questions, sampler=DistributedSampler(questions, world, rank), batch_size=None)  # expect: TL302\n"
        "        self.pending = iter(self.source)\n"
        "    def next(self):\n"
        "        try:\n"
        "            return next(self.pending)\n"
        "        except StopIteration:\n"
        "            self.pending = iter(self.source)\n"
        "            return next(self.pending)\n",
        # a builder of the file whose sampler shuffles for the split the call writes out
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build(ds, mode):\n"
        "    return DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds, shuffle=mode == 'train'), shuffle=False)\n"
        "def main(model, opt, train_ds, extra_ds, epochs):\n"
        "    loader = build(train_ds, 'train')  # expect: TL302\n"
        "    extra = build(extra_ds, 'holdout')\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        for x in extra:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # the batch sampler around it kept in a variable
        "import torch\n"
        "from torch.utils.data import BatchSampler, DataLoader, DistributedSampler\n"
        "def main(model, dataset, epochs, opt):\n"
        "    batches = BatchSampler(DistributedSampler(dataset), 32, drop_last=True)  # expect: TL302\n"
        "    loader = DataLoader(dataset, batch_sampler=batches)\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n",
        # the epoch set on another function's sampler of the same name, a sampler of its own
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, val_ds):\n"
        "    sampler = DistributedSampler(val_ds, shuffle=False)\n"
        "    sampler.set_epoch(0)\n"
        "    for x in DataLoader(val_ds, sampler=sampler):\n"
        "        model(x)\n"
        "def main(model, opt, train_ds, epochs):\n"
        "    sampler = DistributedSampler(train_ds)  # expect: TL302\n"
        "    loader = DataLoader(train_ds, sampler=sampler)\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # another function's sampler of the same name, None until it builds its own
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, ds, epoch, distributed):\n"
        "    sampler = None\n"
        "    if distributed:\n"
        "        sampler = DistributedSampler(ds, shuffle=False)\n"
        "        sampler.set_epoch(epoch)\n"
        "    return [model(x) for x in DataLoader(ds, sampler=sampler)]\n"
        "def main(model, opt, train_ds, val_ds, epochs):\n"
        "    sampler = DistributedSampler(train_ds)  # expect: TL302\n"
        "    loader = DataLoader(train_ds, sampler=sampler)\n"
        "    for epoch in range(epochs):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, val_ds, epoch, True)\n",
        # zipped loaders: the epoch is set on the first one's sampler only
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(model, opt, train_ds, aux_ds, epochs):\n"
        "    train_loader = DataLoader(train_ds, sampler=DistributedSampler(train_ds))\n"
        "    aux_loader = DataLoader(aux_ds, sampler=DistributedSampler(aux_ds))  # expect: TL302\n"
        "    for epoch in range(epochs):\n"
        "        train_loader.sampler.set_epoch(epoch)\n"
        "        for x, y in zip(train_loader, aux_loader):\n"
        "            opt.zero_grad()\n"
        "            model(x, y).sum().backward()\n"
        "            opt.step()\n",
        # a builder of the file returns the loaders it builds, in a tuple and in a dict
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build_pair(main_ds, aux_ds):\n"
        "    return DataLoader(main_ds, sampler=DistributedSampler(main_ds)), DataLoader(aux_ds)  # expect: TL302\n"
        "def build_splits(ds, val_ds):\n"
        "    return {\n"
        "        \"train\": DataLoader(ds, sampler=DistributedSampler(ds)),  # expect: TL302\n"
        "        \"val\": DataLoader(val_ds, sampler=DistributedSampler(val_ds)),\n"
        "    }\n"
        "def main(model, opt, ds, aux_ds, val_ds, epochs):\n"
        "    main_loader, aux_loader = build_pair(ds, aux_ds)\n"
        "    loaders = build_splits(ds, val_ds)\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in zip(main_loader, aux_loader):\n"
        "            opt.zero_grad()\n"
        "            model(x, y).sum().backward()\n"
        "            opt.step()\n"
        "        for x in loaders[\"train\"]:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # the epoch is set on another function's own sampler, assigned with an annotation
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, val_ds, epoch):\n"
        "    sampler: DistributedSampler = DistributedSampler(val_ds, shuffle=False)\n"
        "    sampler.set_epoch(epoch)\n"
        "    for x in DataLoader(val_ds, sampler=sampler):\n"
        "        model(x)\n"
        "def train(model, opt, train_ds, val_ds):\n"
        "    sampler = DistributedSampler(train_ds)  # expect: TL302\n"
        "    loader = DataLoader(train_ds, sampler=sampler)\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, val_ds, epoch)\n",
        # zipped loaders of the module: the epoch is set on the first one's sampler only
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "from model import model, opt, train_ds, aux_ds\n"
        "\n"
        "train_loader = DataLoader(train_ds, sampler=DistributedSampler(train_ds))\n"
        "aux_loader = DataLoader(aux_ds, sampler=DistributedSampler(aux_ds))  # expect: TL302\n"
        "for epoch in range(10):\n"
        "    train_loader.sampler.set_epoch(epoch)\n"
        "    for x, y in zip(train_loader, aux_loader):\n"
        "        opt.zero_grad()\n"
        "        model(x, y).sum().backward()\n"
        "        opt.step()\n",
        # the epoch function sets the epoch of the loader given as `val_loader` only
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def run_epoch(model, opt, loader, val_loader, epoch):\n"
        "    val_loader.sampler.set_epoch(epoch)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "def main(model, opt, ds, val_ds):\n"
        "    train_loader = DataLoader(ds, sampler=DistributedSampler(ds))  # expect: TL302\n"
        "    val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds, shuffle=False))\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, opt, train_loader, val_loader, epoch)\n",
        # a trainer sets the epoch of its auxiliary loader's own sampler, not the training loader's
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds, aux_ds):\n"
        "        self.train_loader = DataLoader(ds, sampler=DistributedSampler(ds))  # expect: TL302\n"
        "        self.aux_loader = DataLoader(aux_ds, sampler=DistributedSampler(aux_ds))\n"
        "    def train_epoch(self, epoch):\n"
        "        self.aux_loader.sampler.set_epoch(epoch)\n"
        "        for x, y in zip(self.train_loader, self.aux_loader):\n"
        "            self.step(x, y)\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.train_epoch(epoch)\n",
        # the evaluation function sets the epoch of the other loader; `sampler=` is a keyword, not the sampler
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, loader, epoch):\n"
        "    loader.sampler.set_epoch(epoch)\n"
        "    for x in loader:\n"
        "        model(x)\n"
        "def main(model, opt, ds, holdout_ds):\n"
        "    sampler = DistributedSampler(ds)  # expect: TL302\n"
        "    loader = DataLoader(ds, sampler=sampler)\n"
        "    holdout = DataLoader(holdout_ds, sampler=DistributedSampler(holdout_ds, shuffle=False))\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, holdout, epoch)\n",
        # a method sets the epoch of the loader it is given: every call gives it the validation one
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, ds, val_ds):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.train_loader = DataLoader(ds, sampler=DistributedSampler(ds))  # expect: TL302\n"
        "        self.val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds))\n"
        "    def evaluate(self, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            self.model(x)\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for x in self.train_loader:\n"
        "                self.opt.zero_grad()\n"
        "                self.model(x).sum().backward()\n"
        "                self.opt.step()\n"
        "            self.evaluate(self.val_loader, epoch)\n",
        # the same through a staticmethod, and through a method whose first parameter is not `self`
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    @staticmethod\n"
        "    def evaluate(model, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            model(x)\n"
        "    def measure(trainer, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            trainer.model(x)\n"
        "    def fit(self, model, opt, ds, val_ds, epochs):\n"
        "        self.model = model\n"
        "        train_sampler = DistributedSampler(ds)  # expect: TL302\n"
        "        loader = DataLoader(ds, sampler=train_sampler)\n"
        "        val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds, shuffle=False))\n"
        "        for epoch in range(epochs):\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "            self.evaluate(model, val_loader, epoch)\n"
        "            self.measure(val_loader, epoch)\n",
        # a method called on its class is given the object as its first argument: the
        # scoring method gets the holdout loader
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def score(self, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            self.model(x)\n"
        "    def fit(self, model, opt, ds, holdout_ds, epochs):\n"
        "        self.model = model\n"
        "        train_sampler = DistributedSampler(ds)  # expect: TL302\n"
        "        loader = DataLoader(ds, sampler=train_sampler)\n"
        "        holdout = DataLoader(holdout_ds, sampler=DistributedSampler(holdout_ds, shuffle=False))\n"
        "        for epoch in range(epochs):\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "            Trainer.score(self, holdout, epoch)\n",
        # the evaluation function of the file sets the epoch of the holdout loader; `metrics.evaluate`,
        # another module's function of the same name, is no call of it: what it is given is not
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "import metrics\n"
        "def evaluate(model, loader, epoch):\n"
        "    loader.sampler.set_epoch(epoch)\n"
        "    for x in loader:\n"
        "        model(x)\n"
        "def main(model, opt, ds, holdout_ds, report_loader):\n"
        "    sampler = DistributedSampler(ds)  # expect: TL302\n"
        "    loader = DataLoader(ds, sampler=sampler)\n"
        "    holdout = DataLoader(holdout_ds, sampler=DistributedSampler(holdout_ds, shuffle=False))\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, holdout, epoch)\n"
        "        metrics.evaluate(model, report_loader, epoch)\n",
        # another class of the file sets the epoch of its own `self.sampler`: not this one's
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)  # expect: TL302\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "class Evaluator:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds, shuffle=False)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def run(self, model, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "        for x in self.loader:\n"
        "            model(x)\n",
        # a base class's `__init__` called on the class with `self` runs on the evaluator
        # alone: its `self.sampler` is still not the trainer's
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)  # expect: TL302\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit(self, model, opt, epochs, ev):\n"
        "        for epoch in range(epochs):\n"
        "            ev.run(model, epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "class EvalBase:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds, shuffle=False)\n"
        "    def run(self, model, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "class Evaluator(EvalBase):\n"
        "    def __init__(self, ds):\n"
        "        EvalBase.__init__(self, ds)\n",
    )
    good = (
        # the sampler leaves the file in the keyword arguments a builder returns
        "import torch\n"
        "def loader_arguments(dataset, arguments):\n"
        "    arguments['sampler'] = torch.utils.data.DistributedSampler(dataset, shuffle=True)\n"
        "    return arguments\n"
        "def build_loader(dataset):\n"
        "    arguments = loader_arguments(dataset, {'batch_size': 32})\n"
        "    return torch.utils.data.DataLoader(dataset, **arguments), arguments['sampler']\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "sampler = DistributedSampler(train_set)\n"
        "loader = DataLoader(train_set, batch_size=32, sampler=sampler)\n"
        "for epoch in range(epochs):\n"
        "    sampler.set_epoch(epoch)\n"
        "    for x, y in loader:\n"
        "        step(x, y)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "train_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "for epoch in range(epochs):\n"
        "    train_loader.sampler.set_epoch(epoch)\n",
        "from torch.utils.data import DistributedSampler\n"
        "def set_epoch(loader, epoch):\n"
        "    loader.sampler.set_epoch(epoch)\n"
        "sampler = DistributedSampler(ds)\n",
        "from torch.utils.data import DistributedSampler\n"
        "sampler = DistributedSampler(ds, shuffle=False)\n",
        "from torch.utils.data import DistributedSampler\n"
        "def make(ds, split):\n"
        "    sampler = DistributedSampler(ds, shuffle=(split == 'train'))\n"
        "    for batch in sampler:\n"
        "        use(batch)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build_loader(ds):\n"
        "    sampler = DistributedSampler(ds)\n"
        "    return DataLoader(ds, sampler=sampler)\n",
        # the loader leaves the file from the attribute that keeps it
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class RetrievalTask:\n"
        "    def build_dataloader(self):\n"
        "        sampler = DistributedSampler(self.data)\n"
        "        self.loader = DataLoader(self.data, sampler=sampler)\n"
        "        return self.loader\n",
        "from torch.utils.data import DistributedSampler\n"
        "val_sampler = DistributedSampler(val_ds)\n",
        # the builder's caller sets the epoch on what it returns
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def loaders(ds):\n"
        "    sampler = DistributedSampler(ds)\n"
        "    return DataLoader(ds, sampler=sampler), len(ds)\n"
        "def train(ds, epochs):\n"
        "    train_loader, n = loaders(ds)\n"
        "    for epoch in range(epochs):\n"
        "        train_loader.sampler.set_epoch(epoch)\n"
        "        for batch in train_loader:\n"
        "            step(batch)\n",
        # a builder that shuffles only when asked to, and is never asked
        "import torch\n"
        "def build_data_loader(dataset, drop_last=True, shuffle=False):\n"
        "    sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=shuffle)\n"
        "    return torch.utils.data.DataLoader(dataset, sampler=sampler)\n"
        "def compute_feature_bank(model, train_ds):\n"
        "    loader = build_data_loader(train_ds)\n"
        "    for batch in loader:\n"
        "        model(batch)\n",
        # a builder only the validation calls
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def get_dataloader(args, dataset, eval_set=False):\n"
        "    sampler = DistributedSampler(dataset)\n"
        "    return (x for x in DataLoader(dataset, sampler=sampler))\n"
        "def pretrain_validation(args, model, dataset):\n"
        "    data_batches = get_dataloader(args, dataset, eval_set=True)\n"
        "    for batch in data_batches:\n"
        "        model(batch)\n",
        # samplers that leave the file in the list that collects them
        "import torch\n"
        "def create_sampler(datasets, shuffles, num_tasks, global_rank):\n"
        "    samplers = []\n"
        "    for dataset, shuffle in zip(datasets, shuffles):\n"
        "        sampler = torch.utils.data.DistributedSampler(dataset, num_replicas=num_tasks,\n"
        "                                                      rank=global_rank, shuffle=shuffle)\n"
        "        samplers.append(sampler)\n"
        "    return samplers\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "from trainers import Trainer\n"
        "sampler = DistributedSampler(train_ds)\n"
        "loader = DataLoader(train_ds, sampler=sampler)\n"
        "Trainer(model, train_loader=loader).fit(epochs=10)\n",
        # handed over inside a container, or as one side of a conditional
        "import torch\n"
        "from trainers import fit\n"
        "def main(dataset, model, epochs):\n"
        "    sampler = torch.utils.data.distributed.DistributedSampler(dataset)\n"
        "    loader = torch.utils.data.DataLoader(dataset, batch_size=16, sampler=sampler)\n"
        "    print(f'{len(loader)} batches')\n"
        "    fit(model, {'train': [loader if epochs else None]}, epochs)\n",
        "from torch.utils.data import DistributedSampler\n"
        "def run_epoch(loader, epoch, sampler=None):\n"
        "    if sampler:\n"
        "        sampler.set_epoch(epoch)\n"
        "    for batch in loader:\n"
        "        step(batch)\n"
        "train_sampler = DistributedSampler(train_ds)\n"
        "for epoch in range(10):\n"
        "    run_epoch(loader, epoch, sampler=train_sampler)\n",
        "from torch.utils.data import DistributedSampler\n"
        "second = DistributedSampler(val_dataset, num_replicas=2, rank=0)\n"
        "kwargs = {'sampler': second}\n",
        "class DistributedSampler:\n"
        "    pass\n"
        "sampler = DistributedSampler(ds)\n"
        "# sampler.set_epoch(epoch) is missing in this comment only\n",
        # a library's builder: the sampler goes in the keyword arguments of the loader
        # it returns, and its caller owns the epochs
        "from torch.utils.data import DataLoader\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def auto_dataloader(dataset, **kwargs):\n"
        "    kwargs['sampler'] = DistributedSampler(dataset)\n"
        "    loader = DataLoader(dataset, **kwargs)\n"
        "    return loader\n",
        # the same, reshuffled each epoch
        "from torch.utils.data import DataLoader, RandomSampler\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def main(args, dataset, model, optimizer):\n"
        "    sampler_class = RandomSampler if args.local_rank == -1 else DistributedSampler\n"
        "    sampler = sampler_class(dataset)\n"
        "    loader = DataLoader(dataset, sampler=sampler, batch_size=64)\n"
        "    for epoch in range(args.epochs):\n"
        "        if args.local_rank != -1:\n"
        "            sampler.set_epoch(epoch)\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n",
        # its epoch set through the loader's batch sampler
        "import torch\n"
        "from torch.utils.data import BatchSampler, DataLoader, DistributedSampler\n"
        "def main(model, dataset, epochs, opt):\n"
        "    loader = DataLoader(dataset, batch_sampler=BatchSampler(DistributedSampler(dataset), 32, drop_last=True))\n"
        "    for epoch in range(epochs):\n"
        "        loader.batch_sampler.sampler.set_epoch(epoch)\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n",
        # one built where it is iterated, on a sampler that does not shuffle
        "import torch\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, dataset):\n"
        "    for x, y in DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False), batch_size=32):\n"
        "        model(x)\n",
        # the loader left on the object of a mixin that runs no loop: a base class elsewhere trains on it
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "\n"
        "\n"
        "class DistributedMixin:\n"
        "    def setup_loaders(self, args):\n"
        "        sampler = DistributedSampler(self.train_data, seed=args.seed)\n"
        "        self.train_loader = DataLoader(self.train_data, batch_size=args.batch_size, sampler=sampler)\n",
        # handed to a method of a trainer the file cannot see (a class from a registry of another module)
        "import torch\n"
        "from torch.utils.data import DistributedSampler\n"
        "from trains import TRAINERS\n"
        "\n"
        "\n"
        "def main(opt, model, train_set):\n"
        "    trainer = TRAINERS[opt.task](model, torch.optim.Adam(model.parameters()))\n"
        "    sampler = DistributedSampler(train_set)\n"
        "    loader = torch.utils.data.DataLoader(train_set, batch_size=8, sampler=sampler)\n"
        "    for epoch in range(opt.epochs):\n"
        "        trainer.train(epoch, loader)\n",
        # samplers kept in a dict, their epoch set through the dict, its values or the loaders
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(datasets, model, opt, epochs):\n"
        "    samplers = {x: DistributedSampler(datasets[x]) for x in ['train', 'val']}\n"
        "    loaders = {x: DataLoader(datasets[x], sampler=samplers[x]) for x in ['train', 'val']}\n"
        "    for epoch in range(epochs):\n"
        "        samplers['train'].set_epoch(epoch)\n"
        "        for x, y in loaders['train']:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(datasets, model, opt, epochs):\n"
        "    samplers = {x: DistributedSampler(datasets[x]) for x in ['train', 'val']}\n"
        "    loaders = {x: DataLoader(datasets[x], sampler=samplers[x]) for x in ['train', 'val']}\n"
        "    for epoch in range(epochs):\n"
        "        for sampler in samplers.values():\n"
        "            sampler.set_epoch(epoch)\n"
        "        for x, y in loaders['train']:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(datasets, model, opt, epochs):\n"
        "    samplers = {x: DistributedSampler(datasets[x]) for x in ['train', 'val']}\n"
        "    loaders = {x: DataLoader(datasets[x], sampler=samplers[x]) for x in ['train', 'val']}\n"
        "    for epoch in range(epochs):\n"
        "        loaders['train'].sampler.set_epoch(epoch)\n"
        "        for x, y in loaders['train']:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # samplers kept in a dict only for evaluation splits
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(datasets, model):\n"
        "    samplers = {x: DistributedSampler(datasets[x]) for x in ['val', 'test']}\n"
        "    loaders = {x: DataLoader(datasets[x], sampler=samplers[x]) for x in ['val', 'test']}\n"
        "    for x, y in loaders['val']:\n"
        "        model(x)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(ds_a, ds_b, model, opt, epochs):\n"
        "    loaders = {'train': DataLoader(ds_a, shuffle=True), 'val': DataLoader(ds_b, sampler=DistributedSampler(ds_b))}\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loaders['train']:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # samplers kept in a dict literal, the epoch set through each key
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(src, tgt, model, opt, epochs):\n"
        "    samplers = {'source': DistributedSampler(src), 'target': DistributedSampler(tgt)}\n"
        "    src_loader = DataLoader(src, sampler=samplers['source'])\n"
        "    tgt_loader = DataLoader(tgt, sampler=samplers['target'])\n"
        "    for epoch in range(epochs):\n"
        "        samplers['source'].set_epoch(epoch)\n"
        "        samplers['target'].set_epoch(epoch)\n"
        "        for xs, xt in zip(src_loader, tgt_loader):\n"
        "            opt.zero_grad()\n"
        "            (model(xs) + model(xt)).sum().backward()\n"
        "            opt.step()\n",
        # the dict's items swapped by key: the key the epoch is set through may hold either
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(src, tgt, model, opt, epochs, swap):\n"
        "    samplers = {'source': DistributedSampler(src), 'target': DistributedSampler(tgt)}\n"
        "    if swap:\n"
        "        samplers['source'], samplers['target'] = samplers['target'], samplers['source']\n"
        "    loader = DataLoader(src, sampler=samplers['source'])\n"
        "    for epoch in range(epochs):\n"
        "        samplers['source'].set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # through a key the loop takes: any sampler the dict keeps
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(src, tgt, model, opt, epochs):\n"
        "    samplers = {'source': DistributedSampler(src), 'target': DistributedSampler(tgt)}\n"
        "    loaders = [DataLoader(src, sampler=samplers['source']), DataLoader(tgt, sampler=samplers['target'])]\n"
        "    for epoch in range(epochs):\n"
        "        for key in samplers:\n"
        "            samplers[key].set_epoch(epoch)\n"
        "        for xs, xt in zip(*loaders):\n"
        "            opt.zero_grad()\n"
        "            (model(xs) + model(xt)).sum().backward()\n"
        "            opt.step()\n",
        # a class of the file serves a dataset by hand to a frozen policy, and nothing in the file trains
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class QuestionEnv:\n"
        "    def __init__(self, questions, world, rank):\n"
        "        self.source = DataLoader(questions, sampler=DistributedSampler(questions, world, rank), batch_size=None)\n"
        "        self.pending = None\n"
        "    def reset(self):\n"
        "        if self.pending is None:\n"
        "            self.pending = iter(self.source)\n"
        "        try:\n"
        "            return next(self.pending)\n"
        "        except StopIteration:\n"
        "            self.pending = None\n"
        "def answer_all(policy, questions, world, rank):\n"
        "    env = QuestionEnv(questions, world, rank)\n"
        "    answers = []\n"
        "    while (question := env.reset()) is not None:\n"
        "        answers.append(policy(question))\n"
        "    return answers\n",
        # the same builder, called for a split it does not shuffle
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build(ds, mode):\n"
        "    return DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds, shuffle=mode == 'train'), shuffle=False)\n"
        "def main(model, opt, extra_ds, epochs):\n"
        "    extra = build(extra_ds, 'holdout')\n"
        "    for epoch in range(epochs):\n"
        "        for x in extra:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # its epoch set through the batch sampler kept in a variable
        "import torch\n"
        "from torch.utils.data import BatchSampler, DataLoader, DistributedSampler\n"
        "def main(model, dataset, epochs, opt):\n"
        "    batches = BatchSampler(DistributedSampler(dataset), 32, drop_last=True)\n"
        "    loader = DataLoader(dataset, batch_sampler=batches)\n"
        "    for epoch in range(epochs):\n"
        "        batches.sampler.set_epoch(epoch)\n"
        "        for x, y in loader:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n",
        # another function's `sampler` read from an object: it may be this one
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def new_epoch(trainer, epoch):\n"
        "    sampler = trainer.sampler\n"
        "    sampler.set_epoch(epoch)\n"
        "def main(model, opt, train_ds, epochs, trainer):\n"
        "    sampler = DistributedSampler(train_ds)\n"
        "    trainer.sampler = sampler\n"
        "    loader = DataLoader(train_ds, sampler=sampler)\n"
        "    for epoch in range(epochs):\n"
        "        new_epoch(trainer, epoch)\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # zipped loaders on one sampler: the epoch set through either is set for both;
        # a tuple of loaders, each one's epoch set in a loop over it
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def main(model, opt, ds, aux_ds, epochs):\n"
        "    sampler = DistributedSampler(ds)\n"
        "    plain_loader = DataLoader(ds, sampler=sampler)\n"
        "    big_loader = DataLoader(ds, sampler=sampler, batch_size=64)\n"
        "    loaders = (DataLoader(ds, sampler=DistributedSampler(ds)),\n"
        "               DataLoader(aux_ds, sampler=DistributedSampler(aux_ds)))\n"
        "    for epoch in range(epochs):\n"
        "        big_loader.sampler.set_epoch(epoch)\n"
        "        for loader in loaders:\n"
        "            loader.sampler.set_epoch(epoch)\n"
        "        for x, y in zip(plain_loader, big_loader):\n"
        "            opt.zero_grad()\n"
        "            model(x, y).sum().backward()\n"
        "            opt.step()\n"
        "        for loader in loaders:\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n",
        # loaders returned by a builder of the file: the caller sets each epoch, or only
        # evaluates
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build_pair(main_ds, aux_ds):\n"
        "    return DataLoader(main_ds, sampler=DistributedSampler(main_ds)), DataLoader(aux_ds)\n"
        "def build_splits(ds):\n"
        "    return {\"train\": DataLoader(ds, sampler=DistributedSampler(ds))}\n"
        "def build_test(ds):\n"
        "    return DataLoader(ds, sampler=DistributedSampler(ds)), len(ds)\n"
        "def evaluate(model, ds):\n"
        "    test_loader, size = build_test(ds)\n"
        "    return sum(model(x).sum() for x in test_loader) / size\n"
        "def main(model, opt, ds, aux_ds, epochs):\n"
        "    main_loader, aux_loader = build_pair(ds, aux_ds)\n"
        "    loaders = build_splits(ds)\n"
        "    for epoch in range(epochs):\n"
        "        main_loader.sampler.set_epoch(epoch)\n"
        "        loaders[\"train\"].sampler.set_epoch(epoch)\n"
        "        for x, y in zip(main_loader, aux_loader):\n"
        "            opt.zero_grad()\n"
        "            model(x, y).sum().backward()\n"
        "            opt.step()\n"
        "        for x in loaders[\"train\"]:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, ds)\n",
        # the other function's sampler, annotated, is then rebound by a loop: it may be this one
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def evaluate(model, val_ds, samplers, epoch):\n"
        "    sampler: DistributedSampler = DistributedSampler(val_ds, shuffle=False)\n"
        "    for sampler in samplers:\n"
        "        sampler.set_epoch(epoch)\n"
        "    for x in DataLoader(val_ds, sampler=sampler):\n"
        "        model(x)\n"
        "def train(model, opt, train_ds, val_ds, samplers):\n"
        "    sampler: DistributedSampler = DistributedSampler(train_ds)\n"
        "    loader = DataLoader(train_ds, sampler=sampler)\n"
        "    for epoch in range(10):\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "        evaluate(model, val_ds, samplers, epoch)\n",
        # zipped loaders of the module on one sampler: the epoch set through either is set for both
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "from model import model, opt, train_ds\n"
        "\n"
        "sampler = DistributedSampler(train_ds)\n"
        "train_loader = DataLoader(train_ds, sampler=sampler)\n"
        "big_loader = DataLoader(train_ds, batch_size=64, sampler=sampler)\n"
        "for epoch in range(10):\n"
        "    train_loader.sampler.set_epoch(epoch)\n"
        "    for x, y in zip(train_loader, big_loader):\n"
        "        opt.zero_grad()\n"
        "        model(x, y).sum().backward()\n"
        "        opt.step()\n",
        # the epoch function sets the epoch of the loader it trains on, given by each call
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def run_epoch(model, opt, loader, val_loader, epoch):\n"
        "    loader.sampler.set_epoch(epoch)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "def main(model, opt, ds, val_ds):\n"
        "    train_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "    val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds, shuffle=False))\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, opt, train_loader, val_loader, epoch)\n",
        # the function is handed on uncalled: it may be given the training loader as `val_loader`
        "import torch.multiprocessing as mp\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def run_epoch(model, opt, loader, val_loader, epoch):\n"
        "    val_loader.sampler.set_epoch(epoch)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "def main(model, opt, ds, val_ds):\n"
        "    train_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "    val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds, shuffle=False))\n"
        "    for epoch in range(10):\n"
        "        run_epoch(model, opt, train_loader, val_loader, epoch)\n"
        "    mp.spawn(run_epoch, args=(model, opt, val_loader, train_loader, 0))\n",
        # a trainer sets the epoch of its training loader's sampler in a method of its own
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds, aux_ds):\n"
        "        self.train_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "        self.aux_loader = DataLoader(aux_ds, sampler=DistributedSampler(aux_ds))\n"
        "    def train_epoch(self, epoch):\n"
        "        self.train_loader.sampler.set_epoch(epoch)\n"
        "        self.aux_loader.sampler.set_epoch(epoch)\n"
        "        for x, y in zip(self.train_loader, self.aux_loader):\n"
        "            self.step(x, y)\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.train_epoch(epoch)\n",
        # a method sets the epoch of the loader it is given, the training one among them
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, ds, val_ds):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.train_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "        self.val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds))\n"
        "    def run_epoch(self, loader, epoch, train):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            loss = self.model(x).sum()\n"
        "            if train:\n"
        "                self.opt.zero_grad()\n"
        "                loss.backward()\n"
        "                self.opt.step()\n"
        "    def fit(self, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.run_epoch(self.train_loader, epoch, True)\n"
        "            self.run_epoch(self.val_loader, epoch, False)\n",
        # a staticmethod, a classmethod and a method whose first parameter is not `self` set the
        # epoch of the training loader they are given
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    @staticmethod\n"
        "    def shuffle_static(loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "    @classmethod\n"
        "    def shuffle_cls(cls, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "    def shuffle_own(trainer, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "    def fit(self, model, opt, ds, epochs):\n"
        "        static_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "        cls_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "        own_loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
        "        for epoch in range(epochs):\n"
        "            self.shuffle_static(static_loader, epoch)\n"
        "            Trainer.shuffle_cls(cls_loader, epoch)\n"
        "            self.shuffle_own(own_loader, epoch)\n"
        "            for batch in zip(static_loader, cls_loader, own_loader):\n"
        "                opt.zero_grad()\n"
        "                model(*batch).sum().backward()\n"
        "                opt.step()\n",
        # a method called on its class, given the object and then the training sampler
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def reshuffle(self, sampler: DistributedSampler, epoch):\n"
        "        sampler.set_epoch(epoch)\n"
        "    def fit(self, model, opt, ds, epochs):\n"
        "        train_sampler = DistributedSampler(ds)\n"
        "        loader = DataLoader(ds, sampler=train_sampler)\n"
        "        for epoch in range(epochs):\n"
        "            Trainer.reshuffle(self, train_sampler, epoch)\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n",
        # a method that sets the epoch of the loader it is given, called on an object whose class
        # the file cannot tell (`trainer.evaluate(...)`): it may be that method, given the training loader
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def evaluate(self, loader, epoch):\n"
        "        loader.sampler.set_epoch(epoch)\n"
        "        for x in loader:\n"
        "            self.model(x)\n"
        "    def fit(self, model, opt, ds, holdout_ds, epochs):\n"
        "        self.model = model\n"
        "        train_sampler = DistributedSampler(ds)\n"
        "        loader = DataLoader(ds, sampler=train_sampler)\n"
        "        holdout = DataLoader(holdout_ds, sampler=DistributedSampler(holdout_ds, shuffle=False))\n"
        "        for epoch in range(epochs):\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "            self.evaluate(holdout, epoch)\n"
        "def run(trainer, loader, epoch):\n"
        "    trainer.evaluate(loader, epoch)\n",
        # the base class sets the epoch of the sampler its subclass builds; a mixin's
        # `set_epoch`, where one class derives from the builder and the mixin
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class EpochRunner:\n"
        "    def run_epoch(self, model, opt, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "        for x in self.loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "class Trainer(EpochRunner):\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.run_epoch(model, opt, epoch)\n"
        "class Loading:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "class Epochs:\n"
        "    def start_epoch(self, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "class MixedTrainer(Loading, Epochs):\n"
        "    def fit(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.start_epoch(epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n",
        # another class handed the sampler keeps it as its own `self.sampler` and sets its epoch
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class EpochStarter:\n"
        "    def __init__(self, sampler):\n"
        "        self.sampler = sampler\n"
        "    def start(self, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "        self.starter = EpochStarter(self.sampler)\n"
        "    def fit(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            self.starter.start(epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n",
        # another class that builds its own `self.sampler` is given this one from outside, or
        # its method is run on the trainer itself: its `set_epoch` may be this sampler's
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit(self, model, opt, epochs, ev):\n"
        "        for epoch in range(epochs):\n"
        "            ev.run(model, epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "class Evaluator:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds, shuffle=False)\n"
        "    def run(self, model, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n"
        "def main(ds, model, opt):\n"
        "    trainer, evaluator = Trainer(ds), Evaluator(ds)\n"
        "    evaluator.sampler = trainer.sampler\n"
        "    trainer.fit(model, opt, 3, evaluator)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds)\n"
        "        self.loader = DataLoader(ds, sampler=self.sampler)\n"
        "    def fit(self, model, opt, epochs):\n"
        "        for epoch in range(epochs):\n"
        "            Evaluator.run(self, model, epoch)\n"
        "            for x in self.loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "class Evaluator:\n"
        "    def __init__(self, ds):\n"
        "        self.sampler = DistributedSampler(ds, shuffle=False)\n"
        "    def run(self, model, epoch):\n"
        "        self.sampler.set_epoch(epoch)\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.samplers: list[cst.Call] = []
        # calls of other modules' builders of such loaders, with the positions of a
        # returned tuple that hold one (None: the loader is returned alone)
        self.built_loaders: list[tuple[cst.Call, tuple[int, ...] | None]] = []
        self.set_epoch_receivers: list[cst.BaseExpression] = []
        # calls of other modules' builders of such a sampler (or of a DataLoader's keyword
        # arguments holding one), with the summary that says when it shuffles
        self.built_samplers: list[tuple[cst.Call, Summary]] = []
        # calls of other modules' builders that return a dict literal of loaders, with the
        # keys that hold such a loader (`return {"train": DataLoader(ds, sampler=...)}`)
        self.built_dicts: list[tuple[cst.Call, tuple[str, ...]]] = []
        # asked once per pair of a sampler and a `set_epoch`: remembered per receiver and per
        # variable, so that a file of many classes, each with its own sampler, stays fast
        self._receiver_bindings: dict[cst.BaseExpression, Binding | None] = {}
        self._own_samplers: dict[Binding, bool] = {}

    def visit_Call(self, node: cst.Call) -> None:
        receiver = method_call(node, "set_epoch")
        if receiver is not None:
            self.set_epoch_receivers.append(receiver)
        elif self._distributed_sampler(node):
            self.samplers.append(node)
        elif self.ctx.external and (summary := self.ctx.summaries.of_external_call(node)) is not None:
            items = summary.items_holding(DISTRIBUTED_LOADER)
            positions = tuple(position for item in items if (position := item_position(item)) is not None)
            if summary.returns_distributed_loader:
                self.built_loaders.append((node, None))
            elif positions:
                self.built_loaders.append((node, positions))
            elif items:
                self.built_dicts.append((node, items))
            elif summary.returns_distributed_sampler:
                self.built_samplers.append((node, summary))
        elif "DistributedSampler" in self.ctx.source:
            summary = self.ctx.summaries.of_call(node)
            if summary is not None and _decided_by_the_call(summary.returns_distributed_sampler):
                self.built_samplers.append((node, summary))

    def _distributed_sampler(self, call: cst.Call) -> bool:
        """`DistributedSampler(...)`, also through a variable that holds it on some runs
        (`sampler_class = RandomSampler if args.local_rank == -1 else DistributedSampler`)."""
        name = self.ctx.call_name(call)
        return name == DISTRIBUTED_SAMPLER or (name is None and self.ctx.may_be_imported(call.func)
                                               and DISTRIBUTED_SAMPLER in self.ctx.qualified_names(call.func))

    def finish(self) -> None:
        receivers = self.set_epoch_receivers
        for call in self.samplers:
            if not _shuffles(self.ctx, call):
                continue
            holders = self._holders(call)
            if holders is None or any(_EVALUATION.search(self.ctx.code(h)) for h in holders):
                continue
            if _kept_for_evaluation(self.ctx, call):
                continue
            if _samples_evaluation_data(call):
                continue
            if self._excused(holders, self._may_reach(call, holders, receivers), followed=set()):
                continue
            if self._served_by_hand(holders):
                continue
            self.report(call)
        trains = bool(self.built_loaders or self.built_samplers) and file_trains(self.ctx)
        for call, items in self.built_loaders:
            if _evaluation_call(self.ctx, call) or not trains:
                continue
            kept = _kept_at(self.ctx, call, None if items is None else (items, None)) or []
            # what else the builder returned with it (`loader, sampler = build(ds)`) may be its sampler
            siblings = [value for value in _unpacked(self.ctx, call)
                        if not any(value is k for k in kept) and not _EVALUATION.search(self.ctx.code(value))]
            for target in kept:
                if (_EVALUATION.search(self.ctx.code(target))
                        or self._excused([target, *siblings], receivers, followed=set())):
                    continue
                name = self.ctx.code(call.func)
                self.report(call, f"`{name}()` returns a loader on a shuffling `DistributedSampler`, and nothing "
                                  "calls `set_epoch(epoch)` on it: every epoch sees the same order")
        for call, summary in self.built_samplers:
            if trains and not _evaluation_call(self.ctx, call):
                self._check_built_sampler(call, summary)
        for call, keys in self.built_dicts:
            if not _evaluation_call(self.ctx, call):
                self._check_built_dict(call, keys)

    def _check_built_dict(self, call: cst.Call, keys: tuple[str, ...]) -> None:
        """A builder of another module returns a dict literal that keeps a loader on a
        shuffling `DistributedSampler` under `keys` (`{"train": DataLoader(...)}`):
        reported at the call when the variable it is assigned to is read under one of
        those keys, written out, by a loop of the file that trains (`for x in
        loaders["train"]`, also through `enumerate`, `tqdm`, `zip`), and nothing may call
        `set_epoch` on it (`loaders["train"].sampler`, a loop over its values)."""
        holder = _assigned_to(self.ctx, call)
        keys = tuple(key for key in keys if not _EVALUATION.search(key))
        if type(holder) is not cst.Name or _EVALUATION.search(holder.value) or not keys:  # type: ignore[union-attr]
            return
        binding = self.ctx.receivers.binding(holder)
        if binding is None or len(self.ctx.receivers.assigned(binding)) != 1:
            return
        trained = False
        for loop in self.ctx.nodes_of(cst.For):
            iterated = [iterated_loader(self.ctx, loop.iter)]  # type: ignore[attr-defined]
            if type(iterated[0]) is cst.Call and _zipped(self.ctx, iterated[0]):  # type: ignore[arg-type]
                iterated = [iterated_loader(self.ctx, arg.value) for arg in iterated[0].args]  # type: ignore[union-attr]
            if any(type(item) is cst.Subscript and type(item.value) is cst.Name
                   and self.ctx.receivers.binding(item.value) == binding and subscript_key(item) in keys
                   for item in iterated) and _loop_trains(self.ctx, loop):  # type: ignore[arg-type]
                trained = True
                break
        if not trained or self._excused([holder], self.set_epoch_receivers, followed=set()):
            return
        self.report(call, f"`{self.ctx.code(call.func)}()` returns loaders on a shuffling `DistributedSampler`, "
                          "and nothing calls `set_epoch(epoch)` on them: every epoch sees the same order")

    def _check_built_sampler(self, call: cst.Call, summary: Summary) -> None:
        """A builder of another module returns a shuffling `DistributedSampler`, alone or
        in a DataLoader's keyword arguments (`kwargs = loader_kwargs(cfg, ds, "train")`):
        each loader of this file built on it (`DataLoader(ds, **kwargs)`) that is trained
        on, by a loop of the file or by a function of the project it is handed to, with
        nothing that may call `set_epoch` on it, is reported where it is built: the
        sampler enters the loader there, and the builder cannot know how it is used."""
        form, *condition = summary.returns_distributed_sampler
        if not _shuffles_for(call, summary, condition):
            return
        if form == "loader":
            self._check_built_loader(call)
            return
        kept = _assigned_to(self.ctx, call)
        if kept is not None and type(kept) is not cst.Name:
            return
        if kept is not None and _EVALUATION.search(kept.value):  # type: ignore[union-attr]
            return
        if form == "kwargs" and kept is not None and not (only_splatted(self.ctx, kept, "sampler")
                                                           and only_splatted(self.ctx, kept, "batch_sampler")):
            return  # the dict read otherwise: its sampler replaced, taken out, handed on
        key = "sampler" if form == "sampler" else None
        wrappers = self._batch_samplers_around(call, kept) if key else []
        for loader in self._loaders_on(call, kept, key, wrappers):
            holder = _assigned_to(self.ctx, loader)
            if type(holder) is not cst.Name or _EVALUATION.search(holder.value):  # type: ignore[union-attr]
                continue
            holders = [holder, *wrappers] if kept is None else [holder, kept, *wrappers]
            if not self._trained_on(holder) or self._excused(holders, self.set_epoch_receivers, followed=set()):
                continue
            self.report(loader, f"`{self.ctx.code(call.func)}()` builds a shuffling `DistributedSampler` for this "
                                "loader, and nothing calls `set_epoch(epoch)` on it: every epoch sees the same order")

    def _check_built_loader(self, call: cst.Call) -> None:
        """A builder returns a DataLoader on a `DistributedSampler` that shuffles for the
        argument this call writes out (`build(ds, "train")`): reported at the call when the
        variable it is assigned to is trained on and nothing may call `set_epoch` on it."""
        holder = _assigned_to(self.ctx, call)
        if type(holder) is not cst.Name or _EVALUATION.search(holder.value):  # type: ignore[union-attr]
            return
        if not self._trained_on(holder) or self._excused([holder], self.set_epoch_receivers, followed=set()):
            return
        self.report(call, f"`{self.ctx.code(call.func)}()` returns a loader on a `DistributedSampler` that shuffles "
                          "for this call, and nothing calls `set_epoch(epoch)` on it: every epoch sees the same order")

    def _batch_samplers_around(self, call: cst.Call, kept: cst.BaseExpression | None) -> list[cst.Name]:
        """The variables assigned once a batch sampler that wraps what `call` returns,
        the call itself or the variable `kept` that holds it (`batches =
        BatchSampler(sampler, 32, False)`), and given as a DataLoader's `batch_sampler=`."""
        receivers = self.ctx.receivers
        binding = receivers.binding(kept) if kept is not None else None
        found: list[cst.Name] = []
        for node in self.ctx.nodes_of(cst.Assign):
            value = node.value  # type: ignore[attr-defined]
            inner = batched(value)
            if inner is value or len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:  # type: ignore[attr-defined]
                continue
            if not (inner is call or (binding is not None and type(inner) is cst.Name
                                      and receivers.binding(inner) == binding)):
                continue
            target = node.targets[0].target  # type: ignore[attr-defined]
            held = receivers.binding(target)
            if held is not None and len(receivers.assigned(held)) == 1:
                found.append(target)
        return found

    def _loaders_on(self, call: cst.Call, kept: cst.BaseExpression | None, key: str | None,
                    wrappers: list[cst.Name]) -> list[cst.Call]:
        """The DataLoader calls given what `call` returns: as `sampler=` (`key`), also
        inside the batch sampler given as `batch_sampler=` (`BatchSampler(sampler, 32,
        False)`, or one of the variables `wrappers` that hold such a batch sampler), or
        unpacked (`**kwargs`), the call itself or the variable `kept` that holds it."""
        binding = self.ctx.receivers.binding(kept) if kept is not None else None
        if kept is not None and binding is None:
            return []
        wrapped = {self.ctx.receivers.binding(w) for w in wrappers}
        found = []
        for node in self.ctx.nodes_of(cst.Call):
            if self.ctx.call_name(node) != DATALOADER_CLASS:  # type: ignore[arg-type]
                continue
            for arg in node.args:  # type: ignore[attr-defined]
                value = arg.value
                if key and arg.keyword is not None and arg.keyword.value == "batch_sampler":
                    if type(value) is cst.Name and self.ctx.receivers.binding(value) in wrapped:
                        found.append(node)  # `batch_sampler=batches`, a batch sampler around it
                        continue
                    value = batched(value)
                    given = value is not arg.value
                else:
                    given = (arg.keyword is not None and arg.keyword.value == key) if key else arg.star == "**"
                if given and (value is call or (binding is not None and type(value) is cst.Name
                                                and self.ctx.receivers.binding(value) == binding)):
                    found.append(node)
        return found  # type: ignore[return-value]

    def _trained_on(self, holder: cst.BaseExpression) -> bool:
        """A loop of the file over the loader back-propagates or steps, or the loader is
        handed to a function of the project whose loop does (the loader itself, not a
        variable of another function that shares its name)."""
        texts = self._carriers([holder])
        carriers = self._carrier_bindings(texts, [holder])
        for node in self.ctx.nodes_of(cst.For, cst.Call):
            if type(node) is cst.For:
                iterated = iterated_loader(self.ctx, node.iter)  # type: ignore[attr-defined]
                if (self.ctx.code(iterated) in texts and self._passes_itself(iterated, texts, carriers)
                        and _loop_trains(self.ctx, node)):  # type: ignore[arg-type]
                    return True
                continue
            summary = self.ctx.summaries.of_call(node)  # type: ignore[arg-type]
            if (summary is not None and summary.does(LOOP) and (summary.does(BACKWARD) or summary.does(STEP))
                    and any(self._passes_itself(a.value, texts, carriers) for a in node.args)):  # type: ignore[attr-defined]
                return True
        return False

    def _may_reach(self, call: cst.Call, holders: list[cst.BaseExpression],
                   receivers: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
        """The `set_epoch` receivers that may be this sampler: not an item of the dict
        that keeps it read under another key written out (`samplers["source"]` for the
        sampler kept under "target"), when the dict is assigned once and nothing
        puts items in it by key or by method (`samplers["source"] = ...`, `.update()`)."""
        keys = _dict_keys(self.ctx, call)
        tracked = self.ctx.receivers
        holder = tracked.binding(holders[0]) if keys is not None and len(holders) == 1 else None
        if holder is None or len(tracked.assigned(holder)) != 1:
            return receivers
        same = tracked.aliases(holder)
        for node in self.ctx.nodes_of(cst.AssignTarget, cst.AugAssign, cst.Call):
            if type(node) is cst.Call:
                changed = [method_call(node, "update", "setdefault", "__setitem__")]
            else:  # `samplers["a"], samplers["b"] = ...` too
                changed = [part.value for part in iter_nodes(node.target)  # type: ignore[attr-defined]
                           if type(part) is cst.Subscript]
            if any(tracked.binding(c) in same for c in changed if c is not None):
                return receivers
        return [receiver for receiver in receivers
                if not (type(receiver) is cst.Subscript and tracked.binding(receiver.value) in same
                        and subscript_key(receiver) not in (None, *keys))]  # type: ignore[misc]

    def _excused(self, holders: list[cst.BaseExpression], receivers: list[cst.BaseExpression],
                 followed: set[cst.Return]) -> bool:
        """Something may call `set_epoch` on the sampler these hold: the file does,
        code we cannot see does, or a caller of the builder that returns it does."""
        if self._set_epoch_reaches(receivers, holders):
            return True
        texts = self._carriers(holders)
        if self._handed_to_imported_code(texts, holders) or self._left_on_the_object(texts):
            return True
        returned = self._returned_at_call_sites(texts, followed, self._carrier_bindings(texts, holders))
        if returned is None:
            return True
        if len(followed) > _MAX_BUILDERS:
            return bool(returned)
        return any(self._excused(found, receivers, followed) for found in returned)

    def _holders(self, call: cst.Call) -> list[cst.BaseExpression] | None:
        """What keeps the sampler: the variable it is assigned to, or the
        DataLoader variable it is given to. None when it goes elsewhere."""
        parent = self.ctx.parent(call)
        if type(parent) is cst.Return:
            return self._caller_holders(parent)
        if type(parent) is cst.Arg:
            loader_call = self.ctx.parent(parent)
            wrapped_in = self.ctx.parent(loader_call) if type(loader_call) is cst.Call else None
            if (type(wrapped_in) is cst.Arg and wrapped_in.keyword is not None
                    and wrapped_in.keyword.value == "batch_sampler" and batched(loader_call) is call):
                return self._holders(loader_call)  # `batch_sampler=BatchSampler(DistributedSampler(ds), 32)`
            if type(loader_call) is cst.Call and batched(loader_call) is call and self._given_as_batch_sampler(
                    _assigned_to(self.ctx, loader_call)):
                return [_assigned_to(self.ctx, loader_call)]  # `batches = BatchSampler(DistributedSampler(ds), 32)`
            if not (type(loader_call) is cst.Call and parent.keyword is not None
                    and parent.keyword.value in ("sampler", "batch_sampler")):
                return None
            target = _assigned_to(self.ctx, loader_call) or _dict_holding(self.ctx, loader_call)
            if target is None and iterated_where_built(self.ctx, loader_call):
                return [loader_call]  # `for x in DataLoader(ds, sampler=DistributedSampler(ds)):`
            return [target] if target is not None else self._kept_where_returned(loader_call)
        target = _assigned_to(self.ctx, call) or _dict_holding(self.ctx, call)
        return [target] if target is not None else self._kept_where_returned(call)

    def _kept_where_returned(self, value: cst.Call) -> list[cst.BaseExpression] | None:
        """`value` (a loader, or the sampler) returned as it is built by a function of
        this file, alone, as an item of a returned tuple (`return DataLoader(ds,
        sampler=DistributedSampler(ds)), aux_loader`) or as a value of a returned dict
        literal (`return {"train": DataLoader(...)}`): what keeps it at each call site
        of the file that is not for evaluation (the name it is assigned to, the name of
        its item where the tuple is unpacked, the dict kept whole). None when it is not
        so returned, when no call of the file runs the function, or when a call site
        passes the result on (nothing follows it there)."""
        parent = self.ctx.parent(value)
        layout: tuple[tuple[int, ...], int | None] | None = None
        if type(parent) is cst.Element:
            container = self.ctx.parent(parent)
            if type(container) is not cst.Tuple or any(type(e) is cst.StarredElement for e in container.elements):
                return None  # `return *others, loader`: its position at the call site is unknown
            index = next(i for i, element in enumerate(container.elements) if element is parent)
            layout = ((index,), len(container.elements))
            parent = self.ctx.parent(container)
        elif type(parent) is cst.DictElement and parent.value is value:
            parent = self.ctx.parent(self.ctx.parent(parent))  # the dict, kept whole by the caller
        if type(parent) is not cst.Return:
            return None
        builder = self.ctx.enclosing_function(parent)
        holders: list[cst.BaseExpression] = []
        for site in self.ctx.call_sites(builder) if builder is not None else []:
            if _evaluation_call(self.ctx, site):
                continue
            kept = _kept_at(self.ctx, site, layout)
            if kept is None:
                return None
            holders.extend(kept)
        return holders or None

    def _given_as_batch_sampler(self, variable: cst.BaseExpression | None) -> bool:
        """`variable` is assigned once, and given as a DataLoader's `batch_sampler=`."""
        receivers = self.ctx.receivers
        binding = receivers.binding(variable) if type(variable) is cst.Name else None
        if binding is None or len(receivers.assigned(binding)) != 1:
            return False
        return any(arg.keyword is not None and arg.keyword.value == "batch_sampler" and type(arg.value) is cst.Name
                   and receivers.binding(arg.value) == binding
                   for node in self.ctx.nodes_of(cst.Call) if self.ctx.call_name(node) == DATALOADER_CLASS  # type: ignore[arg-type]
                   for arg in node.args)  # type: ignore[attr-defined]

    def _caller_holders(self, returned: cst.Return) -> list[cst.BaseExpression] | None:
        """A builder of this file that returns the sampler it makes
        (`return DistributedSampler(ds)`): what keeps it at every call site
        of the file; None when there is none, or one that passes it on."""
        builder = self.ctx.enclosing_function(returned)
        sites = self.ctx.call_sites(builder) if builder is not None else []
        holders: list[cst.BaseExpression] = []
        for site in sites:
            found = self._holders(site)
            if found is None:
                return None
            holders.extend(found)
        return holders or None

    def _returned_at_call_sites(self, texts: set[str], followed: set[cst.Return],
                                carriers: set[Binding]) -> list[list[cst.BaseExpression]] | None:
        """Where the sampler goes when a function returns it, or a loader built on it
        (also from the attribute that keeps it: `return self.retri_loader`): for a
        builder that only this file calls, what keeps it at each call site
        (`train_loader, valset = prepare_dataloaders(hparams)`). None when it may
        leave the file (a builder no call of the file runs, or a call site whose
        result goes where we cannot follow it) or only serves evaluation. `texts`
        are what carries the sampler (see `_carriers`), `carriers` the variables that
        do (see `_returns_it`)."""
        found: list[list[cst.BaseExpression]] = []
        followed_here = False
        for node in self.ctx.nodes_of(cst.Return):
            if node in followed or node.value is None or not self._mentions(node.value, texts):
                continue
            if not self._returns_it(node.value, texts, carriers):
                continue
            followed.add(node)
            followed_here = True
            builder = self.ctx.enclosing_function(node)
            sites = self.ctx.call_sites(builder) if builder is not None else []
            if not sites:
                return None
            layout = None
            if type(node.value) is cst.Tuple:
                elements = node.value.elements
                layout = (tuple(i for i, e in enumerate(elements) if self._mentions(e.value, texts)), len(elements))
            for site in sites:
                if _evaluation_call(self.ctx, site):
                    continue
                kept = _kept_at(self.ctx, site, layout)
                if kept is None:
                    return None
                found.append(kept)
        if followed_here and not found:
            return None  # returned only to evaluation code
        return found

    def _handed_to_imported_code(self, texts: set[str], holders: list[cst.BaseExpression]) -> bool:
        """The sampler, or the loader holding it (`texts`: what carries it), passed
        to a function or class imported from a module other than torch: that code
        may well call `set_epoch` itself, and we cannot see it. A number or a text
        made from it (`len(loader)`, an f-string) is not the loader, nor is a
        variable of another function that only shares its name."""
        carriers = self._carrier_bindings(texts, holders)
        for node in self.ctx.nodes_of(cst.Call):
            if not any(self._passes_itself(a.value, texts, carriers) for a in node.args):
                continue
            callee = self.ctx.call_name(node)
            if callee is None:
                # a method of an object of code out of sight (`trainer.train(epoch, loader)`
                # of a trainer class from another module or a registry): it may set the epoch,
                # unless the file runs the epochs over the loader itself (a logger given it)
                if (type(node.func) is cst.Attribute and self.ctx.local_callee(node) is None  # type: ignore[attr-defined]
                        and node.func.attr.value not in STORING_METHODS  # type: ignore[attr-defined]
                        and not self._iterated_here(texts)
                        and not self._seen_not_to_set_epoch(node, texts)):
                    return True
                continue
            if callee.split(".")[0] in _LIBRARIES_THAT_ONLY_ITERATE:
                continue
            if not self._seen_not_to_set_epoch(node, texts):
                return True
        return False

    def _served_by_hand(self, holders: list[cst.BaseExpression]) -> bool:
        """The loader is kept by objects of a class of the file that the file itself
        makes, which step through it by hand only (`self.pending = iter(self.loader)`,
        then `next(self.pending)`: no loop runs over it, nothing else is given it), and
        nothing in the file trains: an environment serving a dataset to a frozen policy,
        not training data. A class no code of the file makes may feed a training loop
        of another module, and is still followed."""
        if file_trains(self.ctx):
            return False
        for holder in holders:
            method = self.ctx.enclosing_function(holder)
            if (type(holder) is not cst.Attribute or type(holder.value) is not cst.Name  # type: ignore[attr-defined]
                    or method is None or method.name.value != "__init__" or not method.params.params
                    or method.params.params[0].name.value != holder.value.value  # type: ignore[attr-defined]
                    or not self.ctx.call_sites(method)):
                return False
        texts = self._carriers(holders)
        kept: set[str] = set()
        for node in self.ctx.nodes_of(cst.Name, cst.Attribute):
            if self.ctx.code(node) not in texts or type(self.ctx.parent(node)) is cst.AssignTarget:
                continue
            arg = self.ctx.parent(node)
            call = self.ctx.parent(arg) if type(arg) is cst.Arg else None
            assign = self.ctx.parent(call) if type(call) is cst.Call else None
            if (type(call) is not cst.Call or type(call.func) is not cst.Name or call.func.value != "iter"  # type: ignore[attr-defined]
                    or self.ctx.local_callee(call) is not None or len(call.args) != 1  # type: ignore[attr-defined]
                    or type(assign) is not cst.Assign or len(assign.targets) != 1):  # type: ignore[attr-defined]
                return False
            kept.add(self.ctx.code(assign.targets[0].target))  # type: ignore[attr-defined]
        return bool(kept) and not self._iterated_here(kept)

    def _iterated_here(self, texts: set[str]) -> bool:
        """A loop of the file iterates the loader (`for x, y in loader:`, through
        `enumerate` / `tqdm`): the file trains on it itself."""
        return any(self.ctx.code(iterated_loader(self.ctx, loop.iter)) in texts  # type: ignore[attr-defined]
                   for loop in self.ctx.nodes_of(cst.For))

    def _left_on_the_object(self, texts: set[str]) -> bool:
        """A carrier is an attribute of the object (`self.train_loader = DataLoader(...)`)
        that nothing in the file reads, set by a class that runs no loop: a mixin or a
        builder whose object the rest of the project trains with (a base class of another
        module iterates `self.train_loader` and sets its epoch)."""
        read = {node.attr.value for node in self.ctx.nodes_of(cst.Attribute)  # type: ignore[attr-defined]
                if type(self.ctx.parent(node)) is not cst.AssignTarget}
        for node in self.ctx.nodes_of(cst.AssignTarget):
            target = node.target  # type: ignore[attr-defined]
            if (type(target) is not cst.Attribute or self.ctx.code(target) not in texts
                    or target.attr.value in read or type(target.value) is not cst.Name):
                continue
            method = self.ctx.enclosing_function(node)
            cls = self.ctx.parent(self.ctx.parent(method)) if method is not None else None
            params = method.params.params if method is not None else ()
            if (type(cls) is cst.ClassDef and params and params[0].name.value == target.value.value
                    and not any(type(n) in (cst.For, cst.While) for n in self.ctx.subtree(cls.body))):
                return True
        return False

    def _carrier_bindings(self, texts: set[str], holders: list[cst.BaseExpression]) -> set[Binding]:
        """The variables that carry the sampler: the holders, and those (named in
        `texts`) assigned a value made from a carrier; not a variable of another
        function that only shares a holder's name (`loader` of a `sweep()`)."""
        receivers = self.ctx.receivers
        found = {binding for holder in holders if (binding := receivers.binding(holder)) is not None}
        for node in self.ctx.nodes_of(cst.Assign):
            if not self._mentions(node.value, texts):  # type: ignore[attr-defined]
                continue
            for target in node.targets:
                for name in iter_nodes(target.target):
                    if type(name) in (cst.Name, cst.Attribute) and self.ctx.code(name) in texts:
                        binding = receivers.binding(name)
                        if binding is not None:
                            found.add(binding)
        return found

    def _returns_it(self, value: cst.BaseExpression, texts: set[str], carriers: set[Binding]) -> bool:
        """A returned `value` that mentions a carrier may be it: not a number or a text
        made from it (`return len(loader)`), nor only variables of a function that
        holds none of the carriers and that share a carrier's name (a parameter of
        that name may still be handed one)."""
        if not self._passes_itself(value, texts, set()):
            return False
        owners = {binding.owner for binding in carriers}
        for node in iter_nodes(value):
            if type(node) is cst.Attribute and self.ctx.code(node) in texts:
                return True
            if type(node) is cst.Name and node.value in texts:
                binding = self.ctx.receivers.binding(node)
                if binding is None or binding.owner in owners or _is_parameter(binding):
                    return True
        return False

    def _passes_itself(self, value: cst.CSTNode, texts: set[str], carriers: set[Binding]) -> bool:
        """`value`, an argument, may hand over the carrier itself: it names it (as the
        same variable), or builds on it, other than through a number, a text or a
        truth value made from it, or an attribute that holds neither loader nor sampler
        (`loader.dataset`)."""
        kind = type(value)
        if kind in _MADE_FROM_IT:
            return False
        if kind is cst.Name:
            if value.value not in texts:
                return False
            binding = self.ctx.receivers.binding(value)
            return binding is None or not carriers or binding in carriers
        if kind is cst.Attribute:  # `self.loader` as written, or what `loader.sampler` reads
            if self.ctx.code(value) in texts:
                return True
            return value.attr.value not in _NOT_THE_SAMPLER and self._passes_itself(value.value, texts, carriers)
        if kind is cst.Call:
            if _measures(self.ctx, value):  # type: ignore[arg-type]
                return False
            return self._passes_itself(value.func, texts, carriers) or any(
                self._passes_itself(arg.value, texts, carriers) for arg in value.args)
        # containers and the rest (`[loader]`, `{"train": loader}`, `a if c else b`)
        return any(self._passes_itself(child, texts, carriers) for child in children(value))

    def _seen_not_to_set_epoch(self, call: cst.Call, texts: set[str]) -> bool:
        """A function of another module of the project whose summary shows it
        never calls `set_epoch` on what it is given here."""
        summary = self.ctx.summaries.of_call(call)
        if summary is None:
            return False
        for slot, arg in argument_slots(call):
            if self._mentions(arg.value, texts):
                plain = type(arg.value) is cst.Name or self.ctx.call_name(arg.value) == DATALOADER_CLASS
                param = summary.slot(slot) if plain else None
                if param is None or param in summary.set_epoch:
                    return False
        return True

    def _carriers(self, holders: list[cst.BaseExpression]) -> set[str]:
        """What carries the sampler: its holders, the loaders built on it, and the
        containers either is put in (`samplers.append(sampler)`, `[s1, s2]`,
        `kwargs["sampler"] = sampler`)."""
        texts = {self.ctx.code(h) for h in holders} | self._loaders_given(holders)
        texts |= {self.ctx.code(h.value) for h in holders
                  if type(h) is cst.Subscript and type(h.value) in (cst.Name, cst.Attribute)}
        for node in self.ctx.nodes_of(cst.Call):
            receiver = method_call(node, "append", "extend", "insert", "add")
            if (type(receiver) in (cst.Name, cst.Attribute)
                    and any(self._mentions(a.value, texts) for a in node.args)):
                texts.add(self.ctx.code(receiver))
        for node in self.ctx.nodes_of(cst.Assign):
            if len(node.targets) != 1 or not self._mentions(node.value, texts):
                continue
            target = node.targets[0].target
            if type(node.value) in (cst.List, cst.Tuple, cst.Set, cst.Dict) and type(target) in (cst.Name, cst.Attribute):
                texts.add(self.ctx.code(target))
            elif type(node.value) is cst.Call and type(target) in (cst.Name, cst.Attribute) and any(
                    arg.star == "**" and self.ctx.code(arg.value) in texts for arg in node.value.args):
                texts.add(self.ctx.code(target))  # `loader = DataLoader(ds, **kwargs)`, the sampler in kwargs
            elif type(target) is cst.Subscript and type(target.value) in (cst.Name, cst.Attribute):
                texts.add(self.ctx.code(target.value))
        return texts

    def _loaders_given(self, holders: list[cst.BaseExpression]) -> set[str]:
        """Variables and attributes (`self.loader`) assigned a call that takes the
        sampler as `sampler=`, or as `batch_sampler=` alone or wrapped in a batch
        sampler (`batch_sampler=BatchSampler(sampler, 32, drop_last=True)`)."""
        texts = {self.ctx.code(h) for h in holders}
        loaders: set[str] = set()
        for node in self.ctx.nodes_of(cst.Call):
            for arg in node.args:
                value = arg.value
                if arg.keyword is not None and arg.keyword.value == "batch_sampler":
                    value = batched(value)
                if type(value) is cst.Subscript:
                    value = value.value  # `sampler=samplers[x]`, one of the samplers a dict keeps
                if (arg.keyword is not None and arg.keyword.value in ("sampler", "batch_sampler")
                        and type(value) in (cst.Name, cst.Attribute) and self.ctx.code(value) in texts):
                    target = _assigned_to(self.ctx, node) or _dict_holding(self.ctx, node)
                    if type(target) in (cst.Name, cst.Attribute):
                        loaders.add(self.ctx.code(target))
        return loaders

    def _mentions(self, value: cst.BaseExpression, texts: set[str]) -> bool:
        """`value` is one of the holders, or builds on one (`DataLoader(ds, sampler=s)`);
        a holder that is an attribute (`self.sampler`) is matched as written (its
        code written out only when its last name could match); a keyword is no mention
        (`sampler=` of `DataLoader(val_ds, sampler=DistributedSampler(val_ds))` beside
        a holder named `sampler`)."""
        attributes = {text.rsplit(".", 1)[1] for text in texts if "." in text}
        return any((type(node) is cst.Name and node.value in texts and not self._keyword(node))
                   or (type(node) is cst.Attribute and node.attr.value in attributes
                       and self.ctx.code(node) in texts)
                   for node in iter_nodes(value))

    def _keyword(self, name: cst.Name) -> bool:
        """`name` is the keyword of an argument (`sampler` of `sampler=s`), not a value read."""
        parent = self.ctx.parent(name)
        return type(parent) is cst.Arg and parent.keyword is name

    def _parameter_may_hold(self, binding: Binding, holders: list[cst.BaseExpression],
                            texts: set[str] | None = None) -> bool:
        """Some call of the function passes the sampler (or something we cannot
        name) to the parameter; a function never called here may get anything.
        `texts`: the names that carry the sampler, its holders' unless given."""
        texts = {self.ctx.code(h) for h in holders} if texts is None else texts
        given = self._arguments_given(binding)
        return given is None or any(not _names_other_than(value, texts) for value in given)

    def _sampler_of_other_loaders(self, receiver: cst.BaseExpression, holders: list[cst.BaseExpression]) -> bool:
        """`loader.sampler`, where `loader` is a parameter of a function (or a method) of the file
        that every call of the file names, and none hands it the loader on this sampler (nor
        anything we cannot name): `run_epoch(model, train_loader, val_loader, epoch)` setting the
        epoch of `val_loader.sampler` leaves `train_loader`'s sampler as it was, and so does
        `self.evaluate(val_loader, epoch)`. A function the file also hands on uncalled
        (`mp.spawn(run_epoch, ...)`, `Thread(target=self.evaluate)`) may be given anything."""
        if (type(receiver) is not cst.Attribute or receiver.attr.value != "sampler"
                or type(receiver.value) is not cst.Name):
            return False
        kept = self.ctx.receivers.binding(receiver)
        if kept is not None and kept.name.startswith("self."):
            return False  # `self.sampler` of a method: the object's own attribute, not a loader's
        binding = self.ctx.receivers.binding(receiver.value)
        if binding is None or not _is_parameter(binding):
            return False
        func = binding.owner
        assert type(func) is cst.FunctionDef
        for node in self.ctx.nodes_of(cst.Name, cst.Attribute):
            named = node.value if type(node) is cst.Name else node.attr.value  # type: ignore[attr-defined]
            parent = self.ctx.parent(node)
            if type(parent) is cst.Attribute and parent.attr is node:
                continue  # `evaluate` of `self.evaluate`: the attribute is looked at whole
            if (named == func.name.value and node is not func.name
                    and not (type(parent) is cst.Call and parent.func is node)):
                return False  # the function itself handed on, or read in a way not followed
        given = self._arguments_given(binding)
        texts = self._carriers(holders)
        return given is not None and not any(self._may_carry(value, texts, holders) for value in given)

    def _arguments_given(self, parameter: Binding) -> list[cst.BaseExpression] | None:
        """What the file's calls of the function that `parameter` belongs to, by its name
        (`run_epoch(...)`, `self.run_epoch(...)`, `trainer.run_epoch(...)`), give that
        parameter, by position or keyword; the object a method is called on goes to its
        first parameter, not to the next (`self`, or `cls` of a classmethod; a staticmethod
        binds none, nor does a method called on its class: `Trainer.run(self, loader)`). A
        call of that name that runs another function (one of the file, or one an import
        names: `metrics.run_epoch(...)`) gives it nothing. None when the file calls it
        nowhere, or a call unpacks `*args` / `**kwargs`: it may be given anything."""
        func = parameter.owner
        assert type(func) is cst.FunctionDef
        calls = [node for node in self.ctx.nodes_of(cst.Call)
                 if _callee_name(node) == func.name.value and self._may_run(node, func)]
        given: list[cst.BaseExpression] = []
        for call in calls:
            pairs, complete = bound_arguments(self.ctx, call, func)
            if not complete:
                return None
            given += [value for name, value in pairs if name == parameter.name]
        return given if calls else None

    def _may_run(self, call: cst.Call, func: cst.FunctionDef) -> bool:
        """`call`, named as `func` is, may run it: it runs `func` as the file's calls are
        resolved (see `local_callee`), or runs nothing they know of (`trainer.run_epoch(...)`
        on an object of unknown class); not where it runs another function of the file,
        or one an import names."""
        callee = self.ctx.local_callee(call)
        if callee is not None:
            return callee is func
        return self.ctx.qualified_name(call.func) is None

    def _may_carry(self, value: cst.BaseExpression, texts: set[str], holders: list[cst.BaseExpression]) -> bool:
        """An argument that may be the loader on this sampler: anything but a variable
        of the file, not a parameter, or an attribute of the object (`self.val_loader`),
        only ever assigned values that name no carrier
        (`val_loader = DataLoader(val_ds, sampler=DistributedSampler(val_ds))`)."""
        tracked = self.ctx.receivers
        binding = tracked.binding(value) if type(value) in (cst.Name, cst.Attribute) else None
        if binding is None or binding in self._carrier_bindings(texts, holders):
            return True
        if type(value) is cst.Name:
            values = self._only_assigned(binding)
        else:
            values = tracked.only_assigned(binding) if binding.name.count(".") == 1 else None
        return values is None or any(self._mentions(v, texts) for v in values)

    def _sampler_of_own_loader(self, receiver: cst.BaseExpression, own: set[Binding | None]) -> bool:
        """`loader.sampler`, where `loader` is a variable of a function (or of the module), none of this
        sampler's holders (of that function or another), and every value it is assigned
        there is a loader on a sampler of its own (see `_loader_on_own_sampler`): a
        `DataLoader(...)` given as `sampler=` / `batch_sampler=` nothing, a
        `DistributedSampler(...)` written there, or a variable of the same function, not
        a holder, assigned only `DistributedSampler(...)` calls; or a call of another
        module's builder that returns a loader on a shuffling `DistributedSampler` it
        builds (`loader = make_loader(ds)`). Its `set_epoch` is that sampler's: a
        training function beside it that forgets its own is not excused, nor is the
        other loader of `zip(train_loader, aux_loader)` when only the first's is set."""
        if type(receiver) is not cst.Attribute or receiver.attr.value != "sampler":
            return False
        binding = self.ctx.receivers.binding(receiver.value)
        if binding is None or binding in own:
            return False
        if type(receiver.value) is cst.Name:
            values = self._only_assigned(binding)
            return values is not None and all(self._loader_on_own_sampler(value, binding.owner, own)
                                              for value in values)
        if binding.name.count(".") != 1:
            return False
        # `self.aux_loader.sampler`: an attribute of the object, set only to loaders on samplers of their own
        values = self.ctx.receivers.only_assigned(binding)
        return values is not None and all(
            self._loader_on_own_sampler(value, self.ctx.enclosing_function(value) or self.ctx.module, own)
            for value in values)

    def _loader_on_own_sampler(self, value: cst.BaseExpression, function: cst.CSTNode,
                               own: set[Binding | None]) -> bool:
        """`value`, assigned to a loader variable of `function`, is a loader on a sampler
        that is none of `own` (the holders of the sampler checked): a `DataLoader(...)`
        given as `sampler=` / `batch_sampler=` nothing, a `DistributedSampler(...)` made
        there, or a variable of `function` (not a holder) assigned only such calls; or
        another module's builder's loader on a sampler it builds itself."""
        if type(value) is not cst.Call:
            return False
        if self.ctx.call_name(value) != DATALOADER_CLASS:
            summary = self.ctx.summaries.of_external_call(value)
            return summary is not None and summary.returns_distributed_loader
        # `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, ...)`: nothing unpacked,
        # nor a sampler given by position
        if any(arg.star for arg in value.args) or sum(arg.keyword is None for arg in value.args) > 3:
            return False
        tracked = self.ctx.receivers
        for arg in value.args:
            if arg.keyword is None or arg.keyword.value not in ("sampler", "batch_sampler"):
                continue
            if (arg.keyword.value == "sampler" and type(arg.value) is cst.Call
                    and self._distributed_sampler(arg.value)):
                continue  # `sampler=DistributedSampler(ds)`, a new one made for this loader
            sampler = tracked.binding(arg.value) if type(arg.value) is cst.Name else None
            if (sampler is None or sampler in own or sampler.owner is not function
                    or not self._own_sampler(sampler)):
                return False
        return True

    def _set_epoch_reaches(self, receivers: list[cst.BaseExpression], holders: list[cst.BaseExpression]) -> bool:
        """A `set_epoch` call whose receiver may be this sampler: the sampler
        itself, any `.sampler` attribute, or something we cannot identify as a
        different sampler."""
        tracked = self.ctx.receivers
        own = {tracked.binding(h) for h in holders} - {None}
        for receiver in receivers:
            if receiver not in self._receiver_bindings:
                self._receiver_bindings[receiver] = tracked.binding(receiver)
            binding = self._receiver_bindings[receiver]
            if not self._may_name_the_sampler(binding, own):
                continue  # none of the tests below could find that it reaches the sampler
            if type(receiver) is cst.Attribute and receiver.attr.value == "dataset":
                continue  # `data_loader.dataset.set_epoch(epoch)`: an iterable dataset's own epoch
            if self._sampler_of_own_loader(receiver, own):
                continue  # `loader.sampler.set_epoch(epoch)` of a loader another function builds
            if self._sampler_of_other_loaders(receiver, holders):
                continue  # `val_loader.sampler.set_epoch(epoch)` of a parameter only other loaders are given
            if binding is None or binding in own:
                return True
            if type(receiver) is cst.Name and self._beside_a_builders_loader(binding):
                continue  # `loader, sampler = build_loader(ds)`: that builder's own sampler
            if _is_parameter(binding) and self._parameter_may_hold(binding, holders):
                return True
            if tracked.kinds.get(binding) not in (SAMPLER, DATALOADER):
                return True
            if self._same_name(binding, own) and not (type(receiver) is cst.Name and self._own_sampler(binding)):
                return True
        return False

    def _may_name_the_sampler(self, binding: Binding | None, own: set[Binding | None]) -> bool:
        """A receiver read as `binding` may be the sampler in the eyes of `_set_epoch_reaches`:
        it is no variable it knows, one of the sampler's holders, a parameter, a variable
        not known to hold a sampler or a loader, or one named as a holder. Cheap, and asked
        first: the other tests only ever excuse a receiver."""
        return (binding is None or binding in own or _is_parameter(binding)
                or self.ctx.receivers.kinds.get(binding) not in (SAMPLER, DATALOADER)
                or self._same_name(binding, own))

    def _same_name(self, binding: Binding, own: set[Binding | None]) -> bool:
        """`binding` has the name of a holder of the sampler, and may be it: `self.sampler` of
        another class of the file that builds its own sampler there is not, unless one class
        derives from the other (or a class derives from both), so that one object runs both
        classes' methods; one that is handed its sampler may be given this one."""
        return any(b is not None and b.name == binding.name
                   and (self.ctx.receivers.may_be_one_object(b, binding) or not self._own_sampler(binding))
                   for b in own)

    def _beside_a_builders_loader(self, binding: Binding) -> bool:
        """`binding`, a variable of a function, none of this sampler's holders, is bound
        only by unpacking what a builder of another module returns beside a loader on a
        `DistributedSampler` it builds (`loader, sampler = build_loader(ds)` of a
        `return loader, sampler`): it holds that builder's sampler, a new one each call,
        not one of this file's loaders (a training function beside it that forgets its own
        `set_epoch` is not excused)."""
        if type(binding.owner) is not cst.FunctionDef or _is_parameter(binding):
            return False
        sites = list(self.ctx.receivers.bound_at(binding))
        for node, part, parent in sites:
            element = self.ctx.parent(node)
            if type(parent) is not cst.AssignTarget or type(part) is not cst.Tuple or self.ctx.parent(element) is not part:
                return False
            value = self.ctx.parent(parent).value  # type: ignore[attr-defined]
            summary = self.ctx.summaries.of_external_call(value) if type(value) is cst.Call else None
            loaders = summary.items_holding(DISTRIBUTED_LOADER) if summary is not None else ()
            if not loaders or f"#{part.elements.index(element)}" in loaders:
                return False
        return bool(sites)

    def _own_sampler(self, binding: Binding) -> bool:
        """`binding` is a variable of a function (or of the module, or an attribute of a
        class's instances) that holds a sampler of its own: set only
        to `DistributedSampler(...)` calls made there, a new object each time, or to None
        (`sampler = DistributedSampler(val_ds, shuffle=False)`), at least once to a sampler."""
        if binding not in self._own_samplers:
            values = self._only_assigned(binding)
            samplers = [v for v in values or () if not (type(v) is cst.Name and v.value == "None")]
            self._own_samplers[binding] = bool(samplers) and all(
                type(v) is cst.Call and self._distributed_sampler(v) for v in samplers)
        return self._own_samplers[binding]

    def _only_assigned(self, binding: Binding) -> list[cst.BaseExpression] | None:
        """The values a variable of a function or of the module, or an attribute of the
        instances of a class (`self.sampler`), is assigned, when plain assignments to it
        alone are what bind it (see `Receivers.only_assigned`); None otherwise."""
        if type(binding.owner) not in (cst.FunctionDef, cst.Module, cst.ClassDef) or _is_parameter(binding):
            return None
        return self.ctx.receivers.only_assigned(binding)


def _shuffles_for(call: cst.Call, summary: Summary, condition: list[str]) -> bool:
    """The builder's sampler shuffles for the argument `call` gives it (see
    `Summary.returns_distributed_sampler`): always, or by a test of a constant the
    call passes, or of the parameter's constant default when the call leaves it out
    (and unpacks no `*args` or `**kwargs`); an argument not written out here is not
    known to."""
    if condition == ["always"]:
        return True
    if len(condition) < 3:
        return False
    given = [arg.value for slot, arg in argument_slots(call) if summary.slot(slot) == condition[0]]
    if len(given) > 1:
        return False
    if given:
        value = constant_text(given[0])
    elif len(condition) > 3 and not any(arg.star for arg in call.args):
        value = condition[3]
    else:
        return False
    return shuffles_with(condition, value) is True


def _decided_by_the_call(returned: tuple[str, ...]) -> bool:
    """A sampler of a builder of this file that shuffles by a test of the caller's
    argument the check of the sampler itself takes not to shuffle (`shuffle=mode ==
    "train"`, or `shuffle=shuffle` defaulting to `False`): judged at each call instead."""
    if len(returned) < 4:
        return False
    operator = returned[2]
    return operator in ("==", "!=") or (operator == "is" and len(returned) > 4
                                         and returned[4] in ("False", "None", "0"))


def _loop_trains(ctx: FileContext, loop: cst.For) -> bool:
    """The loop's body back-propagates or steps, itself or through a call of the project."""
    for node in ctx.subtree(loop.body):
        if trains(ctx, node):
            return True
        if type(node) is cst.Call:
            summary = ctx.summaries.of_call(node)
            if summary is not None and (summary.does(BACKWARD) or summary.does(STEP)):
                return True
    return False


def _measures(ctx: FileContext, call: cst.Call) -> bool:
    """`len(loader)`, `str(loader)`...: a number or a text made from the value, by a
    builtin (its plain name, when nothing of the file rebinds it, or `builtins.len`)."""
    name = ctx.call_name(call)
    if name is None and type(call.func) is cst.Name and ctx.local_function(call.func) is None:
        name = call.func.value
    return name in _MEASURES


def _evaluation_call(ctx: FileContext, site: cst.Call) -> bool:
    """A builder called for evaluation data: from a function named for it
    (`pretrain_validation`), or told so (`eval_set=True`, `split="val"`)."""
    caller = ctx.enclosing_function(site)
    if caller is not None and _EVALUATION.search(caller.name.value):
        return True
    for arg in site.args:
        value = arg.value
        if (arg.keyword is not None and _EVALUATION.search(arg.keyword.value)
                and type(value) is cst.Name and value.value == "True"):
            return True
        if _EVALUATION.search(string_value(value) or ""):
            return True
    return False


def _kept_at(ctx: FileContext, site: cst.Call,
             layout: tuple[tuple[int, ...], int | None] | None) -> list[cst.BaseExpression] | None:
    """What keeps what a builder returns at one call site: the name the call is
    assigned to, or, for a returned tuple (`layout`: the positions that carry the
    sampler, and the tuple's length when known), the names it is unpacked into
    there. None when the result goes anywhere else."""
    target = _assigned_to(ctx, site)
    if target is None:
        return None
    if layout is None:
        return [target] if type(target) in (cst.Name, cst.Attribute) else None
    positions, length = layout
    if type(target) not in (cst.Tuple, cst.List) or length not in (None, len(target.elements)):
        return [target] if type(target) is cst.Name else None  # the tuple kept whole
    elements = target.elements
    kept = [elements[i].value for i in positions if i < len(elements)]
    if any(type(value) not in (cst.Name, cst.Attribute) for value in kept):
        return None
    return kept


def _unpacked(ctx: FileContext, site: cst.Call) -> list[cst.BaseExpression]:
    """The names a call's returned tuple is unpacked into (`loader, sampler = f()`)."""
    target = _assigned_to(ctx, site)
    if type(target) not in (cst.Tuple, cst.List):
        return []
    return [e.value for e in target.elements if type(e.value) in (cst.Name, cst.Attribute)]  # type: ignore[union-attr]


def _is_parameter(binding: Binding) -> bool:
    """A function parameter may be handed any sampler by its callers."""
    func = binding.owner
    if type(func) is not cst.FunctionDef:
        return False
    params = func.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return any(p.name.value == binding.name for p in every)


def _callee_name(call: cst.Call) -> str | None:
    if type(call.func) is cst.Name:
        return call.func.value
    if type(call.func) is cst.Attribute:
        return call.func.attr.value
    return None


def _names_other_than(value: cst.BaseExpression, texts: set[str]) -> bool:
    """`value` is a plain name that is not one of the sampler's holders."""
    return type(value) is cst.Name and value.value not in texts


def _samples_evaluation_data(call: cst.Call) -> bool:
    """`DistributedSampler(val_dataset, ...)`: the dataset's name says evaluation."""
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value == "dataset":
            return type(arg.value) in (cst.Name, cst.Attribute) and bool(
                _EVALUATION.search(_last_name(arg.value))
            )
    return False


def _last_name(expr: cst.Name | cst.Attribute) -> str:
    return expr.value if type(expr) is cst.Name else expr.attr.value


def _assigned_to(ctx: FileContext, value: cst.CSTNode) -> cst.BaseExpression | None:
    """The variable `value` is assigned to, also as one branch of a
    conditional (`x = DataLoader(...) if ds is not None else None`)."""
    node = ctx.parent(value)
    while type(node) is cst.IfExp and value is not node.test:
        value, node = node, ctx.parent(node)
    if type(node) is cst.Assign and len(node.targets) == 1:
        return node.targets[0].target
    if type(node) is cst.AnnAssign:
        return node.target
    return None


def _dict_holding(ctx: FileContext, value: cst.CSTNode) -> cst.BaseExpression | None:
    """The variable assigned a dict that keeps `value` as one of its values
    (`samplers = {x: DistributedSampler(ds[x]) for x in ["train", "val"]}`, or a
    literal `{"train": DistributedSampler(train_ds)}`)."""
    parent = ctx.parent(value)
    if type(parent) is cst.DictComp and parent.value is value:
        return _assigned_to(ctx, parent)
    if type(parent) is cst.DictElement and parent.value is value:
        return _assigned_to(ctx, ctx.parent(parent))
    return None


def _dict_keys(ctx: FileContext, value: cst.CSTNode) -> list[str] | None:
    """The keys a dict keeps `value` under, when written out: a literal's key, or
    the strings its comprehension's key runs over (`for x in ["train", "val"]`)."""
    parent = ctx.parent(value)
    if type(parent) is cst.DictElement and parent.value is value:
        key = string_value(parent.key)
        return [key] if key is not None else None
    if type(parent) is not cst.DictComp or parent.value is not value:
        return None
    loop = parent.for_in
    if (loop.inner_for_in is not None or type(loop.target) is not cst.Name or type(parent.key) is not cst.Name
            or parent.key.value != loop.target.value or type(loop.iter) not in (cst.List, cst.Tuple)):
        return None
    keys = [string_value(element.value) for element in loop.iter.elements]
    return None if None in keys else keys  # type: ignore[return-value]


def _zipped(ctx: FileContext, call: cst.Call) -> bool:
    """`zip(a, b)`, the builtin (nothing unpacked into it)."""
    name = ctx.call_name(call)
    if name is None and type(call.func) is cst.Name and ctx.local_function(call.func) is None:
        name = call.func.value
    return name in ("zip", "builtins.zip") and not any(arg.star or arg.keyword for arg in call.args)


def _kept_for_evaluation(ctx: FileContext, call: cst.Call) -> bool:
    """The sampler (or the loader given it) is kept in a dict only under keys
    that say evaluation (`{"val": DistributedSampler(val_ds)}`)."""
    parent = ctx.parent(call)
    kept = ctx.parent(parent) if type(parent) is cst.Arg else call
    keys = _dict_keys(ctx, kept) if kept is not None else None
    return bool(keys) and all(_EVALUATION.search(key) for key in keys)  # type: ignore[union-attr]


def _shuffles(ctx: FileContext, call: cst.Call) -> bool:
    value = sampler_shuffle(call)
    # the default shuffles, and so may a value read from a config or a flag
    return value is None or not (_may_be_false(value) or _defaults_to_false(ctx, value))


def _defaults_to_false(ctx: FileContext, value: cst.BaseExpression) -> bool:
    """`shuffle=shuffle` in `def build_data_loader(dataset, shuffle=False)`: the
    builder's callers decide, and by default it does not shuffle."""
    func = ctx.enclosing_function(value)
    if type(value) is not cst.Name or func is None:
        return False
    params = func.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == value.value:
            return param.default is not None and _may_be_false(param.default)
    return False


def _may_be_false(value: cst.BaseExpression) -> bool:
    """`False`, `0`, `None`, or an expression that decides here whether to
    shuffle (`split == "train"`, `not args.eval`). A config value or a flag
    (`cfg.data.shuffle`) is taken to shuffle: that is what it is for."""
    if type(value) is cst.Name:
        return value.value in ("False", "None")
    if type(value) is cst.Integer:
        return value.value == "0"
    return type(value) in (cst.Comparison, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp)
