"""The tensors DDP keeps identical on every rank, and a cheap fingerprint of them.

Replicas are the parameters of every `DistributedDataParallel` model, and its
buffers when it does not broadcast them itself (`broadcast_buffers=False`; with
broadcasting, each rank's buffers legitimately differ between the forward that
updates them and the next forward that overwrites them from rank 0). Sharded
tensors (FSDP's DTensors) differ by design and are left out.

The fingerprint of a tensor is its L1 and L2 norms in float32, 8 bytes: DDP
replicas are bit-identical (same all-reduced gradients, same update), so equal
fingerprints are compared exactly. It catches any change that moves either norm
by more than float32 rounding; a permutation of values or a sign flip that keeps
both norms goes unseen.
"""
from __future__ import annotations

import hashlib
import struct
from typing import Iterable

import torch
from torch import nn

from sanitizer.core.probe import inexact, norms

FINGERPRINT_FORMAT = "<2f"  # L1 norm, L2 norm
FINGERPRINT_BYTES = struct.calcsize(FINGERPRINT_FORMAT)


def replicated_tensors(roots: Iterable[nn.Module]) -> list[tuple[str, torch.Tensor]]:
    """(name, tensor) of every replicated floating tensor of the DDP models among `roots`,
    named as in the model's `named_parameters()` / `named_buffers()`."""
    from torch.nn.parallel import DistributedDataParallel
    named: list[tuple[str, torch.Tensor]] = []
    seen: set[int] = set()
    for root in roots:
        for prefix, module in root.named_modules():
            if not isinstance(module, DistributedDataParallel):
                continue
            tensors = list(module.named_parameters())
            if not module.broadcast_buffers:
                tensors += list(module.named_buffers())
            for name, tensor in tensors:
                if id(tensor) in seen or not _comparable(tensor):
                    continue
                seen.add(id(tensor))
                named.append((f"{prefix}.{name}" if prefix else name, tensor))
    return named


def _comparable(tensor: torch.Tensor) -> bool:
    if not inexact(tensor) or tensor.numel() == 0 or tensor.is_sparse:
        return False
    from torch.distributed.tensor import DTensor
    return not isinstance(tensor, DTensor)


def layout_digest(named: list[tuple[str, torch.Tensor]]) -> str:
    """Which tensors are compared, in which order: ranks must agree on it first."""
    text = "\n".join(f"{name}:{tuple(t.shape)}:{t.dtype}" for name, t in named)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def fingerprint(tensors: list[torch.Tensor]) -> bytes:
    """L1 and L2 norms of each tensor, packed; one host read per device."""
    if not tensors:
        return b""
    with torch.no_grad():
        l1 = [norm.float() for norm in norms(tensors, 1)]
        l2 = [norm.float() for norm in norms(tensors, 2)]
    values: list[float] = [0.0] * (2 * len(tensors))
    by_device: dict[torch.device, list[int]] = {}
    for index, tensor in enumerate(tensors):
        by_device.setdefault(tensor.device, []).append(index)
    for indices in by_device.values():
        flat = torch.stack([l1[i] for i in indices] + [l2[i] for i in indices]).tolist()
        count = len(indices)
        for k, i in enumerate(indices):
            values[2 * i], values[2 * i + 1] = flat[k], flat[count + k]
    return struct.pack(f"<{len(values)}f", *values)


def digest(packed: bytes) -> str:
    return hashlib.blake2b(packed, digest_size=8).hexdigest()


def first_difference(mine: bytes, theirs: bytes) -> int | None:
    """Index of the first tensor whose fingerprints differ, None if all agree."""
    size = FINGERPRINT_BYTES
    for index in range(min(len(mine), len(theirs)) // size):
        if mine[index * size:(index + 1) * size] != theirs[index * size:(index + 1) * size]:
            return index
    return None if len(mine) == len(theirs) else min(len(mine), len(theirs)) // size
