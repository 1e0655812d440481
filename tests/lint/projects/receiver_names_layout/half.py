"""Trainers in half precision with the scaler their base builds, calling their instance `trainer`."""
import torch

from bases import ScalingBase


class HalfTrainer(ScalingBase):
    def training_step(trainer, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = trainer.model(batch).mean()
        trainer.optimizer.zero_grad()
        trainer.scaler.scale(loss).backward()  # expect: TL106
        trainer.scaler.step(trainer.optimizer)
        trainer.scaler.update()

