"""Memory in use: CUDA's allocator counter (free to read) or the process RSS on CPU.

On CPU only every RSS_EVERY-th step is sampled; other steps read None. The RSS
comes from /proc/self/statm, opened once per process and re-read in place.
"""
from __future__ import annotations

import os

import torch

RSS_EVERY = 5  # reading /proc costs a few microseconds: sample on CPU
STATM = "/proc/self/statm"


class MemoryMeter:
    def __init__(self) -> None:
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._statm: tuple[int, int] | None = None  # (pid that opened it, descriptor)

    def sample(self, step: int, device: str | None) -> float | None:
        if device is not None and device.startswith("cuda"):
            return float(torch.cuda.memory_allocated(torch.device(device)))
        return self._rss() if step % RSS_EVERY == 0 else None

    def close(self) -> None:
        statm, self._statm = self._statm, None
        if statm is not None:
            os.close(statm[1])

    def _rss(self) -> float | None:
        try:
            return float(int(os.pread(self._descriptor(), 64, 0).split()[1]) * self._page)
        except (OSError, ValueError, IndexError):
            return None

    def _descriptor(self) -> int:
        """/proc/self/statm of this process: a forked child gets its own, not the parent's."""
        pid = os.getpid()
        if self._statm is None or self._statm[0] != pid:
            self.close()
            self._statm = (pid, os.open(STATM, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))
        return self._statm[1]
