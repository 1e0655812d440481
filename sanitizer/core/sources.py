"""Where the data of a model's outermost forward came from, so that an evaluation
on the training data is not taken for validation.

Scripts often evaluate on the training set and then on the validation set
between two steps, to print both accuracies. Both passes run in eval mode
without gradients; only their data tells them apart:

- the forwards after a DataLoader returned a batch, while its iterator lives
  (the body of `for batch in loader:`) and until a step, read the loader's
  dataset, and a dataset that fed training forwards is training data (an
  evaluation loader made over `train_dataset` included);
- a tensor given directly is training data when its elements overlap those the
  training forwards were given (`x[i:i + 16]` to train, `x` to evaluate), and
  other data when they do not (`X[:800]` to train, `X[800:]` to validate);
- in a full-batch run the same whole tensor is given to train and to evaluate
  (a graph's node features; the train and validation masks are applied to the
  output), so the input does not tell: one such evaluation between two steps is
  kept, several (one per mask) are not used at all.

Fresh tensors (a batch stacked anew for each call) tell nothing: their
evaluation is kept. Tensors, iterators and datasets are held by weak reference
(a dataset that cannot have one, such as a plain list, by a strong one).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Callable

import torch

TRAIN, SAME, OTHER = "train", "same", "other"
MAX_BASES = 64  # tensors whose training extent is remembered (dead ones are dropped first)


@dataclass(frozen=True)
class Origin:
    """What an evaluation forward was given: training data, the very input of the
    training forwards (full batch), or other data; `forward` numbers the forward."""

    what: str
    forward: int


@dataclass
class _Extent:
    """The storage elements the training forwards read from one tensor's storage."""

    ref: weakref.ref[torch.Tensor]
    low: int
    high: int
    same: bool  # every training forward was given exactly these elements


class DataSources:
    def __init__(self) -> None:
        # the iterator that returned the latest batch, and its loader's dataset
        self._fetched: tuple[weakref.ref[Any], Callable[[], Any]] | None = None
        self._datasets: dict[int, Callable[[], Any]] = {}  # datasets that fed training forwards
        self._extents: dict[int, _Extent] = {}  # by id of the storage's base tensor
        self._forwards = 0
        self.latest = Origin(OTHER, 0)  # of the latest evaluation forward

    def loader_returned(self, iterator: Any) -> None:
        dataset = getattr(iterator, "_dataset", None)
        self._fetched = (weakref.ref(iterator), _ref(dataset)) if dataset is not None else None

    def loader_ended(self) -> None:
        self._fetched = None

    step_closed = loader_ended  # the batch was trained on: what follows may not read it

    def training_forward(self, batch: torch.Tensor | None) -> None:
        dataset = self._dataset()
        if dataset is not None:
            if not self._trained_on(dataset):
                self._datasets[id(dataset)] = _ref(dataset)
            return
        if batch is None or batch.numel() == 0:
            return
        base = _base(batch)
        low, high = _span(batch)
        extent = self._extents.get(id(base))
        if extent is not None and extent.ref() is base:
            extent.same = extent.same and (low, high) == (extent.low, extent.high)
            extent.low, extent.high = min(extent.low, low), max(extent.high, high)
            return
        if len(self._extents) >= MAX_BASES:
            self._extents = {key: kept for key, kept in self._extents.items() if kept.ref() is not None}
            if len(self._extents) >= MAX_BASES:
                return
        self._extents[id(base)] = _Extent(weakref.ref(base), low, high, True)

    def evaluation_forward(self, batch: torch.Tensor | None) -> None:
        self._forwards += 1
        self.latest = Origin(self._origin(batch), self._forwards)

    def _origin(self, batch: torch.Tensor | None) -> str:
        dataset = self._dataset()
        if dataset is not None:
            return TRAIN if self._trained_on(dataset) else OTHER
        if batch is None or batch.numel() == 0:
            return OTHER
        base = _base(batch)
        extent = self._extents.get(id(base))
        if extent is None or extent.ref() is not base:
            return OTHER
        low, high = _span(batch)
        if high <= extent.low or low >= extent.high:
            return OTHER
        return SAME if extent.same and (low, high) == (extent.low, extent.high) else TRAIN

    def _trained_on(self, dataset: Any) -> bool:
        known = self._datasets.get(id(dataset))
        return known is not None and known() is dataset

    def _dataset(self) -> Any:
        """The dataset of the batch being worked on: the latest a loader returned, if its iterator lives."""
        if self._fetched is None:
            return None
        iterator, dataset = self._fetched
        if iterator() is None:
            self._fetched = None
            return None
        return dataset()


def kept_for_validation(origins: list[Origin]) -> list[bool]:
    """Which of a step's evaluation losses (by the origin of their forward) may stand
    for validation: none on training data, and full-batch ones only when a single
    forward gave them (several are evaluations under different masks)."""
    same_forwards = {origin.forward for origin in origins if origin.what == SAME}
    return [origin.what == OTHER or (origin.what == SAME and len(same_forwards) == 1) for origin in origins]


def _base(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor that owns `tensor`'s storage (itself, unless it is a view)."""
    return tensor._base if tensor._base is not None else tensor


def _span(tensor: torch.Tensor) -> tuple[int, int]:
    """The range of storage elements `tensor` can reach (its first and one past its last)."""
    offset = tensor.storage_offset()
    reach = sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride()))
    return offset, offset + reach + 1


def _ref(value: Any) -> Callable[[], Any]:
    """A weak reference, or (for what cannot have one: a list given as a dataset) a strong one."""
    try:
        return weakref.ref(value)
    except TypeError:
        return lambda: value
