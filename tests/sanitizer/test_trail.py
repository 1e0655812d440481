"""What the forward trail measures: every value a culprit search may need, and
nothing an activation function merely passed along."""
from __future__ import annotations

import io
import math
import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from sanitizer import Sanitizer
from sanitizer.core.probe import INPUT_SLOT, Gather, InputSource, StepProbe, dense_view


class Activated(nn.Module):
    """Hands an activation of its child's output to another child: nothing of its own."""

    def __init__(self, activation: str) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.0)
        self.activation = getattr(F, activation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.activation(self.fc(x)))


class Scaled(nn.Module):
    """Scales its child's output before the activation: its own computation."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(F.relu(self.fc(x) * 3.0))


class ActivatedInput(nn.Module):
    """An activation of something no module produced (the batch, scaled) is its own."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.tanh(x * self.fc.weight.sum()))


def traced_names(model: nn.Module) -> list[str | None]:
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        model(torch.randn(2, 4))  # the trail of the step being accumulated
        names = [session.slot_name(slot) for slot in session.probe.trail_slots]
    return names


@pytest.mark.parametrize("activation", ["relu", "gelu", "silu", "tanh", "sigmoid", "leaky_relu", "elu"])
def test_an_activation_of_a_traced_output_is_not_measured_again(activation: str) -> None:
    assert traced_names(Activated(activation)) == ["<input>", "fc"]


def test_a_modules_own_arithmetic_before_the_activation_is_measured() -> None:
    # the product is measured (under the model's own name: the root, "" in named_modules,
    # is named by its class), its ReLU is not
    assert traced_names(Scaled()) == ["<input>", "fc", "Scaled"]


def test_an_activation_of_an_untraced_value_is_measured() -> None:
    assert traced_names(ActivatedInput()) == ["<input>", "ActivatedInput", "fc"]


PERMUTATIONS = list(itertools.permutations(range(3)))


@pytest.mark.parametrize("order", PERMUTATIONS)
def test_dense_view_reads_every_element_of_a_permuted_tensor(order: tuple[int, ...]) -> None:
    base = torch.randn(3, 5, 7)
    base[1, 2, 3] = 1e30
    base[2, 4, 6] = -float("inf")
    permuted = base.permute(order)
    view = dense_view(permuted)
    assert view.is_contiguous()
    assert view.data_ptr() == base.data_ptr()  # a view: nothing copied
    assert torch.equal(torch.stack(torch.aminmax(view)), torch.stack(torch.aminmax(permuted)))


def test_dense_view_leaves_a_sliced_tensor_alone() -> None:
    sliced = torch.randn(6, 8)[:, ::2].t()
    assert dense_view(sliced) is sliced


class Checkpointed(nn.Module):
    """Two blocks run through activation checkpointing."""

    def __init__(self, reentrant: bool | None) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)) for _ in range(2))
        self.reentrant = reentrant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x) if self.reentrant is None else torch.utils.checkpoint.checkpoint(
                block, x, use_reentrant=self.reentrant)
        return x


@pytest.mark.parametrize("reentrant", [False, True], ids=["non-reentrant", "reentrant"])
def test_checkpointed_blocks_are_traced_once_in_forward_order(reentrant: bool) -> None:
    """The blocks' outputs are on the trail as without checkpointing (the reentrant
    variant runs them without gradients), and their recomputation inside the
    backward pass adds nothing."""
    model = Checkpointed(None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        optimizer.step()  # steps come from the optimizer: the probe lasts until the next one
        model(torch.randn(2, 4, requires_grad=True)).sum().backward()
        expected = [session.slot_name(slot) for slot in session.probe.trail_slots]
        session.probe.trail_slots.clear()
        model.reentrant = reentrant
        model(torch.randn(2, 4, requires_grad=True)).sum().backward()
        names = [session.slot_name(slot) for slot in session.probe.trail_slots]
    assert "blocks.1.1" in expected
    assert names == expected


class ReturnsLossFirst(nn.Module):
    """Returns its own logits with the loss, as `(loss, logits)` or as a dict (a Hugging
    Face `ModelOutput` is a dict): the loss comes first, the logits are its own."""

    def __init__(self, shape: str) -> None:
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 3)
        self.temperature = 1.0
        self.shape = shape

    def forward(self, x: torch.Tensor, labels: torch.Tensor):
        logits = self.head(self.body(x)) / self.temperature
        loss = F.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits} if self.shape == "dict" else (loss, logits)


@pytest.mark.parametrize("shape", ["dict", "tuple"])
def test_a_model_returning_its_loss_first_is_traced_by_its_logits(shape: str) -> None:
    torch.manual_seed(0)
    model = ReturnsLossFirst(shape)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for step in range(1, 6):
            model.temperature = 0.0 if step == 4 else 1.0  # the model's own division blows up
            out = model(torch.randn(8, 4), torch.randint(0, 3, (8,)))
            opt.zero_grad()
            (out["loss"] if shape == "dict" else out[0]).backward()
            opt.step()
    first = {}
    for event in session.events:
        first.setdefault(event.kind, event)
    activation = first["nonfinite_activation"]
    assert (activation.step, activation.module, activation.extra["culprit"]) == (4, "ReturnsLossFirst", "ReturnsLossFirst")
    assert first["nonfinite_loss"].module == "ReturnsLossFirst"
    # the model owns no parameter directly: the gradient named is the one backward reached first
    assert first["nonfinite_grad"].param in ("head.weight", "head.bias")


class MaskedAttention(nn.Module):
    """Hands scores masked with -inf to an `nn.Softmax` child: an Inf by design."""

    def __init__(self, width: int = 8, length: int = 6) -> None:
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.softmax = nn.Softmax(dim=-1)
        self.proj = nn.Linear(width, width)
        self.register_buffer("causal", torch.tril(torch.ones(length, length)).bool())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)).masked_fill(~self.causal, float("-inf"))
        return self.proj(self.softmax(scores) @ v)


class MaskedLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.attn = MaskedAttention()
        self.mlp = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
        self.head = nn.Linear(8, 10)
        self.gain = 1.0

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx)
        x = x + self.attn(x)
        return self.head(x + self.mlp(x) * self.gain)


def test_an_inf_by_design_is_neither_the_first_nonfinite_module_nor_the_culprit() -> None:
    """The attention's masked scores are Inf on every healthy step: when a NaN is
    born later (the model's own `* gain`), it is named, not the attention."""
    torch.manual_seed(0)
    model = MaskedLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for step in range(1, 9):
            model.gain = math.nan if step == 6 else 1.0
            idx = torch.randint(0, 10, (3, 6))
            loss = F.cross_entropy(model(idx).reshape(-1, 10), idx.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    first = {}
    for event in session.events:
        first.setdefault(event.kind, event)
    activation = first["nonfinite_activation"]
    assert (activation.step, activation.module, activation.extra["culprit"]) == (6, "MaskedLM", "MaskedLM"), activation
    assert first["nonfinite_loss"].module == "MaskedLM"


MAGNITUDE_CASES = [([1.0, -7.5, 3.0], 7.5), ([2.0, math.nan, -9.0], math.nan), ([math.nan, 4.0], math.nan),
                   ([-math.inf, 1.0], math.inf), ([0.0], 0.0)]


def _magnitudes(device: str) -> list[tuple[int, float]]:
    probe = StepProbe()
    for slot, (values, _) in enumerate(MAGNITUDE_CASES):
        for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
            probe.add_trail(slot, torch.tensor(values, dtype=dtype, device=device))
    gather = Gather()
    gather.add("trail", probe.trail_values)
    return probe.trail(gather.read()["trail"])


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA device"))])
def test_each_traced_output_is_its_largest_magnitude_nan_first(device: str) -> None:
    expected = [(slot, magnitude) for slot, (_, magnitude) in enumerate(MAGNITUDE_CASES) for _ in range(4)]
    found = _magnitudes(device)
    assert [slot for slot, _ in found] == [slot for slot, _ in expected]
    for (_, value), (_, magnitude) in zip(found, expected):
        assert (math.isnan(value) and math.isnan(magnitude)) or value == magnitude


def test_a_nan_at_either_end_of_a_slot_wins_over_a_larger_number() -> None:
    probe = StepProbe(trail_slots=[3, 4, 5], trail_widths=[2, 1, 2])
    found = probe.trail([1.0, math.nan, -2.0, math.nan, 5.0])
    assert found[1] == (4, 2.0) and math.isnan(found[0][1]) and math.isnan(found[2][1])


class SparseGraph(nn.Module):
    """A graph layer fed sparse node features, returning sparse values from one child."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 3)
        self.sparsify = Sparsify()

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        h = torch.sparse.mm(x, self.lin.weight.t()) + self.lin.bias
        return torch.sparse.mm(adj, self.sparsify(h).to_dense())


class Sparsify(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.to_sparse()


def test_sparse_inputs_are_measured_by_their_values_and_sparse_outputs_left_off() -> None:
    """A sparse batch is traced by its stored values (no reduction runs on its layout);
    a sparse output is left off the trail."""
    torch.manual_seed(0)
    adj = torch.sparse_coo_tensor(torch.randint(0, 20, (2, 60)), torch.ones(60), (20, 20),
                                  check_invariants=True).coalesce()
    x, y = (torch.rand(20, 8) < 0.3).float().to_sparse(), torch.randint(0, 3, (20,))
    model = SparseGraph()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Sanitizer(report=None, stream=io.StringIO(), lint=False) as session:
        for _ in range(3):
            loss = F.cross_entropy(model(x, adj), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert session.steps == 3 and session.events == []


@pytest.mark.parametrize("bad", [None, "trail", "loss"])
def test_a_later_closure_call_leaves_the_trail_as_it_found_it_unless_something_was_non_finite(bad: str | None) -> None:
    """LBFGS's calls of the closure after the measured one: a finite call is dropped from
    the trail (its batch, its masks and what they count), one with a NaN or Inf stays."""
    probe = StepProbe()
    probe.add_trail(INPUT_SLOT, torch.ones(3))
    probe.input_sources.append(InputSource("a.py:1", None, ()))
    probe.add_trail(0, torch.ones(2))
    before = (list(probe.trail_slots), list(probe.trail_widths), len(probe.trail_values), list(probe.input_sources))
    mark = probe.mark()
    probe.add_trail(INPUT_SLOT, torch.ones(3))
    probe.input_sources.append(InputSource("a.py:1", None, ()))
    mask = torch.zeros(2)
    probe.traced_inputs[id(mask)] = (None, 0)
    probe.add_trail(INPUT_SLOT, mask, signed=True)
    probe.input_sources.append(InputSource("a.py:1", None, (1,)))
    probe.add_trail(0, torch.tensor([1.0, math.nan if bad == "trail" else 2.0]))
    probe.losses.append(torch.tensor(math.inf if bad == "loss" else 0.5))
    probe.settle_call(mark)
    after = (list(probe.trail_slots), list(probe.trail_widths), len(probe.trail_values), list(probe.input_sources))
    if bad is None:
        assert after == before and probe.signed_entries == [] and id(mask) not in probe.traced_inputs
    else:
        assert len(after[0]) == 5 and len(after[3]) == 3 and probe.signed_entries == [3]
    assert len(probe.losses) == 1  # the losses stay: only the trail is settled
