from __future__ import annotations

import libcst as cst

from trainlint.analysis.batch_copies import non_blocking_copies
from trainlint.analysis.dataflow import (
    DATALOADER,
    Values,
    always_before,
    bound_names,
    bound_parts,
    iterated_loader,
    unpinned_loader,
)
from trainlint.analysis.flag_resets import pinning_writes
from trainlint.analysis.phases import truth
from trainlint.analysis.receivers import Binding
from trainlint.analysis.scopes import argument_slots, assignment_targets, named_parameters
from trainlint.analysis.training import ancestors_within
from trainlint.analysis.walk import only
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import UNPINNED_LOADER


class NonBlockingWithoutPinMemory(Rule):
    """
    ## What it does
    Flags `batch.to(device, non_blocking=True)` and
    `batch.cuda(non_blocking=True)` on batches drawn from a DataLoader that is
    built without `pin_memory=True`, in the same file or by a function of
    another module of the project that returns it. Where the copies are made
    by a function of another module that the loader is handed to
    (`train_one_epoch(model, optimizer, train_loader, device)` of engine.py),
    the finding is on the loader's construction (its `DataLoader(...)` call,
    or the call of the builder that returns it): that function's other
    callers may hand it a pinned one. That function may hand the loader on,
    as it was given, to one that copies (`fit(model, loader)` calling
    `run_epoch(model, loader)`, in its module or another one, a chain of
    such calls as far as it goes): not where it binds the name again first
    (`loader = list(loader)`) or writes `pin_memory` itself, nor where what
    it hands on is another loader than the one given.

    ## Why is this bad?
    A host-to-device copy can only overlap with computation when the source
    is in page-locked (pinned) memory. From ordinary pageable memory the copy
    is staged and effectively synchronous, so `non_blocking=True` promises an
    overlap that never happens. `DataLoader(..., pin_memory=True)` makes the
    loader's worker thread pin each batch.

    ## Example
    ```python
    from torch.utils.data import DataLoader
    loader = DataLoader(dataset, batch_size=64, num_workers=4)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    ```

    ## Fix safety
    No fix: pinning memory costs host RAM, which the author should choose.

    ## Limitations
    Loaders built in the same file are judged through assignments and the
    call sites of the file's functions (`train(model, train_loader)`, every
    one handing a loader judged so), and through a name bound again only
    after the loop (a pre-pass before `accelerator.prepare()`). A loader a
    function of the file or another module returns is judged where that
    function builds it and every return gives it (`return
    DataLoader(...)`, or a variable assigned one there; in a tuple, at the
    same place in every return: `return train_loader, val_loader`), or
    every return gives what one such function of the project returns
    (`return make_loader(cfg)`, or a variable assigned it there and not
    pinned: a chain of builders as far as it goes), and the
    loop iterates the call (`for x in build_loader(cfg):`), a variable or
    attribute that only ever holds such loaders (`loader =
    build_loader(cfg)`, `self.train_loader = build_loader(cfg)`), or the item
    of the one assignment of its name (`train_loader, val_loader =
    get_loaders(cfg)`, also as another builder returns it in turn: `return
    make_loaders(cfg)`); one the function is handed is not, nor what a
    function returns whose decorator may change it (`@pinned def
    make_loader(ds)`: the call returns what the decorator makes of it). A
    cache (`@functools.lru_cache`, `@functools.cache`), `@staticmethod` and
    `@classmethod` return what the function does: followed. A loader whose attribute is set after it is built
    (`loader.pin_memory = True`, a value that may be true, `setattr(loader,
    "pin_memory", flag)`) while the name still holds the loader the loop
    draws, before the loop in its code body or, in another one (the
    caller), before a call that hands it over, counts as pinned, and so does
    one a builder pins before it returns it (`loader.pin_memory = True;
    return loader`); `= False` changes nothing. A function of another module is taken to copy the
    batches of a loader handed to it where a loop of its own draws from the
    parameter, never bound again there (not `loader =
    accelerator.prepare(loader)`), nor pinned (`loader.pin_memory = True`);
    one that hands it on to a further function is not followed. A
    `pin_memory=` given as a variable or
    through `**kwargs`, and batches copied inside helpers are left alone;
    a comprehension's copies are judged when it
    ranges over a batch itself (`[t.to(device, non_blocking=True) for t in
    batch]`).
    """

    code = "TL502"
    name = "non-blocking-without-pin-memory"
    severity = "info"
    message = "`non_blocking=True` copy from a DataLoader without `pin_memory=True`: the copy is not asynchronous"
    triggers = ("non_blocking",)
    bad = (
        # a pre-pass over the loader before `accelerator.prepare()` rebinds it
        "from torch.utils.data import DataLoader\n"
        "def main(accelerator, dataset, model, optimizer, device):\n"
        "    loader = DataLoader(dataset, batch_size=8)\n"
        "    for x in loader:\n"
        "        model.calibrate(x.to(device, non_blocking=True))  # expect: TL502\n"
        "    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n"
        "    for x in loader:\n"
        "        step(model, x.to(device, non_blocking=True))\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=64, num_workers=4)\n"
        "for x, y in loader:\n"
        "    x = x.to('cuda', non_blocking=True)  # expect: TL502\n"
        "    y = y.to('cuda', non_blocking=True)  # expect: TL502\n",
        "import torch\n"
        "def train_one_epoch(model, loader, device):\n"
        "    for i, (images, target) in enumerate(loader):\n"
        "        images = images.cuda(non_blocking=True)  # expect: TL502\n"
        "        model(images)\n"
        "train_loader = torch.utils.data.DataLoader(ds, batch_size=32, pin_memory=False)\n"
        "train_one_epoch(model, train_loader, 'cuda')\n",
        "from torch.utils import data\n"
        "from tqdm import tqdm\n"
        "loader = data.DataLoader(ds, shuffle=True)\n"
        "for batch in tqdm(loader, desc='train'):\n"
        "    inputs = batch['input_ids'].to(device, non_blocking=True)  # expect: TL502\n",
        "from torch.utils.data import DataLoader as DL\n"
        "class Trainer:\n"
        "    def __init__(self, ds):\n"
        "        self.loader = DL(ds, batch_size=8)\n"
        "    def fit(self):\n"
        "        for batch in self.loader:\n"
        "            x, y = batch\n"
        "            x = x.to(self.device, non_blocking=True)  # expect: TL502\n",
        # the nested loop's own loader is the one not pinned
        "from torch.utils.data import DataLoader\n"
        "def main(train_set, val_set, model, opt, device):\n"
        "    train_loader = DataLoader(train_set, batch_size=8, pin_memory=True)\n"
        "    val_loader = DataLoader(val_set, batch_size=1)\n"
        "    for step, batch in enumerate(train_loader):\n"
        "        model(batch.to(device, non_blocking=True)).mean().backward()\n"
        "        opt.step()\n"
        "        if step % 100 == 0:\n"
        "            for batch in val_loader:\n"
        "                model(batch.to(device, non_blocking=True))  # expect: TL502\n",
        # RAFT's copies, made in a comprehension over the batch
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def train(model, dataset, optimizer):\n"
        "    loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=4)\n"
        "    for data_blob in loader:\n"
        "        image1, image2, flow = [x.cuda(non_blocking=True) for x in data_blob]  # expect: TL502\n"
        "        loss = (model(image1, image2) - flow).abs().mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a method whose first parameter is not named `self`, called on `self`: its `loader` is the
        # DataLoader the call hands it
        "from torch.utils.data import DataLoader\n"
        "class Trainer:\n"
        "    def epoch(trainer, loader, device):\n"
        "        for images in loader:\n"
        "            images = images.cuda(non_blocking=True)  # expect: TL502\n"
        "    def fit(self, dataset, device):\n"
        "        self.epoch(DataLoader(dataset, batch_size=8), device)\n",
        # a `loader` parameter, but the unpinned loader replaces it before every loop
        "from torch.utils.data import DataLoader\n"
        "def epoch(dataset, loader=None):\n"
        "    loader = DataLoader(dataset, batch_size=8)\n"
        "    for x in loader:\n"
        "        x = x.to('cuda', non_blocking=True)  # expect: TL502\n",
        # a loader parameter the function replaces on every path (in a `with`, in both arms of an
        # `if` that does not ask whether one was handed): what a caller hands is never used
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def epoch(dataset, small, loader=None):\n"
        "    with torch.no_grad():\n"
        "        loader = DataLoader(dataset, batch_size=8)\n"
        "    for x in loader:\n"
        "        x = x.to('cuda', non_blocking=True)  # expect: TL502\n"
        "def epoch_sized(dataset, small, loader=None):\n"
        "    if small:\n"
        "        loader = DataLoader(dataset, batch_size=8)\n"
        "    else:\n"
        "        loader = DataLoader(dataset, batch_size=64)\n"
        "    for x in loader:\n"
        "        x = x.to('cuda', non_blocking=True)  # expect: TL502\n",
        # pinning turned off, turned on for another loader, or only after the loop
        "from torch.utils.data import DataLoader\n"
        "def main(train_set, val_set, model, device):\n"
        "    loader = DataLoader(train_set, batch_size=8)\n"
        "    val_loader = DataLoader(val_set, batch_size=8)\n"
        "    loader.pin_memory = False\n"
        "    val_loader.pin_memory = True\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "    test_loader = DataLoader(val_set, batch_size=8)\n"
        "    for x in test_loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "    test_loader.pin_memory = True\n",
        # the name pinned is bound to another loader before the loop; a loader pinned only
        # after it is handed over
        "from torch.utils.data import DataLoader\n"
        "def epoch(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def main(train_set, val_set, model, device):\n"
        "    loader = DataLoader(train_set, batch_size=8)\n"
        "    loader.pin_memory = True\n"
        "    loader = DataLoader(val_set, batch_size=8)\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "    val_loader = DataLoader(val_set, batch_size=8)\n"
        "    epoch(model, val_loader, device)\n"
        "    val_loader.pin_memory = True\n",
        # a nested function that would pin the loader, never called or called only after
        # the loop
        "from torch.utils.data import DataLoader\n"
        "def main(ds, model, device):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    def enable():\n"
        "        loader.pin_memory = True\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def late(ds, model, device):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    def enable():\n"
        "        loader.pin_memory = True\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "    enable()\n",
        # a builder of the file makes the loader, its caller hands it to the training function
        "from torch.utils.data import DataLoader\n"
        "def build_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8, num_workers=4)\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def main(ds, model, device):\n"
        "    loader = build_loader(ds)\n"
        "    train(model, loader, device)\n"
        "    train(model, build_loader(ds), device)\n",
        # pinned only after the hand-over; a builder that turns pinning off
        "from torch.utils.data import DataLoader\n"
        "def build_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8)\n"
        "def build_unpinned(ds):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    loader.pin_memory = False\n"
        "    return loader\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def evaluate(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def main(ds, model, device):\n"
        "    loader = build_loader(ds)\n"
        "    train(model, loader, device)\n"
        "    loader.pin_memory = True\n"
        "    evaluate(model, build_unpinned(ds), device)\n",
        # the loader is bound by a walrus in the call that hands it over
        "from torch.utils.data import DataLoader\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n"
        "def main(ds, model, device):\n"
        "    train(model, (loader := DataLoader(ds, batch_size=8)), device)\n"
        "    return loader\n",
        # builders that return what another builder of the file returns, two calls deep
        "from torch.utils.data import DataLoader\n"
        "def make_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8, num_workers=4)\n"
        "def build(ds):\n"
        "    loader = make_loader(ds)\n"
        "    return loader\n"
        "def preset(ds):\n"
        "    return build(ds)\n"
        "def train(model, ds, device):\n"
        "    for x in preset(ds):\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n",
        # a builder returning the tuple of loaders another builder returns
        "from torch.utils.data import DataLoader\n"
        "def make_loaders(args):\n"
        "    train_loader = DataLoader(args.train_set, batch_size=32, shuffle=True)\n"
        "    val_loader = DataLoader(args.val_set, batch_size=32)\n"
        "    return train_loader, val_loader\n"
        "def loaders(args):\n"
        "    return make_loaders(args)\n"
        "def main(args, model, device):\n"
        "    train_loader, val_loader = loaders(args)\n"
        "    for x, y in train_loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n",
        # a builder whose results are cached: a call returns what it built
        "import functools\n"
        "from torch.utils.data import DataLoader\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def make_loader(path):\n"
        "    return DataLoader(path, batch_size=32)\n"
        "def train(model, device):\n"
        "    for x in make_loader('train'):\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n",
        "from functools import cache\n"
        "from torch.utils.data import DataLoader\n"
        "class Data:\n"
        "    @staticmethod\n"
        "    @cache\n"
        "    def loaders(path):\n"
        "        return DataLoader(path, batch_size=32), DataLoader(path, batch_size=8)\n"
        "def train(model, device):\n"
        "    train_loader, val_loader = Data.loaders('data')\n"
        "    for x in val_loader:\n"
        "        model(x.to(device, non_blocking=True))  # expect: TL502\n",
    )
    good = (
        # after `prepare()` the loader is the accelerator's; in a loop, the name may come back rebound
        "from torch.utils.data import DataLoader\n"
        "def main(accelerator, dataset, model, device, epochs):\n"
        "    loader = DataLoader(dataset, batch_size=8)\n"
        "    model, loader = accelerator.prepare(model, loader)\n"
        "    for x in loader:\n"
        "        step(model, x.to(device, non_blocking=True))\n"
        "    stream = DataLoader(dataset)\n"
        "    for epoch in range(epochs):\n"
        "        for x in stream:\n"
        "            step(model, x.to(device, non_blocking=True))\n"
        "        model, stream = accelerator.prepare(model, stream)\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)\n"
        "for x, y in loader:\n"
        "    x = x.to('cuda', non_blocking=True)\n",
        # the chapter's template: the loader comes from elsewhere
        "import torch\n"
        "def train_one_epoch(model, loader, device):\n"
        "    for x, y in loader:\n"
        "        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)\n",
        # pin_memory decided at run time
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, pin_memory=torch.cuda.is_available())\n"
        "for x, y in loader:\n"
        "    x = x.to('cuda', non_blocking=True)\n",
        # one call site passes an unknown loader
        "from torch.utils.data import DataLoader\n"
        "def run(loader):\n"
        "    for x in loader:\n"
        "        x.to('cuda', non_blocking=True)\n"
        "run(DataLoader(ds))\n"
        "run(make_loader())\n",
        # not a batch: the model
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds)\n"
        "model = model.to('cuda', non_blocking=True)\n"
        "for x in loader:\n"
        "    model(x)\n",
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, **loader_kwargs)\n"
        "for x in loader:\n"
        "    x = x.to('cuda', non_blocking=True)\n",
        # a validation pass inside the training loop binds `batch` again, from a pinned loader
        "from torch.utils.data import DataLoader\n"
        "def main(train_set, val_set, model, opt, device):\n"
        "    train_loader = DataLoader(train_set, batch_size=8, num_workers=2)\n"
        "    val_loader = DataLoader(val_set, batch_size=1, pin_memory=True)\n"
        "    for step, batch in enumerate(train_loader):\n"
        "        model(batch.to(device)).mean().backward()\n"
        "        opt.step()\n"
        "        if step % 100 == 0:\n"
        "            for batch in val_loader:\n"
        "                model(batch.to(device, non_blocking=True))\n",
        # the validation batch unpacked inside the nested loop
        "from torch.utils.data import DataLoader\n"
        "def main(train_set, val_set, model, opt, device):\n"
        "    train_loader = DataLoader(train_set, batch_size=8)\n"
        "    val_loader = DataLoader(val_set, batch_size=1, pin_memory=True)\n"
        "    for step, batch in enumerate(train_loader):\n"
        "        model(batch.to(device)).mean().backward()\n"
        "        if step % 100 == 0:\n"
        "            for batch in val_loader:\n"
        "                x, y = batch\n"
        "                model(x.to(device, non_blocking=True))\n",
        # a comprehension over the model's tensors, not the batch; one over a pinned batch
        "from torch.utils.data import DataLoader\n"
        "def train(model, dataset, device):\n"
        "    loader = DataLoader(dataset, batch_size=8)\n"
        "    pinned = DataLoader(dataset, batch_size=8, pin_memory=True)\n"
        "    for batch in loader:\n"
        "        buffers = [b.to(device, non_blocking=True) for b in model.buffers()]\n"
        "        model(batch.to(device), buffers)\n"
        "    for batch in pinned:\n"
        "        x, y = [t.to(device, non_blocking=True) for t in batch]\n",
        # the method (first parameter not named `self`) is handed a pinned DataLoader
        "from torch.utils.data import DataLoader\n"
        "class Trainer:\n"
        "    def epoch(trainer, loader, device):\n"
        "        for images in loader:\n"
        "            images = images.cuda(non_blocking=True)\n"
        "    def fit(self, dataset, device):\n"
        "        self.epoch(DataLoader(dataset, batch_size=8, pin_memory=True), device)\n",
        # `pin_memory` given by position, the eighth argument
        "from torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, 64, True, None, None, 4, None, True)\n"
        "for x, y in loader:\n"
        "    x = x.to('cuda', non_blocking=True)\n",
        # the unpinned loader is built only when the caller hands none: a caller may hand a pinned one
        "from torch.utils.data import DataLoader\n"
        "def epoch(dataset, loader=None):\n"
        "    if loader is None:\n"
        "        loader = DataLoader(dataset, batch_size=8)\n"
        "    for x in loader:\n"
        "        x = x.to('cuda', non_blocking=True)\n",
        # pinning turned on after the loader is built, before the loop (a value that may be
        # true, also in the caller that hands the loader over)
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def epoch(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def main(train_set, val_set, model, device):\n"
        "    loader = DataLoader(train_set, batch_size=8)\n"
        "    loader.pin_memory = True\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "    val_loader = DataLoader(val_set, batch_size=8)\n"
        "    setattr(val_loader, 'pin_memory', torch.cuda.is_available())\n"
        "    epoch(model, val_loader, device)\n",
        # the name bound to another loader only on one path; the pinned loader handed over again
        "from torch.utils.data import DataLoader\n"
        "def epoch(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def main(train_set, val_set, model, device, small):\n"
        "    loader = DataLoader(train_set, batch_size=8)\n"
        "    loader.pin_memory = True\n"
        "    if small:\n"
        "        loader = DataLoader(val_set, batch_size=8)\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "    val_loader = DataLoader(val_set, batch_size=8)\n"
        "    epoch(model, val_loader, device)\n"
        "    val_loader.pin_memory = True\n"
        "    epoch(model, val_loader, device)\n",
        # a function nested in the loop's that pins the loader, called before the loop
        "from torch.utils.data import DataLoader\n"
        "def main(ds, model, device):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    def enable():\n"
        "        loader.pin_memory = True\n"
        "    enable()\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n",
        # builders of the file: the callers of `train` hand an unpinned loader and one that
        # may be pinned; the one `evaluate` is handed is pinned on some runs
        "from torch.utils.data import DataLoader\n"
        "def build_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8)\n"
        "def build_pinned(ds, fast):\n"
        "    if fast:\n"
        "        return DataLoader(ds, batch_size=8, pin_memory=True)\n"
        "    return DataLoader(ds, batch_size=8)\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def evaluate(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def main(ds, model, device, fast):\n"
        "    train(model, build_loader(ds), device)\n"
        "    train(model, build_pinned(ds, fast), device)\n"
        "    evaluate(model, build_pinned(ds, fast), device)\n",
        # the caller pins the loader a builder of the file returns before it hands it over;
        # another builder pins its loader before it returns it
        "from torch.utils.data import DataLoader\n"
        "def build_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8)\n"
        "def build_pinned(ds):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    loader.pin_memory = True\n"
        "    return loader\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def evaluate(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def main(ds, model, device):\n"
        "    loader = build_loader(ds)\n"
        "    loader.pin_memory = True\n"
        "    train(model, loader, device)\n"
        "    evaluate(model, build_pinned(ds), device)\n",
        # the same walrus, on a pinned loader
        "from torch.utils.data import DataLoader\n"
        "def train(model, loader, device):\n"
        "    for x in loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "def main(ds, model, device):\n"
        "    train(model, (loader := DataLoader(ds, batch_size=8, pin_memory=True)), device)\n"
        "    return loader\n",
        # copies to the CPU, where pinning would change nothing
        "import torch\n"
        "from torch.utils.data import DataLoader\n"
        "def collect(ds):\n"
        "    loader = DataLoader(ds, batch_size=8)\n"
        "    kept = []\n"
        "    for x, y in loader:\n"
        "        kept.append(x.to(\"cpu\", non_blocking=True))\n"
        "        kept.append(y.to(device=\"cpu:0\", non_blocking=True))\n"
        "        kept.append(x.to(torch.device(\"cpu\"), non_blocking=True))\n"
        "    return kept\n",
        # builders over another builder of the file that pin its loader, or return a pinned
        # one on some runs
        "from torch.utils.data import DataLoader\n"
        "def make_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8, num_workers=4)\n"
        "def build_pinned(ds):\n"
        "    loader = make_loader(ds)\n"
        "    loader.pin_memory = True\n"
        "    return loader\n"
        "def build_either(ds, fast):\n"
        "    if fast:\n"
        "        return DataLoader(ds, batch_size=8, pin_memory=True)\n"
        "    return make_loader(ds)\n"
        "def train(model, ds, device, fast):\n"
        "    for x in build_pinned(ds):\n"
        "        model(x.to(device, non_blocking=True))\n"
        "    for x in build_either(ds, fast):\n"
        "        model(x.to(device, non_blocking=True))\n",
        # a builder whose decorator pins what it returns, called directly or through another
        "from torch.utils.data import DataLoader\n"
        "def pinned(build):\n"
        "    def wrapper(*args):\n"
        "        loader = build(*args)\n"
        "        loader.pin_memory = True\n"
        "        return loader\n"
        "    return wrapper\n"
        "@pinned\n"
        "def make_loader(ds):\n"
        "    return DataLoader(ds, batch_size=8)\n"
        "def build(ds):\n"
        "    return make_loader(ds)\n"
        "def train(model, ds, device):\n"
        "    for x in make_loader(ds):\n"
        "        model(x.to(device, non_blocking=True))\n"
        "    for x in build(ds):\n"
        "        model(x.to(device, non_blocking=True))\n",
        # the builder returning another's tuple pins its first loader; a decorator of
        # another module may change what the outer builder returns
        "from torch.utils.data import DataLoader\n"
        "from hub import pinned\n"
        "def make_loaders(args):\n"
        "    train_loader = DataLoader(args.train_set, batch_size=32, shuffle=True)\n"
        "    val_loader = DataLoader(args.val_set, batch_size=32, pin_memory=True)\n"
        "    return train_loader, val_loader\n"
        "def loaders(args):\n"
        "    return make_loaders(args)\n"
        "@pinned\n"
        "def pinned_loaders(args):\n"
        "    return make_loaders(args)\n"
        "def main(args, model, device):\n"
        "    train_loader, val_loader = loaders(args)\n"
        "    for x, y in val_loader:\n"
        "        model(x.to(device, non_blocking=True))\n"
        "    first, _ = pinned_loaders(args)\n"
        "    for x, y in first:\n"
        "        model(x.to(device, non_blocking=True))\n",
        # a decorator the linter does not know, even one named like a cache
        "from torch.utils.data import DataLoader\n"
        "from hub import lru_cache\n"
        "@lru_cache(maxsize=None)\n"
        "def make_loader(path):\n"
        "    return DataLoader(path, batch_size=32)\n"
        "def train(model, device):\n"
        "    for x in make_loader('train'):\n"
        "        model(x.to(device, non_blocking=True))\n",
    )

    def finish(self) -> None:
        values = Values.of_file(self.ctx)
        for node in self.ctx.nodes_of(cst.For):
            assert type(node) is cst.For
            copies = non_blocking_copies(self.ctx, node)
            if copies and self._unpinned_builds(node, iterated_loader(self.ctx, node.iter), values) is not None:
                for copy in copies:
                    self.report(copy)
        if any(summary.copies_non_blocking for summary in self.ctx.external.values()):
            self._report_handed(values)

    def _report_handed(self, values: Values) -> None:
        """A loader this file builds without pinning and hands to a function of another
        module whose own loop copies its batches with `non_blocking=True`: reported where
        it is built (`DataLoader(...)`, or the call of the builder that returns it), as
        the copy lies in the other module, whose other callers may hand a pinned one."""
        reported: set[cst.Call] = set()
        for call in self.ctx.nodes_of(cst.Call):
            summary = self.ctx.summaries.of_external_call(call)  # type: ignore[arg-type]
            if summary is None or not summary.copies_non_blocking:
                continue
            for slot, arg in argument_slots(call):  # type: ignore[arg-type]
                if summary.slot(slot) not in summary.copies_non_blocking:
                    continue
                for build in self._unpinned_builds(call, arg.value, values) or ():
                    if build not in reported:
                        reported.add(build)
                        self.report(build, f"DataLoader without `pin_memory=True` handed to `{self.ctx.code(call.func)}()`"  # type: ignore[attr-defined]
                                           ", which copies its batches with `non_blocking=True`: the copy is not "
                                           "asynchronous")

    def _unpinned_builds(self, use: cst.CSTNode, value: cst.BaseExpression, values: Values) -> list[cst.Call] | None:
        """The calls that build what `value` holds at `use` (a loop drawing from it, a call
        handing it over), when each surely builds a DataLoader that does not pin memory: in
        this file, or by a function of this file or another module (`build_loader(cfg)`,
        `train_loader, val_loader = get_loaders(cfg)`); None otherwise."""
        if self._may_be_handed(use, value, values):
            return None
        loaders = values.calls_of(value, {DATALOADER})
        if loaders is None and type(value) is cst.Name:
            loaders = self._loaders_before(use, value)
        if loaders is not None:
            unpinned = all(unpinned_loader(call) for call in loaders) and not self._pinned_before(use, value, loaders)
            return loaders if unpinned else None
        sources = values.of(value)
        if sources:
            builds = sources if all(self._unpinned_source(source) for source in sources) else None
        else:
            item = self._unpinned_item(value) if type(value) is cst.Name else None
            builds = [item] if item is not None else None
        # the variables the builds are assigned to may be pinned too (`loader = build_loader(ds)`,
        # `loader.pin_memory = True`, then `train(model, loader)`)
        return builds if builds is not None and not self._pinned_before(use, value, builds) else None  # type: ignore

    def _pinned_before(self, loop: cst.CSTNode, iterable: cst.BaseExpression, loaders: list[cst.Call]) -> bool:
        """Code may turn pinning on for the loader after it was built, before `loop` draws
        from it (a DataLoader reads `pin_memory` when a loop starts on it): `loader.pin_memory
        = True`, or a value that may be true, on the variable the loop iterates or one a
        loader it draws from is assigned to, while it still holds the loader the loop
        draws: before the loop in its code body, in a function nested in it that this body
        calls before the loop, or in another one (the caller) before a call that hands the
        loader over. `loop` may be a call that hands it to another module's loop."""
        receivers = self.ctx.receivers
        held = {receivers.binding(iterable), *(receivers.binding(target) for call in loaders
                                               for target in _assigned_to(self.ctx, call))} - {None}
        body = self.ctx.enclosing_function(loop)
        for write, owner in self.ctx.shared(pinning_writes):
            binding = receivers.binding(owner)
            if binding is None or binding not in held:
                continue
            writer = self.ctx.enclosing_function(write)
            if writer is not body and body is not None and any(a is body for a in self.ctx.ancestors(write)):
                # a function nested in the loop's pins only once the loop's code calls it
                if any(self._still_holds(call, binding, loop) for call in self._calls_of(writer, body)):
                    return True
                continue
            uses: list[cst.CSTNode] | None = [loop] if writer is body else self._handing_calls(write, binding)
            if uses is None:
                return True  # read where no call of this body hands it over (`self.loader`, a global)
            if any(self._still_holds(write, binding, use) for use in uses):
                return True
        return False

    def _calls_of(self, nested: cst.FunctionDef | None, body: cst.FunctionDef) -> list[cst.CSTNode]:
        """The calls of the code body of `body` (not of functions within it) to `nested`."""
        return [call for call in only(self.ctx.own_nodes(body.body), cst.Call)
                if nested is not None and self.ctx.local_callee(call) is nested]  # type: ignore[arg-type]

    def _handing_calls(self, write: cst.CSTNode, binding: Binding) -> list[cst.CSTNode] | None:
        """The calls of `write`'s code body, after it, that hand the variable it pins over
        (`epoch(model, loader)`); None when no call of that body hands it over at all."""
        body = self.ctx.enclosing_function(write)
        root: cst.CSTNode = body.body if body is not None else self.ctx.module
        receivers = self.ctx.receivers
        handing = [node for node in only(self.ctx.own_nodes(root), cst.Call) if any(
            type(arg.value) in (cst.Name, cst.Attribute) and receivers.binding(arg.value) == binding
            for arg in node.args)]  # type: ignore[attr-defined]
        if not handing:
            return None
        at = self.ctx.order_index(write)
        return [call for call in handing if self.ctx.order_index(call) > at]  # not `setattr(loader, ...)` itself

    def _still_holds(self, write: cst.CSTNode, binding: Binding, use: cst.CSTNode) -> bool:
        """`write` comes before `use` in their code body, and no statement that always runs
        before `use` binds the variable again in between (`loader = DataLoader(b)`)."""
        body = self.ctx.enclosing_function(use)
        root: cst.CSTNode = body.body if body is not None else self.ctx.module
        start, end = self.ctx.order_index(write), self.ctx.order_index(use)
        if start >= end:
            return False
        receivers = self.ctx.receivers
        rebinding = [part for node in self.ctx.own_nodes(root) if start < self.ctx.order_index(node) < end
                     for part in bound_parts(node) if receivers.binding(part) == binding]
        return not always_before(self.ctx, use, rebinding)

    def _may_be_handed(self, loop: cst.CSTNode, iterable: cst.BaseExpression, values: Values) -> bool:
        """`iterable` is a parameter that may still hold what an unseen caller handed
        in when `loop` runs: the function builds a loader only when none is given
        (`if loader is None: loader = DataLoader(ds)`), not in a statement that
        always runs before the loop."""
        if not values.handed_by_unseen_callers(iterable):
            return False
        binding = self.ctx.receivers.binding(iterable)
        if binding is None:
            return False
        assigned = values.assigned.get(binding, [])
        # built only in the body of an `if` that finds none handed: else the caller's stays
        return not always_before(self.ctx, loop, assigned) and bool(assigned) and all(
            self._when_none_handed(value, binding.name) for value in assigned)

    def _when_none_handed(self, value: cst.CSTNode, name: str) -> bool:
        """`value` is assigned in the body of an `if` of its function whose test holds
        when `name` is None: `if name is None:`, `if name == None:`, `if not name:`."""
        child = value
        for ancestor in self.ctx.ancestors(value):
            if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                return False
            if type(ancestor) is cst.If and child is ancestor.body and truth(ancestor.test, {name: "None"}) is True:
                return True
            child = ancestor
        return False

    def _unpinned_source(self, source: cst.BaseExpression) -> bool:
        """`source` builds a DataLoader without `pin_memory=True`: here, or in the function
        of this file or another module it calls, which returns it (`build_loader(cfg)`)."""
        if type(source) is not cst.Call:
            return False
        if self.ctx.call_name(source) == DATALOADER:
            return unpinned_loader(source)
        summary = self.ctx.summaries.of_call(source)
        return summary is not None and summary.returns_unpinned_loader

    def _unpinned_item(self, name: cst.Name) -> cst.Call | None:
        """The call of a function of this file or another module that returns a tuple with
        a DataLoader built without `pin_memory=True` at the place of `name`, bound by the
        one assignment of it in its scope (`train_loader, val_loader = get_loaders(cfg)`)."""
        binder = self._only_binding(name)
        summary = self.ctx.summaries.of_call(binder.value) if binder is not None else None  # type: ignore[arg-type]
        target = binder.targets[0].target if binder is not None else None
        if summary is None or type(target) not in (cst.Tuple, cst.List):
            return None
        elements = target.elements  # type: ignore[union-attr]
        if any(type(element) is not cst.Element for element in elements):
            return None  # a starred part shifts the positions after it
        position = next((i for i, element in enumerate(elements)
                         if type(element.value) is cst.Name and element.value.value == name.value), None)
        if position is None or f"#{position}" not in summary.items_holding(UNPINNED_LOADER):
            return None
        return binder.value  # type: ignore[union-attr, return-value]

    def _only_binding(self, name: cst.Name) -> cst.Assign | None:
        """The one statement that binds `name` in the code body it is read in, when it is
        an assignment of a call's result (not a parameter, nor bound twice)."""
        func = self.ctx.enclosing_function(name)
        if func is not None and name.value in named_parameters(func):
            return None
        root: cst.CSTNode = func.body if func is not None else self.ctx.module
        binders = [node for node in self.ctx.own_nodes(root) if name.value in bound_names(node)]
        if len(binders) != 1 or type(binders[0]) is not cst.Assign:
            return None
        assign: cst.Assign = binders[0]  # type: ignore[assignment]
        return assign if len(assign.targets) == 1 and type(assign.value) is cst.Call else None

    def _loaders_before(self, loop: cst.CSTNode, name: cst.Name) -> list[cst.Call] | None:
        """What `name` holds when `loop` runs, when it is bound again only
        after the loop (a pre-pass before `accelerator.prepare()` rebinds
        the loader): every binding before the loop is `name = DataLoader(...)`."""
        body = self.ctx.enclosing_function(loop)
        root: cst.CSTNode = body.body if body is not None else self.ctx.module
        if any(type(a) in (cst.For, cst.While) for a in ancestors_within(self.ctx, loop, root)):
            return None  # a later binding flows back into an enclosing loop
        at = self.ctx.order_index(loop)
        before: list[cst.CSTNode] = []
        for node in self.ctx.own_nodes(root):
            if self.ctx.order_index(node) < at and name.value in bound_names(node):
                before.append(node)
        values = [n.value for n in before if type(n) is cst.Assign and len(n.targets) == 1]  # type: ignore[attr-defined]
        if not values or len(values) != len(before):
            return None
        if not all(type(v) is cst.Call and self.ctx.call_name(v) == DATALOADER for v in values):
            return None
        return values  # type: ignore[return-value]


def _assigned_to(ctx: FileContext, call: cst.Call) -> list[cst.BaseExpression]:
    """The targets of the assignment whose value is `call` (`loader = DataLoader(...)`)."""
    parent = ctx.parent(call)
    return assignment_targets(parent) if type(parent) is cst.Assign else []
