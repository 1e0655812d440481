"""Device-side measurements of one step, read back with a single transfer.

Everything a step needs (losses, the per-module magnitude trail, gradient and
parameter norms, the loss scale...) is gathered as 0-d tensors on their device
and read together in `read()`: one host-device synchronization per step.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, NamedTuple

import torch

from sanitizer.core.loss_calls import LossCall
from sanitizer.core.sources import Origin
from sanitizer.distributed.ranks import local_values

INPUT_SLOT = -1  # trail slot of the batch fed to the outermost module
MAX_TRAIL = 4096  # trail entries kept per step (grad-enabled forwards beyond are not traced)
# outermost eval-mode calls with gradients kept per step, one per call site and model: a bound
# on memory only (a script calls its models from a few lines; a recurrent cell called at each
# timestep is one), the oldest dropped past it
MAX_EVAL_MODE_CALLS = 64
MAX_CALL_NODES = 64  # output nodes kept of one call site's calls of a model in a step: its latest calls'
MAX_OUTPUT_TENSORS = 8  # tensors of one call's output whose nodes are kept (`(logits, aux)`, a ModelOutput)


MAX_LOSS_TERMS = 8  # functional losses kept per backward pass, the latest (see ComputedLoss)


class LossTerm(NamedTuple):
    """A training loss a functional loss returned: its value (detached), its tensor version
    then (a later in-place op, `loss /= n`, changes what the value shows), its call and line."""

    value: torch.Tensor
    version: int
    call: LossCall
    site: str | None


class ComputedLoss(NamedTuple):
    """A loss backward ran on that no functional loss returned, computed from those called
    since the previous backward pass (`loss = loss_sum / n_tokens`, `ce + lam * penalty`):
    the latest MAX_LOSS_TERMS of them, whether earlier ones were left out, and the innermost
    user frame's code and instruction at the backward call (its line is found only when an
    event needs it: every step pays for two references, no more)."""

    terms: tuple[LossTerm, ...]
    left_out: bool
    backward_at: tuple[CodeType, int] | None


class InputSource(NamedTuple):
    """Of a batch on the trail: where a model was given it, and which argument it was."""

    site: str | None
    model: Any  # a weak reference to the model
    argument: tuple[Any, ...]  # see core/inputs.py (ArgumentPath)


@dataclass
class EvalModeCall:
    """The outermost calls of a model in eval mode with gradients on from one site in a
    step: where they were made, a weak reference to the model, and the autograd nodes of
    the tensors their outputs hold (of each tuple, list, dict or dataclass item: the loss
    may read any of them, `logits, aux = model(x)`), as (sequence number, name): a node
    takes no weak reference, and holding it would keep the graph alive. `returned`:
    whether the latest of the calls has returned."""

    site: str | None
    model: Any
    nodes: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=MAX_CALL_NODES))
    returned: bool = False


def node_key(node: Any) -> tuple[int, str] | None:
    """An autograd node as (sequence number, name): the same for every wrapper of it,
    and holding nothing of its graph."""
    sequence_nr = getattr(node, "_sequence_nr", None)
    return (sequence_nr(), node.name()) if sequence_nr is not None else None


class BuiltInForward(NamedTuple):
    """A module with trainable parameters first called inside the forward of a module
    called at an earlier step, which holds no such child (see core/built_layers.py)."""

    parent: Any  # a weak reference to the module whose forward called it
    layer: str  # its class name
    site: str | None  # the line calling it
    params: list[Any]  # weak references to its trainable parameters: an optimizer keeps them alive


class UpdatedParams(NamedTuple):
    """An optimizer's parameters as its `step()` left them: measured right after the
    update (queued, not read: the next step's single read reads them), so that a
    NaN the update wrote is told apart from one code outside the optimizer wrote."""

    step: int  # the step whose update it was
    site: str | None  # the line that called `step()`
    params: list[torch.Tensor]
    norms: list[float]  # their L2 norms; empty until read
    # those it held without a gradient as its step() began (None: not measured), and their
    # largest magnitude then (read with `norms`; NaN or Inf exactly when a value was): torch's
    # optimizers leave such a parameter as it was, a hand-written one may treat the missing
    # gradient as zero, or decay it
    without_grad: list[torch.Tensor] | None
    largest_before: list[float]
    # True when the optimizer is one of torch's that skip a parameter without a gradient: those
    # are as the update found them, so their norms after it stand for their magnitudes before
    # (non-finite exactly when those were), and nothing more was measured as the step began
    left_as_found: bool = False
    # the script's step hooks that ran around that step() (`name (file:line)`): a value
    # read after it may be theirs as well as the update's
    step_hooks: tuple[str, ...] = ()


class Gather:
    """0-d tensors queued under names, read back as Python floats in one go."""

    def __init__(self) -> None:
        self._tensors: list[torch.Tensor] = []
        self._spans: dict[str, tuple[int, int]] = {}

    def add(self, name: str, tensors: list[torch.Tensor] | tuple[torch.Tensor, ...]) -> None:
        start = len(self._tensors)
        self._tensors.extend(tensors)
        self._spans[name] = (start, len(self._tensors))

    def read(self) -> dict[str, list[float]]:
        values = _read_floats(self._tensors)
        return {name: values[start:stop] for name, (start, stop) in self._spans.items()}


def _read_floats(tensors: list[torch.Tensor]) -> list[float]:
    if not tensors:
        return []
    tensors = local_values(tensors)  # FSDP's DTensor shards: this rank's part, no collective
    if all(tensor.is_cpu for tensor in tensors):
        # no transfer to save on CPU: `float()` is exact for every dtype, and each is
        # a cheaper call than a stack (whose kernel is cold between a step's big ops)
        return [float(tensor) for tensor in tensors]
    first = tensors[0]
    if first.dtype in _READ_DTYPES and all(t.dtype == first.dtype and t.device == first.device for t in tensors):
        return torch.stack(tensors).tolist()  # the usual step: one dtype, one device
    groups: dict[tuple[torch.device, torch.dtype], list[int]] = {}
    for index, tensor in enumerate(tensors):
        groups.setdefault((tensor.device, tensor.dtype), []).append(index)
    per_device: dict[torch.device, list[tuple[list[int], torch.Tensor]]] = {}
    for (device, dtype), indices in groups.items():
        stacked = torch.stack([tensors[i] for i in indices]).to(_read_dtype(dtype))
        per_device.setdefault(device, []).append((indices, stacked))
    values = [0.0] * len(tensors)
    for parts in per_device.values():
        wide = max((stacked.dtype for _, stacked in parts), key=lambda dtype: dtype.itemsize)
        flat = torch.cat([stacked.to(wide) for _, stacked in parts]).tolist()  # the one sync per device
        offset = 0
        for indices, stacked in parts:
            for i, value in zip(indices, flat[offset:offset + len(indices)]):
                values[i] = value
            offset += len(indices)
    return values


_READ_DTYPES = (torch.float32, torch.float64)  # read as they are


def _read_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 values are read as float64 (their range), everything else as float32."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def inexact(tensor: torch.Tensor) -> bool:
    """Whether `tensor` holds values that can be NaN or Inf: real floating-point or complex."""
    return tensor.is_floating_point() or tensor.is_complex()


def real_view(tensor: torch.Tensor) -> torch.Tensor:
    """A complex tensor's real and imaginary parts as a real tensor (`view_as_real`, no
    copy unless its conjugate bit is set); any other tensor as it is. Its L2 norm is the
    complex tensor's, and it is NaN or Inf where either part is: norms of complex
    tensors are real, and the reductions that cannot take complex values can take it."""
    return torch.view_as_real(tensor.resolve_conj()) if tensor.is_complex() else tensor


def norms(tensors: list[torch.Tensor], order: float = 2) -> list[torch.Tensor]:
    """Per-tensor norms as 0-d tensors: float32, or float64 for float64 tensors
    (complex ones as their real and imaginary parts, see `real_view`).

    `_foreach_norm` cannot narrow float64 to float32, and a float64 model's
    values may not fit float32 anyway: each dtype family gets its own call.
    """
    tensors = [real_view(t) for t in tensors]
    result: list[torch.Tensor] = []
    placed: list[int] = []
    for dtype in (torch.float32, torch.float64):
        indices = [i for i, t in enumerate(tensors) if _read_dtype(t.dtype) == dtype]
        if indices:
            placed.extend(indices)
            result.extend(torch._foreach_norm([tensors[i] for i in indices], order, dtype=dtype))
    by_index = dict(zip(placed, result))
    return [by_index[i] for i in range(len(tensors))]


def squared_norms(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    """Per-tensor squared L2 norms as 0-d tensors, the cheapest way per device.

    On CPU a BLAS dot product of fp32 values is about twice as fast as
    `_foreach_norm`; elsewhere (and for 16-bit values, whose dot would overflow)
    the fused `_foreach_norm` is used (complex values too, see `norms`). NaN and Inf
    propagate either way.
    """
    tensors = local_values(tensors)  # FSDP's DTensor gradients: this rank's shard, no collective
    if all(t.is_cpu and t.dtype is torch.float32 for t in tensors):
        return [torch.dot(flat, flat) for flat in (t.reshape(-1) for t in tensors)]
    return list(torch._foreach_pow(norms(tensors), 2))


def largest_magnitudes(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    """Per-tensor largest absolute value as 0-d tensors: NaN or Inf exactly when a value
    is (a squared norm is Inf for huge finite values too)."""
    return norms(local_values(tensors), math.inf)  # FSDP's DTensor shards: this rank's part


def norms_from_squares(tensors: list[torch.Tensor], squares: list[float]) -> list[float]:
    """L2 norms from the squared norms read back for `tensors` (in order).

    A float32 square overflows to Inf once a norm passes about 1.8e19, though every
    value is finite (a weight of 1e30 is still a number). Only such tensors are
    measured again, accumulating in float64, so an Inf norm means an Inf value.
    `tensors` may be empty when they are gone (gradients freed inside backward):
    the squares are then taken as they are.
    """
    result = [math.sqrt(value) for value in squares]
    again = [i for i, value in enumerate(squares) if value == math.inf and i < len(tensors)]
    if again:
        exact = [torch.linalg.vector_norm(real_view(tensor), dtype=torch.float64)
                 for tensor in local_values([tensors[i] for i in again])]
        for i, value in zip(again, _read_floats(exact)):
            result[i] = value
    return result


@dataclass
class StepProbe:
    """What the hooks collected since the last step closed."""

    losses: list[torch.Tensor] = field(default_factory=list)
    loss_sites: list[str | None] = field(default_factory=list)
    trail_slots: list[int] = field(default_factory=list)
    trail_widths: list[int] = field(default_factory=list)  # how many of trail_values each slot has
    trail_half: list[bool] = field(default_factory=list)  # whether each entry's tensor is float16
    trail_values: list[torch.Tensor] = field(default_factory=list)
    graph_roots: list[Any] = field(default_factory=list)
    model_site: str | None = None
    # of each INPUT_SLOT entry of the trail, in order: where the model was called, a weak
    # reference to it (a GAN's discriminator fed the real batch after the generator ran)
    # and which of its arguments it is (see core/inputs.py)
    input_sources: list[InputSource] = field(default_factory=list)
    # arguments beside the batch already on the trail this step, by id: (the tensor, its
    # version); one handed to every call (a bias, a mask) is measured once per step
    traced_inputs: dict[int, tuple[Any, int]] = field(default_factory=dict)
    # trail entries whose two values are a minimum and a maximum, not two magnitude ends
    # (`add_trail(signed=True)`)
    signed_entries: list[int] = field(default_factory=list)
    # (kind, per-element mean, where the data of its forward came from)
    eval_losses: list[tuple[str, torch.Tensor, Origin]] = field(default_factory=list)
    eval_site: str | None = None  # where the first of them was computed
    # the largest magnitude of each per-sample loss vector an evaluation computed
    eval_magnitudes: list[torch.Tensor] = field(default_factory=list)
    loss_kinds: list[str | None] = field(default_factory=list)  # of `losses`, None when unknown
    loss_calls: list[LossCall | None] = field(default_factory=list)  # of `losses`: the call that made each
    computed_losses: list[ComputedLoss | None] = field(default_factory=list)  # of `losses`: what each came from
    model_in_eval_mode: Any = None  # the model whose eval-mode forward a training loss came from
    eval_mode_site: str | None = None  # where that forward was called
    # the latest outermost calls in eval mode with gradients on (a validation pass, a
    # metric, the training call): which one a loss came from is asked when reported
    eval_mode_calls: dict[tuple[str | None, int], EvalModeCall] = field(default_factory=dict)  # by (site, model id)
    # modules called in eval mode with gradients on, each with the outermost module it ran in
    eval_called: dict[Any, Any] = field(default_factory=dict)
    # weak references to the models called outermost without gradients (a teacher, an EMA copy)
    nograd_models: list[Any] = field(default_factory=list)
    # optimizers stepped inside the backward pass (one per parameter, from gradient hooks):
    # their gradients are gone when the pass ends, so each is read as its optimizer steps
    stepped_params: list[torch.Tensor] = field(default_factory=list)
    stepped_squares: list[torch.Tensor] = field(default_factory=list)
    # leading size of each batch a model's outermost training forward was given (several
    # with micro-batches): a step on a short batch (an epoch's last) is judged apart
    batch_sizes: list[int] = field(default_factory=list)
    # gradients of the stepping optimizer as each backward pass since its previous step
    # found them (see core/clearing.py), each with its parameter; and whether others were cleared
    kept: tuple[list[tuple[list[torch.Tensor], Any]], bool] | None = None
    built_in_forward: list[BuiltInForward] = field(default_factory=list)
    # each model's buffers as its first training forward of the step began (BufferMeasure), and the models' ids
    buffers: list[Any] = field(default_factory=list)
    buffers_measured: set[int] = field(default_factory=set)
    # the step before this one found non-finite gradients: its update broke the weights,
    # and a closure's later calls of that step (see `settle_call`) are non-finite for it
    after_nonfinite: bool = False

    def add_trail(self, slot: int, tensor: torch.Tensor, signed: bool = False) -> bool:
        """Put `tensor`'s magnitude on the trail; False once the trail is full. `signed`:
        its minimum and maximum on every device, which tell an additive mask (see
        `additive_masks`) at no further cost."""
        if len(self.trail_slots) >= MAX_TRAIL:
            return False
        view = dense_view(tensor.detach())
        if signed:
            self.signed_entries.append(len(self.trail_slots))
            ends = tuple(torch.aminmax(real_view(view)))
        else:
            ends = magnitude_ends(view)
        self.trail_slots.append(slot)
        self.trail_widths.append(len(ends))
        self.trail_half.append(tensor.dtype is torch.float16)
        self.trail_values.extend(ends)
        return True

    def mark(self) -> TrailMark:
        """Where the trail and the losses stand now (see `settle_call`)."""
        return TrailMark(len(self.trail_slots), len(self.trail_values), len(self.losses), set(self.traced_inputs))

    def settle_call(self, mark: TrailMark) -> None:
        """A call of a closure (LBFGS calls it up to `max_iter` times a step), begun at
        `mark`, ended: its trail entries are dropped when they and its losses are all
        finite. The calls after the one a step is measured on are forwards of that step
        at points its line search left behind; kept, a dozen of them fill the trail
        before the next step's own forward, whose culprit (a NaN batch) then goes
        unseen. One that holds a NaN or Inf is kept: the first culprit stays first;
        unless the step it belongs to already found its gradients non-finite (a NaN batch,
        reported at that step): then its update broke the weights, every later call is
        non-finite for that, and kept, the first of them (that step's batch again) would
        stand before the next step's own forward, where the broken weights first make a
        module's output non-finite, as in a loop without a closure.
        Its values are read once (LBFGS itself reads each loss, `float(closure())`)."""
        values = self.trail_values[mark.values:]
        if not values or not (self.after_nonfinite or _all_finite(values + self.losses[mark.losses:])):
            return
        entries = mark.entries
        del self.trail_slots[entries:], self.trail_widths[entries:], self.trail_half[entries:]
        del self.trail_values[mark.values:]
        self.signed_entries = [index for index in self.signed_entries if index < entries]
        del self.input_sources[sum(1 for slot in self.trail_slots if slot == INPUT_SLOT):]
        for key in [key for key in self.traced_inputs if key not in mark.traced]:
            del self.traced_inputs[key]  # measured again by the next call

    def trail(self, values: list[float]) -> list[tuple[int, float]]:
        """(slot, largest absolute value) per traced output, from `trail_values` read back."""
        result, start = [], 0
        for slot, width in zip(self.trail_slots, self.trail_widths):
            magnitudes = [abs(value) for value in values[start:start + width]]
            start += width
            result.append((slot, math.nan if any(math.isnan(m) for m in magnitudes) else max(magnitudes)))
        return result

    def additive_masks(self, values: list[float]) -> set[int]:
        """The signed trail entries whose values are an additive attention mask: 0 where
        a position is kept, down to -inf where it is masked out (a causal mask of
        `nn.Transformer.generate_square_subsequent_mask`), `values` as for `trail`.
        Their -inf is the model's design, not bad data."""
        if not self.signed_entries:
            return set()
        starts = [0]
        for width in self.trail_widths:
            starts.append(starts[-1] + width)
        return {index for index in self.signed_entries
                if values[starts[index]:starts[index] + 2] == [-math.inf, 0.0]}


class TrailMark(NamedTuple):
    """A point of a step's probe: trail entries, trail values and losses so far, and
    the arguments beside the batch traced so far (see `StepProbe.settle_call`)."""

    entries: int
    values: int
    losses: int
    traced: set[int]


def _all_finite(tensors: list[torch.Tensor]) -> bool:
    """Whether every one of these 0-d tensors is finite: one reduction and one read per
    device and dtype."""
    groups: dict[tuple[torch.device, torch.dtype], list[torch.Tensor]] = {}
    for tensor in local_values(tensors):
        groups.setdefault((tensor.device, tensor.dtype), []).append(tensor)
    return all(bool(torch.stack(group).isfinite().all()) for group in groups.values())


def magnitude_ends(tensor: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """0-d tensors whose largest absolute value is the tensor's (NaN if it holds one).

    On CPU, its minimum and maximum: one vectorized pass, where the inf-norm is
    not vectorized (about 20 times slower on an activation of 512 KB). On a GPU,
    the inf-norm: one reduction with one output, whose launch takes the host 20 us
    against 28 for `aminmax` (H200, `bench/sanitizer_profile.py`), paid once per
    traced module and step. A complex tensor's are those of its parts (`real_view`)."""
    tensor = real_view(tensor)
    if tensor.is_cpu:
        return torch.aminmax(tensor)
    return (torch.linalg.vector_norm(tensor, math.inf),)


def dense_view(tensor: torch.Tensor) -> torch.Tensor:
    """The same elements in memory order when `tensor` is a transposed view of dense
    storage (attention outputs often are): a reduction over every element runs
    about twice as fast on it, and the order of the elements does not change it."""
    if tensor.dim() < 2 or tensor.is_contiguous():
        return tensor
    permuted = tensor.permute(sorted(range(tensor.dim()), key=tensor.stride, reverse=True))
    return permuted if permuted.is_contiguous() else tensor


@dataclass
class StepRecord:
    """Host-side values of one step, handed to every detector's `on_step`."""

    step: int
    skipped: bool
    partial: bool
    losses: list[float]
    loss_sites: list[str | None]
    trail: list[tuple[int, float]]  # (slot, abs-max magnitude) in forward completion order
    model_site: str | None
    params: list[torch.Tensor]  # parameters with a gradient, in optimizer order
    grad_norms: list[float]
    grad_norm: float | None
    checked_params: list[torch.Tensor]
    param_norms: list[float]
    param_step: int | None  # the step whose update produced `param_norms`
    scale: float | None
    underflow: float | None  # share of gradient values fp16 flushed to zero (sampled steps under fp16)
    eval_loss: float | None
    data_wait: float
    step_time: float | None
    memory_bytes: float | None
    graph_roots: list[Any]
    training_params: list[torch.Tensor] = field(default_factory=list)
    eval_kind: str | None = None  # the kind of loss `eval_loss` is (see core/loss_calls.py)
    # without a comparable validation loss: the largest magnitude of the per-sample losses
    # an evaluation computed (NaN when one was), for the non-finite check only
    eval_magnitude: float | None = None
    loss_kinds: list[str | None] = field(default_factory=list)
    loss_calls: list[LossCall | None] = field(default_factory=list)
    model_in_eval_mode: Any = None  # an nn.Module, when the step trained a model in eval mode
    eval_mode_site: str | None = None  # where its forward was called
    eval_mode_calls: dict[tuple[str | None, int], EvalModeCall] = field(default_factory=dict)  # see StepProbe
    # the modules the step's forwards called in eval mode, each with the outermost module
    # it ran in (None: not known)
    eval_called: Any = None
    nograd_models: Any = None  # weak references to the models run without gradients in the step
    optimizer_id: int | None = None  # which optimizer stepped (several: GANs, multi-model runs)
    lr: float | None = None  # its first parameter group's learning rate when it is a number
    param_groups: int | None = None  # how many parameter groups it has (`add_param_group` adds one)
    joins_previous: bool = False  # another optimizer's part of the step just ended (same backward pass)
    tiny_share: float | None = None  # share below the fp16 normal range (zeros included), when sampled
    batch_items: int | None = None  # items the step's training forwards were given, when known
    # a parameter whose gradient the optimizer applied again: no backward pass since its
    # previous step started from cleared gradients; and the line that stepped
    kept_gradient: torch.Tensor | None = None
    kept_beside_cleared: bool = False  # while other gradients of it were cleared (a partial clear)
    step_site: str | None = None
    eval_site: str | None = None  # where the step's first validation loss was computed
    # of each batch on the trail (INPUT_SLOT entries, in order): where the model was called
    # with it, a weak reference to that model and the argument (see StepProbe.input_sources)
    input_sources: list[InputSource] = field(default_factory=list)
    # trail entries that are additive attention masks: -inf there is by design
    masks: set[int] = field(default_factory=set)
    trail_half: list[bool] = field(default_factory=list)  # per trail entry: a float16 tensor
    # the parameters as the updates since the previous step's read left them (see UpdatedParams)
    updates: list[UpdatedParams] = field(default_factory=list)
    by_hand: bool = False  # no optimizer: the script updates the weights itself between backward passes
    built_in_forward: list[BuiltInForward] = field(default_factory=list)
    loss_dtypes: list[torch.dtype] = field(default_factory=list)  # of `losses`
    # buffers that turned non-finite since the previous step's forward (NonfiniteBuffer)
    nonfinite_buffers: list[Any] = field(default_factory=list)
    computed_losses: list[ComputedLoss | None] = field(default_factory=list)  # see StepProbe

    @property
    def loss(self) -> float | None:
        return sum(self.losses) / len(self.losses) if self.losses else None
