"""A shuffling DistributedSampler iterated again without `set_epoch`: every epoch
repeats the first epoch's order (the run-time twin of lint rule TL302).

The sampler's `__iter__` and `set_epoch` are wrapped by `sanitizer.distributed.ranks`;
this detector sees each new iteration (one per epoch) and whether the epoch
changed since the previous one. Samplers built with `shuffle=False` do not
depend on the epoch and are not checked.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sanitizer.core import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.core.sink import Sink


@dataclass
class SamplerUse:
    """How the run used one sampler so far."""

    iterations: int = 0
    last_epoch: Any = None  # `sampler.epoch` when it was last iterated
    set_epoch_called: bool = False
    reported: bool = False


class MissingSetEpochDetector(Detector):
    name = "missing_set_epoch"
    kinds = ("missing_set_epoch",)

    def __init__(self) -> None:
        self.samplers_seen = 0
        self.reported = 0
        self._samplers: weakref.WeakKeyDictionary[Any, SamplerUse] = weakref.WeakKeyDictionary()

    def on_set_epoch(self, sampler: Any, sink: Sink) -> None:
        self._use(sampler).set_epoch_called = True

    def on_sampler_iter(self, sampler: Any, sink: Sink) -> None:
        if not getattr(sampler, "shuffle", True):
            return
        use = self._use(sampler)
        epoch = getattr(sampler, "epoch", None)
        repeated = use.iterations > 0 and epoch == use.last_epoch
        use.iterations += 1
        use.last_epoch = epoch
        if not repeated or use.reported:
            return
        use.reported = True
        self.reported += 1
        if use.set_epoch_called:
            message = (f"DistributedSampler iterated again with the same epoch ({epoch}): "
                       f"set_epoch was called, but not with a new epoch, so this epoch repeats "
                       f"the previous one's order")
        else:
            message = (f"DistributedSampler iterated for epoch {use.iterations} but set_epoch was "
                       f"never called: every epoch repeats the same shuffled order on every rank")
        sink.emit("missing_set_epoch", sink.step, message, where=locations.user_site(),
                  extra={"iteration": use.iterations, "epoch": epoch,
                            "set_epoch_called": use.set_epoch_called})

    def _use(self, sampler: Any) -> SamplerUse:
        use = self._samplers.get(sampler)
        if use is None:
            use = self._samplers[sampler] = SamplerUse()
            self.samplers_seen += 1
        return use
