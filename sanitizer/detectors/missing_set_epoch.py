"""A shuffling DistributedSampler trained on again without `set_epoch`: every epoch
repeats the first epoch's order (the run-time twin of lint rule TL302).

The sampler's `__iter__` and `set_epoch` are wrapped by `sanitizer.distributed.ranks`.
An iteration is an epoch only once the run trains on it, i.e. once a step ends
after it began: a peek such as `next(iter(loader))` to print a batch size,
followed by `set_epoch` and the real loop, is not an epoch of its own. At the
first step of each training pass its epoch is compared with the previous pass's.
Samplers built with `shuffle=False` do not depend on the epoch and are not checked.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sanitizer.core import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.probe import StepRecord
    from sanitizer.core.sink import Sink


@dataclass
class PendingPass:
    """The latest iteration of a sampler, not yet trained on."""

    epoch: Any  # `sampler.epoch` when it was iterated
    where: str | None  # the line that iterated it


@dataclass
class SamplerUse:
    """How the run used one sampler so far."""

    passes: int = 0  # iterations the run trained on (epochs)
    last_epoch: Any = None  # `sampler.epoch` of the latest of them
    set_epoch_called: bool = False
    reported: bool = False
    pending: PendingPass | None = None


class MissingSetEpochDetector(Detector):
    name = "missing_set_epoch"
    kinds = ("missing_set_epoch",)

    def __init__(self) -> None:
        self.samplers_seen = 0
        self.reported = 0
        self._samplers: weakref.WeakKeyDictionary[Any, SamplerUse] = weakref.WeakKeyDictionary()
        self._pending: weakref.WeakSet[Any] = weakref.WeakSet()

    def on_set_epoch(self, sampler: Any, sink: Sink) -> None:
        self._use(sampler).set_epoch_called = True

    def on_sampler_iter(self, sampler: Any, sink: Sink) -> None:
        if not getattr(sampler, "shuffle", True):
            return
        self._use(sampler).pending = PendingPass(getattr(sampler, "epoch", None), locations.user_site())
        self._pending.add(sampler)

    def on_step(self, record: StepRecord, sink: Sink) -> None:
        if not self._pending or record.partial:
            return
        for sampler in list(self._pending):
            use = self._use(sampler)
            if use.pending is not None:
                self._trained_on(use, use.pending, record.step, sink)
            use.pending = None
        self._pending.clear()

    def _trained_on(self, use: SamplerUse, trained: PendingPass, step: int, sink: Sink) -> None:
        repeated = use.passes > 0 and trained.epoch == use.last_epoch
        use.passes += 1
        use.last_epoch = trained.epoch
        if not repeated or use.reported:
            return
        use.reported = True
        self.reported += 1
        if use.set_epoch_called:
            message = (f"training epoch {use.passes} iterates the DistributedSampler with the same epoch "
                       f"({trained.epoch}) as the epoch before: set_epoch was called, but not with a new "
                       f"epoch, so this epoch repeats the previous one's order")
        else:
            message = (f"training epoch {use.passes} iterates the DistributedSampler but set_epoch was "
                       f"never called: every epoch repeats the same shuffled order on every rank")
        sink.emit("missing_set_epoch", step, message, where=trained.where,
                  extra={"iteration": use.passes, "epoch": trained.epoch,
                         "set_epoch_called": use.set_epoch_called})

    def _use(self, sampler: Any) -> SamplerUse:
        use = self._samplers.get(sampler)
        if use is None:
            use = self._samplers[sampler] = SamplerUse()
            self.samplers_seen += 1
        return use
