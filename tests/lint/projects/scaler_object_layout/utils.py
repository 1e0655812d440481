"""A loss-scaler object that back-propagates, clips and steps when called (the
shape of Swin-Transformer's and ConvNeXt's `NativeScalerWithGradNormCount`)."""
import torch


class GradNormScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None):
        self._scaler.scale(loss).backward()
        norm = None
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()
        return norm


class Logger:
    """A look-alike: called every iteration, it only records."""

    def __init__(self):
        self.values = []

    def __call__(self, loss, optimizer):
        self.values.append(loss.item())
