"""Runtime sanitizer for PyTorch training runs.

`python -m sanitizer train.py` runs a script under watch; `Sanitizer` does the
same for code in this process. torch is imported only when `Sanitizer` is used.

The folders follow the data: `cli`/`runner` start the script; `core/` (session,
hooks, probe, tracing) watches it and hands each step to `detectors/`, whose
events `report/` turns into JSON, a summary and `show`'s HTML/PNG;
`distributed/` adds the torchrun side and `integrations/` the framework callbacks.
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Sanitizer", "SanitizerHalt", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("Sanitizer", "SanitizerHalt"):
        from sanitizer.core import session
        return getattr(session, name)
    raise AttributeError(f"module 'sanitizer' has no attribute {name!r}")
