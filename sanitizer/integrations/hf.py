"""Hugging Face transformers: `Trainer(..., callbacks=[SanitizerCallback(report="run.json")])`.

The session starts in `on_train_begin` and is closed in `on_train_end`. The
Trainer has no callback for a failed run: a session still open when the next
`train()` begins, or when the interpreter exits, is closed then with exit code 1.
In a notebook, call `callback.close()` after a failed `train()` to get the report
at once. Losses are seen where `.backward()` and the `torch.nn.functional` losses
run, as in any other loop, so `on_log` is not needed.
"""
from __future__ import annotations

import os
from typing import Any

import transformers

from sanitizer.core import locations
from sanitizer.integrations import HoldsSession

# Frames of the Trainer, of the library's models and of accelerate (which steps the
# optimizer for the Trainer) are library frames: `where` and holders point at user code.
locations.skip_package(transformers)
try:
    import accelerate
    locations.skip_package(accelerate)
except ImportError:  # older Trainers work without it
    pass


class SanitizerCallback(HoldsSession, transformers.TrainerCallback):
    """Watches `trainer.train()` with a `Sanitizer`; options are `Sanitizer`'s (checks, halt_on, ...)."""

    def __init__(self, report: str | os.PathLike[str] | None = "sanitizer-report.json", **options: Any) -> None:
        self._hold(report, options)

    def close(self) -> dict[str, Any] | None:
        """Close a session that `train()` left open by raising; returns the report."""
        self.holder.close_unfinished("close() was called")
        return self.report

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.holder.open()

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.holder.close(exit_code=0)
