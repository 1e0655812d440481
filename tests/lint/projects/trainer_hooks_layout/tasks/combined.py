"""Trainers of two bases each: the second base's `backward` runs before the common
base's, as Python's C3 order has it. ScaledClippingTrainer's loss is scaled (by
ScaledTrainer, not the base's plain backward), so its clip comes before an
unscale; PlainClippingTrainer's is not (PlainBackwardTrainer's, not AmpTrainer's)."""
import torch

from trainer.variants import LoggingAmpTrainer, LoggingTrainer, PlainBackwardTrainer, ScaledTrainer


class ScaledClippingTrainer(LoggingTrainer, ScaledTrainer):
    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101
        self.scaler.step(self.optimizer)
        self.scaler.update()


class PlainClippingTrainer(LoggingAmpTrainer, PlainBackwardTrainer):
    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
