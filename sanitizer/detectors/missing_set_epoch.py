"""A shuffling DistributedSampler iterated again without `set_epoch`: every epoch
repeats the first epoch's order (the run-time twin of lint rule TL302).

The sampler's `__iter__` and `set_epoch` are wrapped by `sanitizer.distributed`;
this detector sees each new iteration (one per epoch) and whether the epoch
changed since the previous one. Samplers built with `shuffle=False` do not
depend on the epoch and are not checked.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from sanitizer import locations
from sanitizer.detectors.base import Detector

if TYPE_CHECKING:
    from sanitizer.session import Sanitizer


class MissingSetEpochDetector(Detector):
    name = "missing_set_epoch"
    kinds = ("missing_set_epoch",)

    def __init__(self) -> None:
        self.samplers_seen = 0
        self.reported = 0
        # per sampler: [iterations, epoch at the previous iteration, set_epoch called, reported]
        self._samplers: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()

    def on_set_epoch(self, sampler: Any, session: Sanitizer) -> None:
        self._entry(sampler)[2] = True

    def on_sampler_iter(self, sampler: Any, session: Sanitizer) -> None:
        if not getattr(sampler, "shuffle", True):
            return
        entry = self._entry(sampler)
        iterations, previous_epoch, called, reported = entry
        epoch = getattr(sampler, "epoch", None)
        entry[0], entry[1] = iterations + 1, epoch
        if iterations == 0 or reported or epoch != previous_epoch:
            return
        entry[3] = True
        self.reported += 1
        if called:
            message = (f"DistributedSampler iterated again with the same epoch ({epoch}): "
                       f"set_epoch was called, but not with a new epoch, so this epoch repeats "
                       f"the previous one's order")
        else:
            message = (f"DistributedSampler iterated for epoch {iterations + 1} but set_epoch was "
                       f"never called: every epoch repeats the same shuffled order on every rank")
        session.emit("missing_set_epoch", session.step, message, where=locations.user_site(),
                     extra={"iteration": iterations + 1, "epoch": epoch, "set_epoch_called": called})

    def _entry(self, sampler: Any) -> list[Any]:
        entry = self._samplers.get(sampler)
        if entry is None:
            entry = [0, None, False, False]
            self._samplers[sampler] = entry
            self.samplers_seen += 1
        return entry
