"""Mixed precision done right on top of LoopBase: nothing to report."""
import torch

from trainkit.engine import LoopBase as Base


class ScaledLoop(Base):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scaler = torch.amp.GradScaler("cuda")

    def compute_loss(self, batch):
        inputs, targets = batch
        with torch.autocast("cuda", dtype=torch.float16):
            return torch.nn.functional.mse_loss(self.model(inputs), targets)

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()


class BfloatLoop(Base):
    def compute_loss(self, batch):
        inputs, targets = batch
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return torch.nn.functional.mse_loss(self.model(inputs), targets)

    def step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        super().step()
