"""Imported by masked_helper_loss.py: the loss of a tagger over the tokens its mask keeps."""
import functools
import time
from typing import Any, Callable

import torch
from torch.nn import functional as F


def counted(function: Callable[..., Any]) -> Callable[..., Any]:
    """Counts the calls of `function`: a decorator whose wrapper keeps its name."""
    @functools.wraps(function)
    def counting(*args: Any, **kwargs: Any) -> Any:
        counting.calls += 1
        return function(*args, **kwargs)
    counting.calls = 0
    return counting


def timed(function: Callable[..., Any]) -> Callable[..., Any]:
    """Adds up the time spent in `function`: a decorator whose wrapper keeps no trace of it
    (no `functools.wraps`)."""
    def timing(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = function(*args, **kwargs)
        timing.seconds += time.perf_counter() - started
        return result
    timing.seconds = 0.0
    return timing


def masked_token_loss(logits: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    per_token = F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    kept = per_token * mask
    return kept.sum() / mask.sum()


@counted
def counted_token_loss(logits: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    per_token = F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    return (per_token * mask).sum() / mask.sum()


@timed
def timed_token_loss(logits: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    per_token = F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    return (per_token * mask).sum() / mask.sum()


def token_accuracy(logits: torch.Tensor, tags: torch.Tensor) -> float:
    return float((logits.argmax(-1) == tags).float().mean())
