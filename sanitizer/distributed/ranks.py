"""The sanitizer under torchrun: who this rank is, the side channel to the other
ranks, and the patches the distributed checks need.

Ranks talk only through the c10d key-value store the script's process group
already uses (under a key prefix of their own), with non-blocking `check` before
any `get`: no collective is ever issued, so a rank that dies or stops stepping
can delay nothing but the bounded wait at the end of the run.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import torch

from sanitizer.core import locations

if TYPE_CHECKING:
    from sanitizer.core.session import Sanitizer

KEY_PREFIX = "trainlint-sanitizer"


@dataclass(frozen=True)
class RankInfo:
    """This process's place in a distributed job (rank 0 of 1 outside one)."""

    rank: int
    world_size: int
    local_rank: int
    restart: int  # torchrun's restart count: keys of an earlier attempt are not read

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def rank_info(environ: dict[str, str] | None = None) -> RankInfo:
    """This process's place as torchrun's variables give it (see `in_group` for the
    place the script's process group gives, once it exists)."""
    env = os.environ if environ is None else environ
    return RankInfo(rank=_int(env.get("RANK"), 0), world_size=max(_int(env.get("WORLD_SIZE"), 1), 1),
                    local_rank=_int(env.get("LOCAL_RANK"), 0),
                    restart=_int(env.get("TORCHELASTIC_RESTART_COUNT"), 0))


def in_group(info: RankInfo) -> RankInfo:
    """`info` with the rank and world size of the script's default process group once
    it exists. A script that starts its own workers (`mp.spawn`) passes them to
    `init_process_group(rank=, world_size=)` and sets no `RANK`: only the group knows."""
    place = group_place()
    if place is None:
        return info
    return dataclasses.replace(info, rank=place[0], world_size=place[1])


def group_place() -> tuple[int, int] | None:
    """(rank, world size) in the script's default process group; None before it exists.
    Asks torch only once `torch.distributed` is imported: a plain run pays a lookup."""
    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    try:
        return dist.get_rank(), dist.get_world_size()
    except (RuntimeError, ValueError):  # a group being torn down
        return None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def side_store(info: RankInfo) -> Any | None:
    """The script's own c10d store under the sanitizer's prefix, once its default
    process group exists; None before that or outside a distributed run."""
    if not info.distributed:
        return None
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        return None
    store = dist.distributed_c10d._get_default_store()
    return dist.PrefixStore(f"{KEY_PREFIX}/{info.restart}", store)  # keys: <prefix>/window/...


def local_values(tensors: list[Any]) -> list[Any]:
    """DTensors (FSDP2 shards and their norms) as this rank's local tensors: reading
    a DTensor would issue a collective from inside a hook. Until DTensor's module is
    imported there is none (a step of a plain run pays one dictionary lookup); once it
    is (torch's optimizers import it), a list of plain tensors and parameters is told
    apart by their exact types, without an `isinstance` per tensor (DTensor's costs
    0.3-0.5 us: 10-25 us per step for a model of a few dozen parameters)."""
    if "torch.distributed.tensor" not in sys.modules or _PLAIN_TYPES.issuperset(map(type, tensors)):
        return tensors
    from torch.distributed.tensor import DTensor
    if not any(isinstance(tensor, DTensor) for tensor in tensors):
        return tensors
    return [tensor.to_local() if isinstance(tensor, DTensor) else tensor for tensor in tensors]


# exact types that are never a DTensor: a DTensor made a parameter keeps DTensor's type
_PLAIN_TYPES = frozenset((torch.Tensor, torch.nn.Parameter))


def install(session: Sanitizer, stack: ExitStack) -> None:
    """Wrap `DistributedSampler.__iter__` and `.set_epoch` for the detectors that
    listen to them; the originals are restored when the session's stack closes."""
    listeners = [d for d in session.detectors if hasattr(d, "on_sampler_iter")]
    if not listeners:
        return
    from torch.utils.data import distributed as data_distributed
    sampler_class = data_distributed.DistributedSampler

    def on_iter(sampler: Any) -> None:
        for detector in listeners:
            detector.on_sampler_iter(sampler, session.sink)

    def on_set_epoch(sampler: Any) -> None:
        for detector in listeners:
            detector.on_set_epoch(sampler, session.sink)

    _wrap_method(stack, sampler_class, "__iter__", _guarded(session, "DistributedSampler.__iter__", on_iter),
                 after=False)
    _wrap_method(stack, sampler_class, "set_epoch", _guarded(session, "DistributedSampler.set_epoch",
                                                             on_set_epoch), after=True)


def _guarded(session: Sanitizer, where: str, callback: Callable[..., None]) -> Callable[..., None]:
    def call(*args: Any) -> None:
        if not session.active:
            return
        try:
            callback(*args)
        except Exception as exc:  # the sanitizer's failures never reach the script
            session.internal_error(where, exc)
    return call


def _wrap_method(stack: ExitStack, owner: type, name: str, observe: Callable[..., None], after: bool) -> None:
    """Replace `owner.name` by a wrapper that calls `observe(self)` before or after
    the original and returns the original's result unchanged."""
    original = vars(owner)[name]

    @locations.transparent
    @functools.wraps(original)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not after:
            observe(self)
        result = original(self, *args, **kwargs)
        if after:
            observe(self)
        return result

    setattr(owner, name, wrapper)
    stack.callback(setattr, owner, name, original)
