"""Subclasses of `StepLoop` (another module), which calls a training step it does not
define: one that supplies a step that trains makes the loop a training loop, and its
per-step hook runs on every iteration of it; one without a step leaves nothing trained."""
import torch

from ..stepless import StepLoop


class SteppingLoop(StepLoop):
    def training_step(self, batch):
        inputs, targets = batch
        self.optimizer.zero_grad()
        torch.nn.functional.mse_loss(self.model(inputs), targets).backward()
        self.optimizer.step()

    def on_step_end(self):
        torch.cuda.empty_cache()  # expect: TL201


class NoStepLoop(StepLoop):
    def on_step_end(self):
        torch.cuda.empty_cache()
