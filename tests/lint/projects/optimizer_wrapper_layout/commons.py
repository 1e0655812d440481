"""Optimizer wrappers (the shape of glow-tts' `commons.Adam`, a Noam schedule
around Adam): one steps the optimizer it holds, the other steps it through the
GradScaler it is given."""
import torch


class Adam:
    def __init__(self, params, scheduler="noam", dim_model=192, warmup_steps=4000, lr=1.0):
        self.dim_model = dim_model
        self.warmup_steps = warmup_steps
        self.lr = lr
        self.step_num = 1
        self._optim = torch.optim.Adam(params, lr=lr)

    def _get_lr(self):
        return self.lr * self.dim_model ** -0.5 * min(self.step_num ** -0.5, self.step_num * self.warmup_steps ** -1.5)

    def step(self):
        self.step_num += 1
        for group in self._optim.param_groups:
            group["lr"] = self._get_lr()
        self._optim.step()

    def zero_grad(self):
        self._optim.zero_grad()


class ScaledAdam(Adam):
    """The same schedule, stepped through the scaler."""

    def __init__(self, params, scaler, **kwargs):
        super().__init__(params, **kwargs)
        self.scaler = scaler

    def step(self):
        self.step_num += 1
        self.scaler.step(self._optim)
        self.scaler.update()


def build_scaled(model):
    return ScaledAdam(model.parameters(), torch.amp.GradScaler("cuda"))
