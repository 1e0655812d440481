from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import (
    DATALOADER, Values, code_text_runs, dataloader_calls, is_constant, keyword, splatted_keyword, target_names,
)
from trainlint.analysis.guards import in_try
from trainlint.analysis.partials import keyword_argument, partial_target
from trainlint.analysis.precision import argument
from trainlint.analysis.splatted import splatted_entries
from trainlint.context import FileContext
from trainlint.rule import Example, Fix, Rule


class SamplerWithShuffle(Rule):
    """
    ## What it does
    Flags a `DataLoader(...)` that passes `sampler=` together with
    `shuffle=True`, or `batch_sampler=` together with `shuffle=True` or
    `batch_size=`.

    ## Why is this bad?
    A sampler decides the order of the samples (a `DistributedSampler`
    shuffles by itself, per epoch); a batch sampler also decides the batch
    size. The DataLoader refuses the combination: it raises `ValueError`
    ("sampler option is mutually exclusive with shuffle") when it is built,
    typically on the multi-GPU run only, after the single-GPU test passed.

    ## Fix safety
    Safe: removes `shuffle=True`, when the sampler (or batch sampler) is built
    in the file and cannot be `None` (a torch class, or a class this file
    defines with no `__new__`, class decorator or metaclass, on bases of
    torch or of the file; a name imported from elsewhere may be a function
    that returns `None` on a single-process run). It already decides the order,
    and the call raised before, so no working behavior changes. A call whose
    error may be caught gets no fix: inside a `try`, or a `with` that swallows
    errors (`contextlib.suppress`, `pytest.raises`, `self.assertRaises`), in its
    own function or one that calls it; the run may go on with a loader built
    another way. Nor does a sampler held in a variable of a file that runs
    code text (`exec(open("configurator.py").read())`), which may bind it to
    `None`. A comment on the removed argument's line is kept, on a line of
    its own (or at the end of the line above when the argument shared it);
    a comment inside the argument leaves the finding without a fix. With `batch_sampler=` and `batch_size=` there is no fix: whether
    the batch size belongs in the batch sampler is the author's decision.

    ## Limitations
    A `DataLoader` bound by `functools.partial` (`make = partial(DataLoader,
    shuffle=True)`, then `make(ds, sampler=s)`) is judged on the keywords of
    the partial and the call together, with no fix. Only literal values are judged: `shuffle=args.shuffle` or
    `shuffle=(sampler is None)` (the correct idiom) are not flagged, nor is a
    sampler that may be `None` (`sampler=s if ddp else None`, or a variable set
    to `None` on one side of an `if`), nor arguments passed
    through `**kwargs`, unless the dict is written out at the call
    (`**dict(shuffle=True)`, `**{"shuffle": True}`) or held by a variable set
    once to such a dict and only ever splatted or given other keys
    (`kwargs["pin_memory"] = True`; the sampler, batch sampler and batch size
    are read there as the shuffle is); a `shuffle=True` found there
    is flagged without a fix, as are `shuffle` and `sampler` given by position
    (dropping the `True` would move the sampler into the shuffle slot). A
    dict built in the function whose keys change on the way to the call
    (`kwargs.update(sampler=s, shuffle=False)` on one branch,
    `kwargs["shuffle"] = True` on the other) is followed path by path: flagged,
    without a fix (the `shuffle=True` is right on the other paths), when some
    path gives it both `shuffle=True` and a sampler, not one the path took to
    be None (`if sampler is None: kwargs["shuffle"] = True`); a dict handed
    to other code on the way, or changed in a way not followed, is not. A sampler whose values are unknown (a parameter, what a
    function returns) is flagged without a fix: only a sampler built in the
    file surely makes the call raise.
    """

    code = "TL304"
    name = "sampler-with-shuffle"
    severity = "error"
    message = "`shuffle=True` with a `sampler=`: the DataLoader raises ValueError; the sampler already decides the order"
    fix_safety = "safe"
    triggers = ("sampler",)
    bad = (
        # by position (dataset, batch_size, shuffle, sampler): flagged, no fix (dropping
        # the `True` would move the sampler into the shuffle slot)
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, 32, True, sampler)  # expect: TL304\n",
        Example(
            "from torch.utils.data import DataLoader, DistributedSampler\n"
            "sampler = DistributedSampler(dataset)\n"
            "loader = DataLoader(dataset, batch_size=32, sampler=sampler, shuffle=True)  # expect: TL304\n",
            fixed="from torch.utils.data import DataLoader, DistributedSampler\n"
            "sampler = DistributedSampler(dataset)\n"
            "loader = DataLoader(dataset, batch_size=32, sampler=sampler)  # expect: TL304\n",
        ),
        Example(
            "import torch\n"
            "train_loader = torch.utils.data.DataLoader(  # expect: TL304\n"
            "    train_set,\n"
            "    batch_size=args.batch_size,\n"
            "    shuffle=True,  # shuffle every epoch\n"
            "    sampler=torch.utils.data.distributed.DistributedSampler(train_set),\n"
            "    num_workers=4,\n"
            ")\n",
            fixed="import torch\n"
            "train_loader = torch.utils.data.DataLoader(  # expect: TL304\n"
            "    train_set,\n"
            "    batch_size=args.batch_size,\n"
            "    # shuffle every epoch\n"
            "    sampler=torch.utils.data.distributed.DistributedSampler(train_set),\n"
            "    num_workers=4,\n"
            ")\n",
        ),
        # the comment on the removed line stays, at the end of the line above
        Example(
            "from torch.utils.data import DataLoader, RandomSampler\n"
            "s = RandomSampler(ds, replacement=True)\n"
            "loader = DataLoader(ds, shuffle=True,  # keep order random  # expect: TL304\n"
            "                    sampler=s)\n",
            fixed="from torch.utils.data import DataLoader, RandomSampler\n"
            "s = RandomSampler(ds, replacement=True)\n"
            "loader = DataLoader(ds,  # keep order random  # expect: TL304\n"
            "                    sampler=s)\n",
        ),
        # a comment inside the argument: no layout keeps it, so no fix
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, sampler=s, shuffle=(  # expect: TL304\n"
        "    True))\n",
        Example(
            "from torch.utils import data\n"
            "class BucketSampler(data.Sampler):\n"
            "    pass\n"
            "loader = data.DataLoader(ds, batch_sampler=BucketSampler(ds), shuffle=True)  # expect: TL304\n",
            fixed="from torch.utils import data\n"
            "class BucketSampler(data.Sampler):\n"
            "    pass\n"
            "loader = data.DataLoader(ds, batch_sampler=BucketSampler(ds))  # expect: TL304\n",
        ),
        # no fix: a name imported from another module and spelled as a class may be a
        # function that returns None on a single-process run, where shuffle=True shuffles
        "from torch.utils.data import DataLoader\n"
        "from samplers import DistSampler\n"
        "loader = DataLoader(ds, batch_size=8, sampler=DistSampler(ds), shuffle=True)  # expect: TL304\n",
        # batch size belongs to the batch sampler: reported, no fix
        "from torch.utils.data import DataLoader as DL\n"
        "loader = DL(ds, batch_size=16, batch_sampler=sampler)  # expect: TL304\n",
        "import torch.utils.data as tud\n"
        "def make_loader(ds, sampler):\n"
        "    return tud.DataLoader(ds, 64, sampler=sampler,  # expect: TL304\n"
        "                          shuffle=True)\n",
        # no fix: a function named like a class may return None (then the loader does
        # not raise and shuffles); a ValueError caught around the call may lead to a
        # loader that does shuffle
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def DistSampler(dataset):\n"
        "    if torch.distributed.is_initialized():\n"
        "        return torch.utils.data.DistributedSampler(dataset)\n"
        "    return None\n"
        "loader = DataLoader(ds, batch_size=8, sampler=DistSampler(ds), shuffle=True)  # expect: TL304\n",
        "from torch.utils.data import DataLoader, SequentialSampler\n"
        "sampler = SequentialSampler(ds)\n"
        "try:\n"
        "    loader = DataLoader(ds, batch_size=8, sampler=sampler, shuffle=True)  # expect: TL304\n"
        "except ValueError:\n"
        "    loader = DataLoader(ds, batch_size=8, shuffle=True)\n",
        # the error may be caught: by a caller's `try`, a `with` that swallows it
        "from torch.utils.data import DataLoader, SequentialSampler\n"
        "def make(ds):\n"
        "    return DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)  # expect: TL304\n"
        "try:\n"
        "    loader = make(ds)\n"
        "except ValueError:\n"
        "    loader = DataLoader(ds, shuffle=True)\n",
        "import contextlib\n"
        "from torch.utils.data import DataLoader, SequentialSampler\n"
        "loader = None\n"
        "with contextlib.suppress(ValueError):\n"
        "    loader = DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)  # expect: TL304\n",
        # a configurator run as code text may set the sampler to None
        "from torch.utils.data import DataLoader, SequentialSampler\n"
        "sampler = SequentialSampler(ds)\n"
        "exec(open('configurator.py').read())\n"
        "loader = DataLoader(ds, batch_size=6, sampler=sampler, shuffle=True)  # expect: TL304\n",
        # a class of the file that is also bound otherwise may be a function returning None
        "from torch.utils.data import DataLoader, SequentialSampler\n"
        "try:\n"
        "    from dist_utils import DistSampler\n"
        "except ImportError:\n"
        "    class DistSampler(SequentialSampler):\n"
        "        pass\n"
        "loader = DataLoader(ds, batch_size=6, sampler=DistSampler(ds), shuffle=True)  # expect: TL304\n",
        "import torch.distributed as dist\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "class ShardSampler(DistributedSampler):\n"
        "    pass\n"
        "if not dist.is_initialized():\n"
        "    ShardSampler = lambda ds: None\n"
        "loader = DataLoader(ds, sampler=ShardSampler(ds), shuffle=True)  # expect: TL304\n",
        # `shuffle=True` bound by a `functools.partial` of DataLoader, the sampler given at the call: no fix (the partial is shared)
        "from functools import partial\n"
        "\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "\n"
        "make_loader = partial(DataLoader, batch_size=32, shuffle=True, num_workers=4)\n"
        "\n"
        "\n"
        "def build(dataset):\n"
        "    return make_loader(dataset, sampler=DistributedSampler(dataset))  # expect: TL304\n",
        # `batch_size=` bound by the partial, a batch sampler given at the call
        "import functools\n"
        "from torch.utils.data import DataLoader, BatchSampler, RandomSampler\n"
        "\n"
        "make_loader = functools.partial(DataLoader, batch_size=32)\n"
        "\n"
        "\n"
        "def build(ds):\n"
        "    return make_loader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 32, False))  # expect: TL304\n",
        # `shuffle=True` in a dict of loader options, splatted: flagged, no fix (the dict may be shared)
        "from torch.utils.data import DataLoader\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def build(dataset_val, batch_size):\n"
        "    sampler_val = DistributedSampler(dataset_val, shuffle=False)\n"
        "    kwargs = dict(drop_last=False, num_workers=2, pin_memory=True, shuffle=True)\n"
        "    return DataLoader(dataset_val, batch_size, sampler=sampler_val, **kwargs)  # expect: TL304\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "loader = DataLoader(ds, sampler=DistributedSampler(ds), **{'shuffle': True, 'num_workers': 4})  # expect: TL304\n",
        # the sampler in the splatted dict too (basicsr's `create_dataloader`), or a batch sampler beside a batch size
        "import torch\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "def create_dataloader(dataset, batch_size):\n"
        "    sampler = DistributedSampler(dataset)\n"
        "    dataloader_args = dict(dataset=dataset, batch_size=batch_size, shuffle=True, sampler=sampler)\n"
        "    dataloader_args['pin_memory'] = True\n"
        "    return torch.utils.data.DataLoader(**dataloader_args)  # expect: TL304\n"
        "def create_bucketed(dataset, batch_sampler):\n"
        "    return torch.utils.data.DataLoader(dataset, **dict(batch_sampler=batch_sampler, batch_size=4))  # expect: TL304\n",
        # the options changed on the way: the distributed path gets the sampler and keeps `shuffle=True`
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def create_dataloader(dataset, opt, dist, sampler=None):\n"
        "    kwargs = dict(batch_size=opt['batch_size'], shuffle=True)\n"
        "    if dist:\n"
        "        kwargs.update(sampler=DistributedSampler(dataset), num_workers=opt['workers'])\n"
        "    else:\n"
        "        kwargs['num_workers'] = 0\n"
        "    train = DataLoader(dataset, **kwargs)  # expect: TL304\n"
        "    options = {'batch_size': 1}\n"
        "    options['shuffle'] = True\n"
        "    if sampler is not None:\n"
        "        options['sampler'] = sampler\n"
        "    return train, DataLoader(dataset, **options)  # expect: TL304\n",
    )
    good = (
        # by position (dataset, batch_size, shuffle, sampler): shuffle off
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, 32, False, sampler)\n",
        # the usual idiom: shuffle only when there is no sampler
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=32, sampler=sampler, shuffle=(sampler is None))\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=32, sampler=None, shuffle=True)\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, sampler=sampler if distributed else None, shuffle=True)\n",
        # the same across an `if`: only the distributed path has a sampler
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "if use_horovod:\n"
        "    data_sampler = torch.utils.data.distributed.DistributedSampler(ds)\n"
        "else:\n"
        "    data_sampler = None\n"
        "dl = DataLoader(ds, 32, shuffle=True, sampler=data_sampler)\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_sampler=sampler, batch_size=1, shuffle=False)\n",
        # a sampler's own shuffle argument
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "sampler = DistributedSampler(ds, shuffle=True)\n"
        "loader = DataLoader(ds, batch_size=8, sampler=sampler)\n",
        # another library's loader
        "from mylib.data import DataLoader\n"
        "loader = DataLoader(ds, sampler=sampler, shuffle=True)\n",
        # partials without a shuffle, called without a sampler, or with `shuffle=False` at the call
        "from functools import partial\n"
        "\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "\n"
        "make_loader = partial(DataLoader, batch_size=32, num_workers=4)\n"
        "shuffled = partial(DataLoader, batch_size=32, shuffle=True)\n"
        "\n"
        "\n"
        "def build(dataset, val_dataset):\n"
        "    train = make_loader(dataset, sampler=DistributedSampler(dataset))\n"
        "    return train, shuffled(val_dataset), shuffled(dataset, shuffle=False, sampler=DistributedSampler(dataset))\n",
        # loader options whose `shuffle` is changed before use, or that leave the order to the sampler
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build(ds, distributed):\n"
        "    kwargs = dict(num_workers=4, shuffle=True)\n"
        "    if distributed:\n"
        "        kwargs.pop('shuffle')\n"
        "        return DataLoader(ds, sampler=DistributedSampler(ds), **kwargs)\n"
        "    return DataLoader(ds, **kwargs)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def build(ds, distributed):\n"
        "    if distributed:\n"
        "        kwargs = dict(sampler=DistributedSampler(ds), shuffle=False)\n"
        "    else:\n"
        "        kwargs = dict(shuffle=True)\n"
        "    return DataLoader(ds, batch_size=8, **kwargs)\n",
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "loader = DataLoader(ds, sampler=DistributedSampler(ds), **{'shuffle': False, 'num_workers': 4})\n",
        # shuffle only where there is no sampler: the dict's `shuffle` changed before it is splatted
        "import torch\n"
        "def create_dataloader(dataset, batch_size, sampler):\n"
        "    dataloader_args = dict(dataset=dataset, batch_size=batch_size, shuffle=True, sampler=sampler)\n"
        "    dataloader_args['pin_memory'] = True\n"
        "    if sampler is not None:\n"
        "        dataloader_args['shuffle'] = False\n"
        "    return torch.utils.data.DataLoader(**dataloader_args)\n"
        "def create_plain(dataset):\n"
        "    return torch.utils.data.DataLoader(**dict(dataset=dataset, shuffle=True, sampler=None))\n",
        # the sampler and the shuffle on different paths (basicsr's `create_dataloader`)
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "def create_dataloader(dataset, opt, dist, sampler=None):\n"
        "    kwargs = dict(batch_size=opt['batch_size'], num_workers=opt['workers'])\n"
        "    if dist:\n"
        "        kwargs.update(sampler=DistributedSampler(dataset), shuffle=False)\n"
        "    else:\n"
        "        kwargs['shuffle'] = True\n"
        "    train = DataLoader(dataset, **kwargs)\n"
        "    options = dict(batch_size=1, shuffle=False, sampler=sampler)\n"
        "    if sampler is None:\n"
        "        options['shuffle'] = True\n"
        "    return train, DataLoader(dataset, **options)\n",
    )

    def finish(self) -> None:
        for call in dataloader_calls(self.ctx):
            self._check(call)
        for call in self.ctx.nodes_of(cst.Call):
            if self.ctx.call_name(call) is None and partial_target(self.ctx, call) == DATALOADER:  # type: ignore[arg-type]
                self._check_through_partial(call)  # type: ignore[arg-type]

    def _check_through_partial(self, call: cst.Call) -> None:
        """`make = partial(DataLoader, shuffle=True)`, then `make(ds, sampler=s)`: the same
        ValueError, with no fix (the `shuffle=True` is the partial's, shared by its other calls)."""
        own = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        batch_sampler = keyword_argument(self.ctx, call, "batch_sampler")
        batch_size = keyword_argument(self.ctx, call, "batch_size")
        if (batch_sampler is not None and self._none(batch_sampler) is not True
                and batch_size is not None and not _is_one(batch_size)):
            bound = [f"`{k}`" for k in ("batch_size", "batch_sampler") if k not in own]
            held = f" ({' and '.join(bound)} bound by the `functools.partial` of `DataLoader`)" if bound else ""
            self.report(call, f"`batch_size=` with a `batch_sampler=`{held}: the DataLoader raises ValueError; "
                              "the batch sampler decides the batch size")
            return
        shuffle = keyword_argument(self.ctx, call, "shuffle")
        if shuffle is None or not is_constant(shuffle, "True"):
            return
        for name in ("batch_sampler", "sampler"):
            value = keyword_argument(self.ctx, call, name)
            if value is not None and self._none(value) is not True:
                bound = [f"`{k}`" for k in ("shuffle", name) if k not in own]  # what the partial holds
                held = f" ({' and '.join(bound)} bound by the `functools.partial` of `DataLoader`)" if bound else ""
                self.report(call, f"`shuffle=True` with a `{name}=`{held}: the DataLoader raises ValueError")
                return

    def _check(self, call: cst.Call) -> None:
        if self._check_paths(call):
            return
        shuffle = self._argument(call, "shuffle")
        shuffles = shuffle is not None and is_constant(shuffle, "True")
        # a keyword is dropped; a positional `True` cannot be (the sampler would move up), nor
        # one of a splatted dict (`**dict(shuffle=True, ...)`: it may be shared, or must stay a dict)
        drop = _drop(call, keyword(call, "shuffle")) if shuffles else None
        batch_sampler = self._none(self._argument(call, "batch_sampler"))
        if batch_sampler is not True:
            batch_size = self._argument(call, "batch_size")
            if batch_size is not None and not _is_one(batch_size):
                self.report(call, "`batch_size=` with a `batch_sampler=`: the DataLoader raises ValueError; the batch sampler decides the batch size")
            elif shuffles:
                self.report(call, "`shuffle=True` with a `batch_sampler=`: the DataLoader raises ValueError",
                            fix=drop if batch_sampler is False and not in_try(self.ctx, call) else None)
            return
        sampler = self._none(self._argument(call, "sampler"))
        if shuffles and sampler is not True:
            self.report(call, fix=drop if sampler is False and not in_try(self.ctx, call) else None)

    def _check_paths(self, call: cst.Call) -> bool:
        """A dict splatted into the call whose keys change along the paths to it
        (`kwargs.update(sampler=s, shuffle=False)` on one branch, `kwargs["shuffle"] =
        True` on the other): flagged, with no fix, when some path gives it both
        `shuffle=True` and a sampler that may not be None there: not where the path
        went through `if sampler is None:` (`kwargs["shuffle"] = True` there, basicsr's
        `build_dataloader`) or around `if sampler is not None:`."""
        if argument(call, "shuffle", _PARAMETERS) is not None:
            return False  # as the call writes it
        splatted = [arg.value for arg in call.args if arg.star == "**" and type(arg.value) is cst.Name]
        for variable in splatted:
            for reached in splatted_entries(self.ctx, call, variable, _SAMPLER_KEYS):  # type: ignore[arg-type]
                shuffle = reached.entries.get("shuffle")
                if shuffle is None or not is_constant(shuffle[0], "True"):
                    continue
                for name in ("sampler", "batch_sampler"):
                    given = argument(call, name, _PARAMETERS)
                    sampler = given if given is not None else reached.entries[name][0] if name in reached.entries else None
                    if sampler is None or self._none(sampler) is True or reached.assumes_false(self.ctx, sampler):
                        continue
                    self.report(call, f"`shuffle=True` with a `{name}=` (both in `**{self.ctx.code(variable)}` on "
                                      "some path to this call): the DataLoader raises ValueError")
                    return True
        return False

    def _argument(self, call: cst.Call, name: str) -> cst.BaseExpression | None:
        """What `call` passes for the DataLoader's parameter `name`: an argument written
        at the call, or the entry of a dict it surely splats (see `splatted_keyword`)."""
        given = argument(call, name, _PARAMETERS)
        return given if given is not None else splatted_keyword(self.ctx, call, name)

    def _none(self, value: cst.BaseExpression | None) -> bool | None:
        """Whether the argument may be None: True when it is, or some value its
        variable is assigned is (`s = DistributedSampler(ds) if ddp else None`, or
        the same across an `if`); False when none can be (a sampler built here);
        None when that is unknown (a parameter, what a function returns). Only an
        argument that cannot be None makes the call raise whatever the run, so only
        then is dropping `shuffle=True` safe."""
        if value is None:
            return True
        if type(value) is not cst.Call and "exec" in self.ctx.shared(code_text_runs):
            return None  # `exec(open("configurator.py").read())` may bind any name again
        values, complete = Values.of_file(self.ctx).leaves(value)
        if any(is_constant(v, "None") for v in values):
            return True
        built = complete and all(type(v) is cst.Call and _constructs(self.ctx, v) for v in values)
        return False if built else None


def _constructs(ctx: FileContext, call: cst.Call) -> bool:
    """A call that builds an object (never None): a class of torch, or a class
    this file defines (`BucketSampler(ds)`). A name imported from elsewhere and
    spelled as a class may still be a function that returns None when the run is
    not distributed (`def DistSampler(ds): ... return None` in a module of the
    project)."""
    qualified = ctx.call_name(call) or ""
    if qualified.startswith("torch."):
        return qualified.rsplit(".", 1)[-1][:1].isupper()
    if qualified or type(call.func) is not cst.Name:
        return False
    name = call.func.value
    if name not in ctx.summaries.targets.classes or name in ctx.scopes.functions:
        return False
    # bound by nothing but its class: not also imported (a fallback class under
    # `except ImportError:` of a project function of that name), nor assigned
    # (`ShardSampler = lambda ds: None` on a single-process run)
    if name in ctx.scopes.module_scope.imports:
        return False
    return _plain_class(ctx, name) and not any(name in target_names(target.target) for node in ctx.nodes_of(cst.Assign)
                                               for target in node.targets)  # type: ignore[attr-defined]


def _plain_class(ctx: FileContext, name: str, depth: int = 0) -> bool:
    """Calling the file's class `name` builds an instance of it: no class decorator
    (which may put a factory in its place), no metaclass, no `__new__` (which may
    return None), in it or in a base of the file; other bases are torch's or `object`."""
    classes = [node for node in ctx.nodes_of(cst.ClassDef) if node.name.value == name]  # type: ignore[attr-defined]
    if len(classes) != 1 or depth > 5:
        return False
    (cls,) = classes
    if cls.decorators or cls.keywords or any(  # type: ignore[attr-defined]
            type(item) is cst.FunctionDef and item.name.value == "__new__" for item in cls.body.body):  # type: ignore[attr-defined]
        return False
    for base in cls.bases:  # type: ignore[attr-defined]
        qualified = ctx.qualified_name(base.value) or ""
        if qualified.startswith("torch.") or (type(base.value) is cst.Name and base.value.value == "object"):
            continue
        if type(base.value) is not cst.Name or qualified or not _plain_class(ctx, base.value.value, depth + 1):
            return False
    return True


# the keys of a splatted dict followed along its paths (see `SamplerWithShuffle._check_paths`)
_SAMPLER_KEYS = frozenset({"shuffle", "sampler", "batch_sampler"})

# DataLoader's first parameters, in order: arguments may be given by position
_PARAMETERS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler")


def _is_one(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Integer and expr.value == "1"


def _drop(call: cst.Call, arg: cst.Arg | None) -> Fix | None:
    """Remove `arg` from the call, moving the comments on its line into the
    whitespace that stays; no fix in a layout where a comment would be lost."""
    if arg is None:
        return None
    args = list(call.args)
    index = args.index(arg)
    del args[index]
    own = arg.comma.whitespace_after if type(arg.comma) is cst.Comma else arg.whitespace_after_arg
    fixed = call.with_changes(args=args)
    if index == 0:
        fixed = fixed.with_changes(whitespace_before_args=_merge(call.whitespace_before_args, own))
    elif index < len(args):
        before = args[index - 1].comma
        assert type(before) is cst.Comma  # an argument followed by another has a comma
        args[index - 1] = args[index - 1].with_changes(
            comma=before.with_changes(whitespace_after=_merge(before.whitespace_after, own))
        )
    else:
        args[-1] = _closing(args[-1], arg, own)
    fixed = fixed.with_changes(args=args)
    return Fix({call: fixed}) if _comments(fixed) == _comments(call) else None


def _closing(last: cst.Arg, removed: cst.Arg, own: cst.BaseParenthesizableWhitespace) -> cst.Arg:
    """`last`, now the call's last argument, closing it as `removed` did."""
    previous = last.comma
    if not (type(previous) is cst.Comma and type(previous.whitespace_after) is cst.ParenthesizedWhitespace):
        # one line: the removed argument's comma (or none) closes the call, with what follows it
        if type(removed.comma) is cst.Comma:
            return last.with_changes(comma=removed.comma)
        return last.with_changes(comma=removed.comma, whitespace_after_arg=_merge(last.whitespace_after_arg, own))
    if type(own) is not cst.ParenthesizedWhitespace:
        return last
    # keep the line break and its comments; indent `)` as before
    kept = _merge(previous.whitespace_after, own)
    assert type(kept) is cst.ParenthesizedWhitespace
    kept = kept.with_changes(indent=own.indent, last_line=own.last_line)
    return last.with_changes(comma=previous.with_changes(whitespace_after=kept))


def _merge(
    kept: cst.BaseParenthesizableWhitespace, dropped: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """`kept` with the comments of `dropped` moved into it: the comment at the
    end of the removed argument's line goes on a line of its own."""
    if type(dropped) is not cst.ParenthesizedWhitespace or not _comments(dropped):
        return kept
    if type(kept) is not cst.ParenthesizedWhitespace:
        return dropped  # the line break moves up with its comment
    comment = dropped.first_line.comment
    own_line = [cst.EmptyLine(indent=kept.indent, whitespace=kept.last_line, comment=comment)] if comment else []
    return kept.with_changes(empty_lines=[*kept.empty_lines, *own_line, *dropped.empty_lines])


def _comments(node: cst.CSTNode) -> list[str]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Comment:
            found.append(current.value)
        stack.extend(current.children)
    return sorted(found)
