from __future__ import annotations

import libcst as cst

from trainlint.analysis.dataflow import (
    Values,
    dataloader_calls,
    has_star_args,
    is_constant,
    iterated_where_built,
    keyword,
    wrapped_use,
)
from trainlint.analysis.iteration import file_trains
from trainlint.analysis.precision import argument
from trainlint.analysis.scopes import bound_arguments, receiver_name
from trainlint.analysis.walk import iter_nodes, only
from trainlint.context import FileContext
from trainlint.rule import Rule

_NUM_WORKERS_POSITION = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers)
_EVAL_WORDS = ("val", "test", "eval", "dev")
_IN_MEMORY = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
_SEQUENCES = frozenset({"range", "list", "tuple"})  # builtins: the items are already at hand
# a tensor the loader slices: indices picked from a mask, or built by torch
_INDEX_METHODS = frozenset({"nonzero", "argwhere"})
_TENSOR_FUNCTIONS = frozenset({"torch.arange", "torch.randperm", "torch.nonzero", "torch.argwhere", "torch.where"})
# torch's functions that build a tensor in memory from values or shapes
_BUILT_TENSORS = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor",
    "torch.randn", "torch.rand", "torch.randint", "torch.zeros", "torch.ones", "torch.full", "torch.empty",
    "torch.linspace", "torch.cat", "torch.stack",
})
_SAME_TENSOR = frozenset({"view", "reshape", "flatten", "squeeze", "to", "cuda", "cpu", "long"})  # its values, reshaped or moved


class SingleProcessLoading(Rule):
    """
    ## What it does
    Flags a training `DataLoader(...)` built without `num_workers`. A loader
    counts as a training loader when its variable or dataset is named for
    training (`train_loader`, `DataLoader(train_set, ...)`), or when it
    shuffles (`shuffle=True`) in a file that trains (a backward pass or an
    optimizer step, also through a function it calls). A loader over a
    `TensorDataset` (its batches are slices of tensors already in memory,
    possibly on the GPU), or over a hand-written one (a dataset class of the
    file whose `__getitem__` only indexes attributes, `return
    self.features[i], self.labels[i]`, set from its constructor's
    parameters, built here from tensors torch makes, `torch.tensor([...])`),
    a tensor of indices (`mask.nonzero().view(-1)`,
    `torch.randperm(n)`), a `range(n)` or a Python list is not flagged, nor
    is one over a dataset of a class of the file whose `__getitem__` returns
    its item on the GPU (`return seq.cuda()`, `return seq.to(device)`):
    forked worker processes cannot make CUDA tensors.

    ## Why is this bad?
    With the default `num_workers=0`, every batch is read, decoded and
    augmented in the training process itself, between steps, while the GPU
    waits. Worker processes prepare the next batches in parallel; low GPU
    utilization with a busy CPU core is the typical symptom.

    ## Example
    ```python
    from torch.utils.data import DataLoader
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    ```

    ## Use instead
    ```python
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
    ```

    ## Fix safety
    No fix: the right number of workers depends on the machine, and
    datasets that are not picklable or hold open handles need changes first.

    ## Limitations
    A preview rule (off unless selected): in-memory datasets load fast enough
    without workers. Loaders named for validation or testing, loaders whose
    arguments come through `**kwargs`, an explicit `num_workers=0` (a
    deliberate choice), and, in a file that trains nothing, a loader iterated
    where it is built (one pass for normalisation statistics) or held by a
    variable of an `if __name__ == "__main__":` block that the code only
    iterates (a data module's demo showing a few batches) are not flagged.
    """

    code = "TL504"
    name = "single-process-loading"
    severity = "info"
    message = "training DataLoader without `num_workers`: batches are loaded in the training process while the GPU waits"
    preview = True
    triggers = ("DataLoader",)
    bad = (
        "from torch.utils.data import DataLoader\n"
        "train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # expect: TL504\n",
        "import torch\n"
        "loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)  # expect: TL504\n"
        "for x, y in loader:\n"
        "    loss_fn(model(x), y).backward()\n"
        "    opt.step()\n",
        "from torch.utils.data import DataLoader as DL\n"
        "def build(cfg):\n"
        "    return DL(cfg.train_dataset, batch_size=cfg.bs)  # expect: TL504\n",
        "from torch.utils import data\n"
        "class Module:\n"
        "    def setup(self):\n"
        "        self.train_dl = data.DataLoader(  # expect: TL504\n"
        "            self.ds, sampler=self.sampler, batch_size=16,\n"
        "        )\n",
        # iterated where it is built, in a file that hands its optimizer to a step of another package
        "from torch.utils.data import DataLoader\n"
        "from engine import train_step\n"
        "def main(model, optimizer, train_set, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in DataLoader(train_set, batch_size=64, shuffle=True):  # expect: TL504\n"
        "            train_step(model, optimizer, x, y)\n",
        # a builder that looks at a batch and returns the loader
        "from torch.utils.data import DataLoader\n"
        "\n"
        "def get_loaders(train_set):\n"
        "    train_loader = DataLoader(train_set, batch_size=64)  # expect: TL504\n"
        "    print(next(iter(train_loader))[0].shape)\n"
        "    return train_loader\n",
        # a function's loader in a file that trains nothing torch can see (a JAX step)
        "from torch.utils.data import DataLoader\n"
        "\n"
        "def train(state, train_set):\n"
        "    train_loader = DataLoader(train_set, batch_size=64)  # expect: TL504\n"
        "    for batch in train_loader:\n"
        "        state = jax_train_step(state, batch)\n"
        "    return state\n",
        # the same indices select the items of a dataset that loads them
        "import torch\n"
        "from torch.utils.data import DataLoader, Subset\n"
        "train_idx = data.train_mask.nonzero(as_tuple=False).view(-1)\n"
        "train_loader = DataLoader(Subset(images, train_idx.tolist()), batch_size=64, shuffle=True)  # expect: TL504\n"
        "for x, y in train_loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss_fn(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # datasets of the file that look like a hand-written TensorDataset: one opens a file
        # per item, one transforms each item, one is given tensors the file does not build
        "import torch\n"
        "from PIL import Image\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "class Images(Dataset):\n"
        "    def __init__(self, paths, labels):\n"
        "        self.paths = paths\n"
        "        self.labels = labels\n"
        "    def __getitem__(self, index):\n"
        "        return Image.open(self.paths[index]), self.labels[index]\n"
        "    def __len__(self):\n"
        "        return len(self.labels)\n"
        "class Pairs(Dataset):\n"
        "    def __init__(self, features, labels, transform):\n"
        "        self.features = features\n"
        "        self.labels = labels\n"
        "        self.transform = transform\n"
        "    def __getitem__(self, index):\n"
        "        return self.transform(self.features[index]), self.labels[index]\n"
        "    def __len__(self):\n"
        "        return self.labels.shape[0]\n"
        "class Toy(Dataset):\n"
        "    def __init__(self, X, y):\n"
        "        self.features = X\n"
        "        self.labels = y\n"
        "    def __getitem__(self, index):\n"
        "        return self.features[index], self.labels[index]\n"
        "    def __len__(self):\n"
        "        return self.labels.shape[0]\n"
        "def loaders(paths, features, augment, X):\n"
        "    labels = torch.tensor([0, 1, 0, 1])\n"
        "    a = DataLoader(Images(paths, labels), batch_size=2, shuffle=True)  # expect: TL504\n"
        "    b = DataLoader(Pairs(torch.randn(4, 2), labels, augment), batch_size=2, shuffle=True)  # expect: TL504\n"
        "    c = DataLoader(Toy(X, labels), batch_size=2, shuffle=True)  # expect: TL504\n"
        "    return a, b, c\n"
        "def train(model, optimizer, loaders):\n"
        "    for loader in loaders:\n"
        "        for x, y in loader:\n"
        "            model(x).sum().backward()\n"
        "            optimizer.step()\n",
        # a dataset of the file that only converts the dtype of its items: they stay on the CPU
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "class TextSamplerDataset(Dataset):\n"
        "    def __init__(self, data, seq_len):\n"
        "        self.data, self.seq_len = data, seq_len\n"
        "    def __getitem__(self, index):\n"
        "        full_seq = self.data[index: index + self.seq_len + 1]\n"
        "        return full_seq.to(torch.long)\n"
        "    def __len__(self):\n"
        "        return self.data.size(0) // self.seq_len\n"
        "train_dataset = TextSamplerDataset(data_train, 1024)\n"
        "train_loader = DataLoader(train_dataset, batch_size=4)  # expect: TL504\n"
        "for batch in train_loader:\n"
        "    model(batch.cuda()).backward()\n"
        "    optim.step()\n"
        "    optim.zero_grad()\n",
    )
    good = (
        "from torch.utils.data import DataLoader\n"
        "train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8)\n",
        # validation loaders are not training loaders
        "from torch.utils.data import DataLoader\n"
        "val_loader = DataLoader(val_set, batch_size=256)\n",
        "from torch.utils.data import DataLoader\n"
        "train_loader = DataLoader(train_set, shuffle=True, **loader_kwargs)\n",
        "from torch.utils.data import DataLoader\n"
        "train_loader = DataLoader(train_set, 64, True, None, None, 4)\n",
        # a deliberate choice
        "from torch.utils.data import DataLoader\n"
        "train_loader = DataLoader(train_set, shuffle=True, num_workers=0)\n",
        "from mylib import DataLoader\n"
        "train_loader = DataLoader(train_set, shuffle=True)\n",
        # tensors already in memory (here on the GPU): nothing for workers to load
        "import torch\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "def random_dataset(n, dim, device):\n"
        "    return TensorDataset(torch.randn(n, dim, device=device), torch.randint(0, 2, (n,), device=device))\n"
        "def train(model, opt, device):\n"
        "    train_loader = DataLoader(random_dataset(1024, 16, device), batch_size=8, shuffle=True)\n"
        "    data = TensorDataset(torch.randn(64, 16))\n"
        "    train_batches = DataLoader(data, batch_size=8)\n"
        "    for (x, y), (z,) in zip(train_loader, train_batches):\n"
        "        opt.zero_grad()\n"
        "        model(x, z).backward()\n"
        "        opt.step()\n",
        # shuffled, but the file only runs forward passes
        "import torch\n"
        "loader = torch.utils.data.DataLoader(dataset, batch_size=30, shuffle=True)\n"
        "for batch in loader:\n"
        "    print(model(batch).shape)\n",
        # a loader over a range, checking how batches are split, in a file that also trains
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def check_sharding(prepare):\n"
        "    loader = prepare(DataLoader(range(64), batch_size=8, shuffle=True))\n"
        "    assert sorted(i for batch in loader for i in batch.tolist()) == list(range(64))\n"
        "def train(model, dataset, optimizer):\n"
        "    for x, y in DataLoader(dataset, batch_size=8, num_workers=4):\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n",
        # one pass over the training images for their statistics, in a file that trains nothing
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def mean_std(train_set):\n"
        "    data = torch.cat([images for images, _ in DataLoader(train_set, batch_size=256)])\n"
        "    return data.mean(dim=[0, 2, 3]), data.std(dim=[0, 2, 3])\n",
        # a demo under __main__ that prints a few batches, in a file that trains nothing
        "from torch.utils.data import DataLoader\n"
        "\n"
        "if __name__ == \"__main__\":\n"
        "    train_loader = DataLoader(train_set, batch_size=4)\n"
        "    for images, labels in train_loader:\n"
        "        print(images.shape, labels)\n"
        "        break\n",
        # a loader over a tensor of node indices (PyG's SIGN): each batch is a slice of it
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "train_idx = data.train_mask.nonzero(as_tuple=False).view(-1)\n"
        "train_loader = DataLoader(train_idx, batch_size=16 * 1024, shuffle=True)\n"
        "for idx in train_loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss_fn(model(xs[idx]), y[idx]).backward()\n"
        "    optimizer.step()\n",
        # a hand-written TensorDataset (LLMs-from-scratch's DDP script): its items are rows
        # of tensors the file builds and hands to it
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "class ToyDataset(Dataset):\n"
        "    def __init__(self, X, y):\n"
        "        self.features = X\n"
        "        self.labels = y\n"
        "    def __getitem__(self, index):\n"
        "        one_x = self.features[index]\n"
        "        one_y = self.labels[index]\n"
        "        return one_x, one_y\n"
        "    def __len__(self):\n"
        "        return self.labels.shape[0]\n"
        "def prepare_dataset():\n"
        "    X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [2.3, -1.1]])\n"
        "    y_train = torch.tensor([0, 0, 1])\n"
        "    train_ds = ToyDataset(X_train, y_train)\n"
        "    train_loader = DataLoader(dataset=train_ds, batch_size=2, pin_memory=True, sampler=DistributedSampler(train_ds))\n"
        "    return train_loader\n"
        "def main(model, optimizer):\n"
        "    for features, labels in prepare_dataset():\n"
        "        torch.nn.functional.cross_entropy(model(features), labels).backward()\n"
        "        optimizer.step()\n",
        # a dataset of the file that puts each item on the GPU (x-transformers' enwik8 scripts):
        # forked workers cannot make CUDA tensors, so it must load in the training process
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "device = torch.device('cuda')\n"
        "class TextSamplerDataset(Dataset):\n"
        "    def __init__(self, data, seq_len):\n"
        "        self.data, self.seq_len = data, seq_len\n"
        "    def __getitem__(self, index):\n"
        "        start = torch.randint(0, self.data.size(0) - self.seq_len - 1, (1,))\n"
        "        full_seq = self.data[start: start + self.seq_len + 1].long()\n"
        "        return full_seq.to(device)\n"
        "    def __len__(self):\n"
        "        return self.data.size(0) // self.seq_len\n"
        "train_dataset = TextSamplerDataset(data_train, 1024)\n"
        "train_loader = DataLoader(train_dataset, batch_size=4, drop_last=True)\n"
        "for batch in train_loader:\n"
        "    model(batch).backward()\n"
        "    optim.step()\n"
        "    optim.zero_grad()\n",
        # the same dataset, its methods calling their instance `ds`: the rows it indexes are
        # what its constructor keeps, as with `self`
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "class ToyDataset(Dataset):\n"
        "    def __init__(ds, X, y):\n"
        "        ds.features = X\n"
        "        ds.labels = y\n"
        "    def __getitem__(ds, index):\n"
        "        one_x = ds.features[index]\n"
        "        one_y = ds.labels[index]\n"
        "        return one_x, one_y\n"
        "    def __len__(ds):\n"
        "        return ds.labels.shape[0]\n"
        "def prepare_dataset():\n"
        "    X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [2.3, -1.1]])\n"
        "    y_train = torch.tensor([0, 0, 1])\n"
        "    train_ds = ToyDataset(X_train, y_train)\n"
        "    train_loader = DataLoader(dataset=train_ds, batch_size=2, pin_memory=True, sampler=DistributedSampler(train_ds))\n"
        "    return train_loader\n"
        "def main(model, optimizer):\n"
        "    for features, labels in prepare_dataset():\n"
        "        torch.nn.functional.cross_entropy(model(features), labels).backward()\n"
        "        optimizer.step()\n",
    )

    def finish(self) -> None:
        for call in dataloader_calls(self.ctx):
            if keyword(call, "num_workers") is not None or has_star_args(call):
                continue
            if sum(1 for arg in call.args if arg.keyword is None) > _NUM_WORKERS_POSITION:
                continue
            if self._is_training(call) and not self._in_memory(call) and not self._one_pass(call):
                self.report(call)

    def _one_pass(self, call: cst.Call) -> bool:
        """A loader iterated where it is built, kept by nothing, in a file that trains
        nothing (one pass over the training images for their mean and std)."""
        parent = self.ctx.parent(call)
        drained = (type(parent) is cst.Arg and type(self.ctx.parent(parent)) is cst.Call
                   and type(self.ctx.parent(parent).func) is cst.Name  # type: ignore[union-attr]
                   and self.ctx.parent(parent).func.value in ("next", "list"))  # type: ignore[union-attr]
        return (drained or iterated_where_built(self.ctx, call) or self._only_iterated(call)) \
            and not file_trains(self.ctx)

    def _only_iterated(self, call: cst.Call) -> bool:
        """`call` is bound, in an `if __name__ == "__main__":` block, to a variable that the
        code only iterates (a data module's demo showing a few batches): not stored or
        handed to anything but `enumerate`, `tqdm`, `iter`, `next`, `len`."""
        parent = self.ctx.parent(call)
        if type(parent) is not cst.Assign or len(parent.targets) != 1 or type(parent.targets[0].target) is not cst.Name:
            return False
        name = parent.targets[0].target.value
        if self.ctx.enclosing_function(call) is not None or not any(
                type(a) is cst.If and "__main__" in self.ctx.code(a.test) for a in self.ctx.ancestors(call)):
            # a module's loader others may import; a function's may feed training this
            # file cannot see (a JAX step, a framework's `train_step`)
            return False
        reads = [node for node in self.ctx.nodes_of(cst.Name) if node.value == name  # type: ignore[attr-defined]
                 and node is not parent.targets[0].target]
        if not reads or any(self.ctx.enclosing_function(node) is not None for node in reads):
            return False  # a module's loader that its functions read
        for read in reads:
            if iterated_where_built(self.ctx, read):  # type: ignore[arg-type]
                continue
            _, holder = wrapped_use(self.ctx, read)  # type: ignore[arg-type]
            taker = self.ctx.parent(holder) if type(holder) is cst.Arg else None
            if type(taker) is not cst.Call or self.ctx.code(taker.func) not in ("next", "len"):
                return False  # `next(iter(loader))`, `len(loader)` only
        return True

    def _is_training(self, call: cst.Call) -> bool:
        names = [self._target_text(call).lower()]
        if call.args and call.args[0].keyword is None:
            names.append(self.ctx.code(call.args[0].value).lower())
        if any(word in name for name in names for word in _EVAL_WORDS):
            return False
        if any("train" in name for name in names):
            return True
        shuffle = keyword(call, "shuffle")
        return shuffle is not None and is_constant(shuffle.value, "True") and file_trains(self.ctx)

    def _in_memory(self, call: cst.Call) -> bool:
        """The dataset is a `TensorDataset` (built here, held by a variable, or returned
        by a function of this file): batches are slices of tensors already in memory,
        possibly on the GPU, with nothing for workers to load."""
        dataset = argument(call, "dataset", ("dataset",))
        return dataset is not None and self._tensor_dataset(dataset)

    def _tensor_dataset(self, expr: cst.BaseExpression, returned: bool = False) -> bool:
        values = Values.of_file(self.ctx).of(expr)
        if not values:
            return False
        for value in values:
            if type(value) in (cst.List, cst.Tuple, cst.ListComp):
                continue  # a Python list of items: nothing to load
            if type(value) is not cst.Call:
                return False
            if (self.ctx.call_name(value) in _IN_MEMORY or _builtin_sequence(self.ctx, value)
                    or _tensor(self.ctx, value) or _items_on_gpu(self.ctx, value)):
                continue
            if self._hand_written_tensor_dataset(value):
                continue
            function = None if returned else self.ctx.local_callee(value)  # one function deep
            results = [r.value for r in only(self.ctx.own_nodes(function.body), cst.Return)] if function else []
            if not results or not all(r is not None and self._tensor_dataset(r, True) for r in results):
                return False
        return True

    def _hand_written_tensor_dataset(self, built: cst.Call) -> bool:
        """`ToyDataset(X_train, y_train)` of a class of this file that only hands back
        rows of what it was given: its `__getitem__` indexes attributes and calls nothing
        (`return self.features[index], self.labels[index]`), its `__init__` sets each of
        them from a parameter, and this construction gives each such parameter a tensor
        that torch builds (`X_train = torch.tensor([...])`): a hand-written TensorDataset."""
        init = self.ctx.local_callee(built)
        if init is None or init.name.value != "__init__":
            return False
        cls = self.ctx.parent(self.ctx.parent(init) or init)
        if type(cls) is not cst.ClassDef:
            return False
        getitem = [m for m in cls.body.body if type(m) is cst.FunctionDef and m.name.value == "__getitem__"]
        read = _rows_read(getitem[0], receiver_name(self.ctx, getitem[0])) if len(getitem) == 1 else None
        if not read:
            return False
        kept: dict[str, list[str]] = {}
        receiver = receiver_name(self.ctx, init)
        for node in self.ctx.own_nodes(init.body):
            if type(node) is not cst.Assign:
                continue
            for target in node.targets:
                if (attribute := _own_attribute(target.target, receiver)) is not None:
                    value = node.value
                    kept.setdefault(attribute, []).append(value.value if type(value) is cst.Name else "")
        given, _ = bound_arguments(self.ctx, built, init)
        arguments = dict(given)
        for attribute in read:
            sources = kept.get(attribute, [])
            if len(sources) != 1 or sources[0] not in arguments:
                return False
            if not self._built_tensor(arguments[sources[0]]):
                return False
        return True

    def _built_tensor(self, expr: cst.BaseExpression) -> bool:
        """Every value `expr` may hold is a tensor torch builds (`torch.tensor([...])`)."""
        values = Values.of_file(self.ctx).of(expr)
        return bool(values) and all(type(v) is cst.Call and (self.ctx.call_name(v) in _BUILT_TENSORS
                                                             or _tensor(self.ctx, v)) for v in values)

    def _target_text(self, call: cst.Call) -> str:
        """The variable the loader is assigned to, if any."""
        parent = self.ctx.parent(call)
        if type(parent) is cst.Assign:
            return " ".join(self.ctx.code(t.target) for t in parent.targets)
        if type(parent) is cst.AnnAssign:
            return self.ctx.code(parent.target)
        return ""


def _tensor(ctx: FileContext, call: cst.Call) -> bool:
    """A tensor of indices (`mask.nonzero(as_tuple=False).view(-1)`, `torch.randperm(n)`):
    a loader over it gives slices of a tensor already in memory."""
    while (type(call.func) is cst.Attribute and call.func.attr.value in _SAME_TENSOR
           and type(call.func.value) is cst.Call):
        call = call.func.value
    if type(call.func) is cst.Attribute and call.func.attr.value in _INDEX_METHODS:
        return True
    return ctx.call_name(call) in _TENSOR_FUNCTIONS


def _own_attribute(expr: cst.BaseExpression, receiver: str | None) -> str | None:
    """`attr` of `self.attr`, `receiver` being what the method calls its instance."""
    if receiver is not None and type(expr) is cst.Attribute and type(expr.value) is cst.Name \
            and expr.value.value == receiver:
        return expr.attr.value
    return None


def _rows_read(getitem: cst.FunctionDef, receiver: str | None) -> set[str] | None:
    """The attributes a `__getitem__` indexes, when that is all it does: each statement
    binds a name to `self.attr[...]` (`receiver` what it calls its instance) or returns
    such rows (or those names), and nothing is called (no file opened, no transform);
    None otherwise."""
    if any(type(node) is cst.Call for node in iter_nodes(getitem.body)):
        return None
    read: set[str] = set()
    names: set[str] = set()

    def row(expr: cst.BaseExpression) -> bool:
        if type(expr) is cst.Subscript and (attribute := _own_attribute(expr.value, receiver)) is not None:
            read.add(attribute)
            return True
        return type(expr) is cst.Name and expr.value in names

    for statement in getitem.body.body if type(getitem.body) is cst.IndentedBlock else ():
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
                and row(small.value):
            names.add(small.targets[0].target.value)  # type: ignore[attr-defined]
        elif type(small) is cst.Return and small.value is not None and (
                row(small.value) or (type(small.value) is cst.Tuple
                                     and all(row(e.value) for e in small.value.elements))):
            continue
        else:
            return None
    return read or None
def _items_on_gpu(ctx: FileContext, call: cst.Call) -> bool:
    """`call` builds a dataset of a class of this file whose `__getitem__` returns its
    item moved to the GPU (`return seq.cuda()`, `return seq.to(device)`): forked
    workers cannot make CUDA tensors, so such a dataset loads in the training process."""
    func = call.func
    if type(func) is not cst.Name or ctx.qualified_name(func) is not None:
        return False
    classes = [node for node in ctx.nodes_of(cst.ClassDef) if node.name.value == func.value]  # type: ignore[attr-defined]
    if not classes:
        return False
    for cls in classes:
        getters = [item for item in cls.body.body  # type: ignore[attr-defined]
                   if type(item) is cst.FunctionDef and item.name.value == "__getitem__"]
        returns = [node for getter in getters for node in only(ctx.own_nodes(getter.body), cst.Return)]
        if not returns or not all(r.value is not None and _moved_to_gpu(r.value) for r in returns):
            return False
    return True


def _moved_to_gpu(value: cst.BaseExpression) -> bool:
    """`x.cuda()`, or `x.to(d)` where `d` names a device (`device`, `args.device`,
    `torch.device(...)`, `"cuda"`): not a dtype."""
    if type(value) is not cst.Call or type(value.func) is not cst.Attribute:
        return False
    method = value.func.attr.value
    if method == "cuda":
        return True
    if method != "to" or not value.args or value.args[0].keyword is not None:
        return False
    target = value.args[0].value
    if type(target) is cst.SimpleString:
        return "cuda" in target.value
    if type(target) is cst.Call:
        target = target.func
    last = target.attr.value if type(target) is cst.Attribute else target.value if type(target) is cst.Name else ""
    return "device" in last.lower()


def _builtin_sequence(ctx: FileContext, call: cst.Call) -> bool:
    """`range(n)`, `list(...)`, `tuple(...)`, not a name imported or defined in the file."""
    func = call.func
    return (type(func) is cst.Name and func.value in _SEQUENCES and ctx.qualified_name(func) is None
            and ctx.local_callee(call) is None)

