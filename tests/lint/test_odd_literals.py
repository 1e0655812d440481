"""A string literal CPython refuses to read (`"\\N{NOTACHAR}"`, `"\\x"`) still parses
with LibCST, whose `evaluated_value` then raises: every rule reads literals through
`trainlint.analysis.literals`, so no rule crashes on one, wherever it is written."""

from __future__ import annotations

import pytest
from cli_runner import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.testing import uncrashed

_LOOP = """\
import torch
from collections import namedtuple
from torch.utils.data import DataLoader, DistributedSampler

model = torch.nn.Linear(2, 2)
scaler = torch.cuda.amp.GradScaler()


def make_loader(dataset, split):
    return DataLoader(dataset, sampler=DistributedSampler(dataset))


def backward(loss, scaler, clip=None):
    scaler.scale(loss).backward()
    if clip:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


{setup}
loader = make_loader([1, 2, 3], "train")
for epoch in range(3):
    for x in loader:
        backward(model(x.to("cuda")).sum(), scaler)
        scaler.step(optimizer)
        scaler.update()
        model.zero_grad()
{in_loop}
    scheduler.step()
"""
_SGD = "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nscheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)"
_NATIVE_SCALER = """\
class NativeScaler:
    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
        if update_grad:
            self._scaler.step(optimizer)
            self._scaler.update()
"""

# where a literal is read, each in a training program; {K} is the literal
POSITIONS = {
    "param group key": "optimizer = torch.optim.SGD([{{K}: model.parameters()}], lr=0.1)\n"
                       "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)",
    "param group second key": "optimizer = torch.optim.SGD([{'params': model.parameters(), {K}: 0.1}], lr=0.1)\n"
                              "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)",
    "scheduler by getattr": "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                            "scheduler = getattr(torch.optim.lr_scheduler, {K})(optimizer, 10)",
    "dict of parts": "parts = {{K}: torch.optim.SGD(model.parameters()), 'scheduler': None}\n"
                     "optimizer = parts[{K}]\nscheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)\n"
                     "def build():\n    return {{K}: optimizer, 'scheduler': scheduler}\nbuilt = build()",
    "named tuple fields": "Parts = namedtuple('Parts', {K})\nOther = namedtuple('Other', [{K}, ('b', int)])\n" + _SGD
                          + "\nparts = Parts(optimizer, scheduler)\nother = Other(optimizer, scheduler)",
    "splatted dict": "kwargs = {{K}: 0.1}\nkwargs[{K}] = 0.9\nkwargs.pop({K})\nkwargs.update({{K}: 1})\n"
                     "optimizer = torch.optim.SGD(model.parameters(), **kwargs)\n"
                     "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10, **{{K}: 1})\n"
                     "extra = DataLoader([1], sampler=DistributedSampler([1]), **kwargs)\n"
                     "other = DataLoader([1], **{{K}: True, 'shuffle': True})",
    "state dict key": _SGD + "\nstate = model.state_dict()\nstate[{K}] = state.get({K})\nmodel.load_state_dict({{K}: state[{K}]})",
    "setattr": _SGD + "\nsetattr(model, {K}, 1)\nsetattr(optimizer, {K}, None)",
    "device": _SGD + "\nmodel.to({K})",
    "call argument": _SGD + "\nval_loader = make_loader([1], {K})",
    "scaler class": _SGD + "\n" + _NATIVE_SCALER + "loss_scaler = NativeScaler()",
}
# the same, inside the training loop
IN_LOOP = {
    "param group key": "        model(x).sum().backward()\n        model.zero_grad()\n        optimizer.step()",
    "device": "        batch = x.to({K}, non_blocking=True)\n        copy = x.to(torch.device({K}), non_blocking=True)",
    "call argument": "        backward(model(x).sum(), scaler, {K})\n        backward(model(x).sum(), scaler, clip={K})",
    "scaler class": "        loss_scaler(model(x).sum(), optimizer, clip_grad={K}, update_grad=epoch % 2 == 0)",
}
ODD = ['"\\N{NOTACHAR}"', "'\\x'", "b'\\x'", "rb'\\N{x}'"]


def program(position: str, literal: str) -> str:
    source = _LOOP.replace("{setup}", POSITIONS[position]).replace("{in_loop}", IN_LOOP.get(position, ""))
    return source.replace("{K}", literal)


def lint_all(source: str) -> None:
    uncrashed(lint_bytes("train.py", source.encode("utf-8"), list(all_rules())), "train.py")


@pytest.mark.parametrize("literal", ODD)
@pytest.mark.parametrize("position", POSITIONS)
def test_no_rule_crashes_on_a_literal_cpython_refuses(position: str, literal: str) -> None:
    lint_all(program(position, literal))


def test_the_command_reports_no_crash_with_every_rule(tmp_path) -> None:
    for index, position in enumerate(POSITIONS):
        (tmp_path / f"train_{index}.py").write_text(program(position, ODD[0]), encoding="utf-8")
    code, _, err = invoke(".", "--select", "ALL", "--no-cache", cwd=tmp_path)
    assert code != 2 and "crashed" not in err, err


_BODY = st.lists(st.sampled_from(["a", "cpu", "params", "eval", "\\N{NOTACHAR}", "\\N{BULLET}", "\\x", "\\x41",
                                  "\\u12", "\\0", "\\\\", "\\'", "é", " "]), max_size=4).map("".join)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["", "b", "r", "rb", "u"]), _BODY, st.sampled_from(list(POSITIONS)))
def test_no_rule_crashes_on_any_literal(prefix: str, body: str, position: str) -> None:
    if "b" in prefix and not body.isascii():
        return  # a bytes literal holds ASCII only: LibCST refuses the file
    lint_all(program(position, f"{prefix}'{body}'"))
