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


class Manager:
    """accelerate's layout: it wraps the optimizer it is handed, whose step goes
    through the scaler, and scales the backward pass only when it has one."""

    def __init__(self, fp16):
        self.scaler = torch.amp.GradScaler("cuda") if fp16 else None

    def prepare(self, model, optimizer):
        return model, ScaledOptimizer(optimizer, self.scaler)

    def backward(self, loss):
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()


class ScaledOptimizer:
    def __init__(self, optimizer, scaler):
        self.optimizer = optimizer
        self.scaler = scaler

    def step(self):
        if self.scaler is not None:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()

    def zero_grad(self):
        self.optimizer.zero_grad()
