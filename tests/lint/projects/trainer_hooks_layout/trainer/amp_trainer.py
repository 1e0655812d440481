"""Mixed precision on top of the base loop."""
import torch
from torch.cuda.amp import GradScaler

from .base import Trainer


class AmpTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scaler = GradScaler()  # expect: TL102

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            return super().training_step(batch)

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)  # expect: TL101
        self.scaler.step(self.optimizer)
        self.scaler.update()


class UnscalingAmpTrainer(AmpTrainer):
    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()


class Bf16Trainer(Trainer):
    """bfloat16 needs no loss scaling: the base's backward and step are right."""

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return super().training_step(batch)


class Fp16Trainer(Trainer):
    """float16 autocast with the base's plain backward: no scaler anywhere."""

    def training_step(self, batch):
        inputs, targets = batch
        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103
            logits = self.model(inputs)
        return torch.nn.functional.cross_entropy(logits.float(), targets)
