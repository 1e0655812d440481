"""Gradient helpers shared by the training scripts."""
import torch


def clip_gradients(model, max_norm=1.0):
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def backward_clip_step(loss, model, optimizer, max_norm=1.0):
    """Back-propagates, clips, then steps: in the right order by itself."""
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()


def grad_norm(model):
    """Measures the norm only: an infinite threshold clips nothing."""
    return torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
