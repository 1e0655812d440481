"""Imported by masked_helper_loss.py: the loss of a tagger over the tokens its mask keeps."""
import torch
from torch.nn import functional as F


def masked_token_loss(logits: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    per_token = F.cross_entropy(logits.transpose(1, 2), tags, reduction="none")
    kept = per_token * mask
    return kept.sum() / mask.sum()


def token_accuracy(logits: torch.Tensor, tags: torch.Tensor) -> float:
    return float((logits.argmax(-1) == tags).float().mean())
