"""Trainers of two bases each: the second base's `backward` runs before the common
base's, as Python's C3 order has it. ScaledClippingTrainer's loss is scaled (by
ScaledTrainer, not the base's plain backward), so its clip comes before an
unscale; PlainClippingTrainer's is not (PlainBackwardTrainer's, not AmpTrainer's).
LoggedClippingTrainer's clip is right for its own instances, whose backward is the
base's plain one, and before an unscale for those of ScaledLoggedClippingTrainer."""
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


class LoggedClippingTrainer(LoggingTrainer):
    """Clips with the base's plain backward: right for its own instances."""

    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101
        self.optimizer.step()


class ScaledLoggedClippingTrainer(LoggedClippingTrainer, ScaledTrainer):
    """Runs LoggedClippingTrainer's `optimizer_step` after ScaledTrainer's scaled backward:
    the clip above comes before an unscale for this class's instances."""
