"""Objects that own a GradScaler: one method back-propagates, another steps."""
import torch


class AmpStepper:
    """Backward with the scaled loss; the step and the update apart."""

    def __init__(self):
        self.scaler = torch.amp.GradScaler("cuda")

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()

    def clip_and_step(self, optimizer, parameters, max_norm):
        self.scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(parameters, max_norm)
        self.scaler.step(optimizer)
        self.scaler.update()


class UnscalingBackward:
    """Backward that unscales right after: the gradients it leaves are at their true size."""

    def __init__(self):
        self.scaler = torch.amp.GradScaler("cuda")

    def backward(self, loss, optimizer):
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(optimizer)

    def step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()
