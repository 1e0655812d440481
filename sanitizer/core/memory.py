"""Memory in use: CUDA's allocator counter (free to read) or the process RSS on CPU.

On CPU only every RSS_EVERY-th step is sampled; other steps read None.
"""
from __future__ import annotations

import os

import torch

RSS_EVERY = 5  # reading /proc costs a few microseconds: sample on CPU


class MemoryMeter:
    def __init__(self) -> None:
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

    def sample(self, step: int, device: str | None) -> float | None:
        if device is not None and device.startswith("cuda"):
            return float(torch.cuda.memory_allocated(torch.device(device)))
        return self._rss() if step % RSS_EVERY == 0 else None

    def _rss(self) -> float | None:
        try:
            with open("/proc/self/statm", "rb") as statm:
                return float(int(statm.read().split()[1]) * self._page)
        except (OSError, ValueError, IndexError):
            return None
