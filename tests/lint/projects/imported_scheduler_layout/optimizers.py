"""An optimizer of the project, derived from torch's, and a tracker that only looks like one."""
import torch


class SignDescent(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad.sign(), alpha=-group["lr"])


class WeightAverager:
    """Keeps a running average of the weights; its step() reads no gradient."""

    def __init__(self, model, decay=0.999):
        self.model = model
        self.decay = decay
        self.shadow = [p.detach().clone() for p in model.parameters()]

    @torch.no_grad()
    def step(self):
        for kept, p in zip(self.shadow, self.model.parameters()):
            kept.mul_(self.decay).add_(p, alpha=1 - self.decay)
