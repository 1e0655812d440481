"""PyTorch Lightning: `Trainer(callbacks=[SanitizerCallback(report="run.json")])`.

The session starts in `on_fit_start` and is closed by `on_fit_end`, `on_exception`
or `teardown`, whichever comes first. Lightning steps its optimizers with a
closure (forward and backward run inside `optimizer.step`); the session measures
such steps after the closure, so steps and events line up as in a plain loop.
Works with `lightning` (`lightning.pytorch`) or the older `pytorch_lightning`.
"""
from __future__ import annotations

import os
from typing import Any

from sanitizer.core import locations
from sanitizer.integrations import HoldsSession

try:
    import lightning.pytorch as _lightning
except ImportError:  # the standalone package
    import pytorch_lightning as _lightning

# Frames of Lightning's loops are library frames: `where` and holders point at user code.
locations.skip_package(_lightning)


class SanitizerCallback(HoldsSession, _lightning.Callback):
    """Watches `trainer.fit` with a `Sanitizer`; options are `Sanitizer`'s (checks, halt_on, ...)."""

    def __init__(self, report: str | os.PathLike[str] | None = "sanitizer-report.json", **options: Any) -> None:
        super().__init__()
        self._hold(report, options)

    def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
        self.holder.open()

    def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
        self.holder.close(exit_code=0)

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        self.holder.close(exit_code=1)

    def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
        if stage == "fit":
            self.holder.close(exit_code=0 if not trainer.interrupted else 1)
