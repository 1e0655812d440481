"""What `self.attr` a method reads: its own class's, or, when that class does not
assign it, the one a base class of the file holds."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.receivers import GRAD_SCALER, SCHEDULER
from trainlint.analysis.training import wrapped_module
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext

SOURCE = '''\
import torch


class Base:
    def __init__(self, model):
        self.policy = model
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)


class Middle(Base):
    pass


class Trainer(Middle):
    def fit(self):
        self.scheduler.step()
        self.policy.optimizer.step()


class Custom(Base):
    def __init__(self, model):
        super().__init__(model)
        self.scheduler = Warmup()

    def fit(self):
        self.scheduler.step()
'''


def _receivers_of_step(source: str) -> dict[str, tuple[str, str | None, str | None]]:
    """For each `<receiver>.step()` of each class: the class owning the receiver's
    binding, the binding's name and its kind."""
    module = cst.parse_module(source)
    ctx = FileContext("input.py", source, module)
    found = {}
    for cls in ctx.nodes_of(cst.ClassDef):
        for node in iter_nodes(cls):
            if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "step":
                receiver = node.func.value
                binding = ctx.receivers.binding(receiver)
                assert binding is not None
                owner = binding.owner.name.value  # type: ignore[attr-defined]
                found[f"{cls.name.value}:{ctx.code(receiver)}"] = (owner, binding.name, ctx.receivers.kind(receiver))
    return found


def test_an_attribute_the_class_does_not_assign_is_its_base_classes() -> None:
    found = _receivers_of_step(SOURCE)
    assert found["Trainer:self.scheduler"] == ("Base", "self.scheduler", SCHEDULER)
    # an attribute of one the base class assigns hangs from it
    assert found["Trainer:self.policy.optimizer"] == ("Base", "self.policy.optimizer", None)


def test_an_attribute_the_class_assigns_is_its_own() -> None:
    found = _receivers_of_step(SOURCE)
    assert found["Custom:self.scheduler"] == ("Custom", "self.scheduler", None)


def test_a_base_class_two_classes_of_the_file_are_named_after_is_not_followed() -> None:
    second = "class Middle:\n    pass\n\n\n"
    source = SOURCE.replace("class Trainer(Middle):", second + "class Trainer(Middle):")
    found = _receivers_of_step(source)
    assert found["Trainer:self.scheduler"] == ("Trainer", "self.scheduler", None)


BUILT_BY_A_METHOD = '''\
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer, self.scheduler = self.configure()
        self.warmup = self.make_warmup()

    def configure(self):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, 10)

    def make_warmup(self):
        return torch.optim.lr_scheduler.LinearLR(self.optimizer)

    def fit(self):
        self.optimizer.step()
        self.scheduler.step()
        self.warmup.step()
'''


def test_what_a_method_of_the_class_returns_is_followed() -> None:
    found = _receivers_of_step(BUILT_BY_A_METHOD)
    assert found["Trainer:self.optimizer"][2] == "optimizer"
    assert found["Trainer:self.scheduler"][2] == SCHEDULER
    assert found["Trainer:self.warmup"][2] == SCHEDULER


def test_a_method_two_classes_of_the_file_define_is_not_followed() -> None:
    other = "\n\nclass Other:\n    def configure(self):\n        return None, None\n\n    def make_warmup(self):\n        return None\n"
    found = _receivers_of_step(BUILT_BY_A_METHOD + other)
    assert found["Trainer:self.scheduler"][2] is None
    assert found["Trainer:self.warmup"][2] is None


RETURNED_CONTAINERS = '''\
import torch


def dict_of_optimizers(g, d):
    return {"g": torch.optim.Adam(g.parameters()), "d": torch.optim.Adam(d.parameters())}


def list_through_a_variable(models):
    optimizers = [torch.optim.Adam(m.parameters()) for m in models]
    return optimizers


def sometimes_loaded(models, path):
    if path:
        return load(path)
    return [torch.optim.Adam(m.parameters()) for m in models]


def optimizer_and_scheduler(model):
    optimizer = torch.optim.Adam(model.parameters())
    return {"optimizer": optimizer, "scheduler": torch.optim.lr_scheduler.StepLR(optimizer, 10)}


def fit(g, d, models, model, path):
    by_name = dict_of_optimizers(g, d)
    in_a_list = list_through_a_variable(models)
    maybe = sometimes_loaded(models, path)
    mixed = optimizer_and_scheduler(model)
'''


def test_the_containers_every_return_of_a_function_gives_are_followed() -> None:
    module = cst.parse_module(RETURNED_CONTAINERS)
    ctx = FileContext("input.py", RETURNED_CONTAINERS, module)
    fit = next(f for f in ctx.nodes_of(cst.FunctionDef) if f.name.value == "fit")  # type: ignore[attr-defined]
    item_kinds = {binding.name: kind for binding, kind in ctx.receivers.item_kinds.items() if binding.owner is fit}
    # a call returning something else on one path, or a dict of an optimizer and a scheduler: no one kind
    assert item_kinds == {"by_name": "optimizer", "in_a_list": "optimizer"}


IN_CLOSURES = '''\
import torch


class Trainer:
    def fit(self, other):
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)

        def run_epoch():
            self.scheduler.step()

        def own(self):
            self.scheduler.step()

        callbacks = [lambda: self.scheduler.step(), lambda self: self.scheduler.step()]
'''


def _kinds_of_step_receivers(source: str) -> list[str | None]:
    """The kind of each `<receiver>.step()`'s receiver, in source order."""
    module = cst.parse_module(source)
    ctx = FileContext("input.py", source, module)
    return [ctx.receivers.kind(node.func.value) for node in iter_nodes(module)
            if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "step"]


def test_a_closure_of_a_method_reads_the_methods_self() -> None:
    # a nested def or a lambda that does not bind `self` reads the method's;
    # one whose own parameter is named `self` does not
    assert _kinds_of_step_receivers(IN_CLOSURES) == [SCHEDULER, None, SCHEDULER, None]


LOOPED_OVER = '''\
import torch

optimizers = [torch.optim.SGD(net.parameters()) for net in nets]
schedulers = [torch.optim.lr_scheduler.StepLR(opt, 10) for opt in optimizers]
scalers = {"g": torch.amp.GradScaler("cuda"), "d": torch.amp.GradScaler("cuda")}
loaders = [torch.utils.data.DataLoader(data) for data in datasets]
for scheduler in schedulers:
    scheduler.step()
for optimizer, scheduler in zip(optimizers, schedulers):
    scheduler.step()
for scaler in scalers.values():
    scaler.step(optimizer)
for loader in loaders:
    loader.step()
'''


def test_a_loop_variable_holds_the_kind_of_the_items_it_takes() -> None:
    # a sampler or a DataLoader taken from a list is not followed
    assert _kinds_of_step_receivers(LOOPED_OVER) == [SCHEDULER, SCHEDULER, GRAD_SCALER, None]


FILLED_ONE_BY_ONE = '''\
import torch

schedulers, others = [], []
for opt in optimizers:
    schedulers.append(torch.optim.lr_scheduler.StepLR(opt, 10))
    others.append(torch.optim.lr_scheduler.StepLR(opt, 10))
others.extend(given)
for scheduler in schedulers:
    scheduler.step()
for other in others:
    other.step()
'''


def test_a_list_filled_by_append_holds_what_it_is_given() -> None:
    # an `extend` of items it cannot tell leaves the list's unknown
    assert _kinds_of_step_receivers(FILLED_ONE_BY_ONE) == [SCHEDULER, None]



WRAPPED = '''\
import model_search as once
import torch.nn as nn

once = once.Net()
once_runner = nn.DataParallel(once)
twice = Net()
twice_runner = nn.DataParallel(twice)
twice = Net()
paired = Net()
paired_runner = paired.cuda()
paired = load(path)
if multi_gpu:
    paired_runner = nn.DataParallel(paired)
else:
    paired_runner = paired
half = Net()
half_runner = nn.DataParallel(half)
half = load(path)
if multi_gpu:
    half_runner = nn.DataParallel(half)
global_runner = nn.DataParallel(rebound_elsewhere)
rebound_elsewhere = Net()


def reload():
    global rebound_elsewhere
    rebound_elsewhere = Net()


def warm_start(once, given):
    given_runner = nn.DataParallel(given)
    looped = Net()
    looped_runner = nn.DataParallel(looped)
    for path in paths:
        looped = Net.load(path)
    read(given_runner, looped_runner)


class Trainer:
    def __init__(self):
        self.kept = Net()
        self.kept_runner = nn.DataParallel(self.kept)
        self.swapped = Net()
        self.swapped_runner = nn.DataParallel(self.swapped)

    def swap(self):
        self.swapped = Net()
        read(self.kept_runner, self.swapped_runner)


read(once_runner, twice_runner, paired_runner, half_runner, global_runner)
'''


def test_a_wrapper_holds_the_model_where_it_is_assigned_anew_after_the_model() -> None:
    # a model given another object (a second assignment, a `global` rebinding in another
    # function, a loop) with no wrapper assigned after it on every path no longer is the
    # one its wrapper holds; an import of the name and a parameter of another function
    # named so are no such assignment
    ctx = FileContext("wrapped.py", WRAPPED, cst.parse_module(WRAPPED))
    read = [node for node in iter_nodes(ctx.module)
            if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "read"]
    held = [wrapped_module(ctx, arg.value) for call in read for arg in call.args]
    assert [None if model is None else ctx.code(model) for model in held] == [
        "given", None, "self.kept", None, "once", None, "paired", None, None]


HELD = '''\
class Trainer:
    def fit(self, opts, name):
        opt = self.optimizer
        o = opts["g"]
        for i in range(2):
            last = opts[i]
        opt, o, last, opts["g"], opts["d"], opts[name], opts[name], self.optimizer
'''


def test_one_object_is_told_by_what_is_read_not_by_the_spelling() -> None:
    ctx = FileContext("input.py", HELD, cst.parse_module(HELD))
    tuple_ = ctx.nodes_of(cst.Tuple)[-1]
    opt, o, last, g, d, named, named_again, attribute = (element.value for element in tuple_.elements)  # type: ignore[attr-defined]
    same = ctx.receivers.same_object
    assert same(opt, attribute) is True and same(o, g) is True and same(named, named_again) is True
    assert same(g, d) is False and same(o, d) is False and same(opt, g) is False
    assert same(last, g) is None  # `opts[i]` of a loop: which item is not known


MAYBE_HELD = '''\
import torch
from hub import shared_opt
def fit(model, opts, swa_opt, loader, name):
    opt = torch.optim.SGD(model.parameters())
    opt = torch.optim.AdamW(model.parameters())
    for o in opts:
        pass
    with make(name) as managed:
        pass
    swa_opt = opts[0]
    opt, o, managed, shared_opt, swa_opt, loader, model, o, opts[name], opts["d"]
'''


def test_a_variable_that_may_hold_more_than_one_object_is_no_known_one() -> None:
    ctx = FileContext("input.py", MAYBE_HELD, cst.parse_module(MAYBE_HELD))
    tuple_ = ctx.nodes_of(cst.Tuple)[-1]
    opt, o, managed, imported, rebound, loader, model, o_again, named, literal = (
        element.value for element in tuple_.elements)  # type: ignore[attr-defined]
    same = ctx.receivers.same_object
    # assigned twice, a loop or `with` target, an import, a parameter rebound: can't tell
    assert same(opt, model) is None and same(o, loader) is None and same(o, o_again) is None
    assert same(managed, loader) is None and same(imported, loader) is None and same(rebound, loader) is None
    assert same(loader, model) is False  # parameters never rebound: two variables
    assert same(named, literal) is None  # `opts[name]` may be `opts["d"]`


CAPTURED = '''\
import torch
def fit(model):
    optimizer = torch.optim.SGD(model.parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    match optimizer:
        case opt:
            pass
    match scheduler:
        case [first, *rest]:
            pass
    opt, optimizer, first, scheduler
'''


def test_a_case_capturing_the_whole_subject_holds_the_subject() -> None:
    ctx = FileContext("input.py", CAPTURED, cst.parse_module(CAPTURED))
    tuple_ = ctx.nodes_of(cst.Tuple)[-1]
    opt, optimizer, first, scheduler = (element.value for element in tuple_.elements)  # type: ignore[attr-defined]
    same = ctx.receivers.same_object
    assert same(opt, optimizer) is True  # `case opt:` of `match optimizer:`: the optimizer itself
    assert same(first, scheduler) is None  # a part of the subject: not known
