"""A trainer in float16 with the scaler its base builds: float16 wants the scaler."""
import torch

from bases import ScalingBase


class Float16Trainer(ScalingBase):
    def training_step(trainer, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = trainer.model(batch).mean()
        trainer.optimizer.zero_grad()
        trainer.scaler.scale(loss).backward()
        trainer.scaler.step(trainer.optimizer)
        trainer.scaler.update()
