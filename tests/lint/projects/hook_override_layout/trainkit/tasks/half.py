"""Subclasses of `ModuleTrainer` (another module), whose loop calls `self.zero_grad()`
and `self.parameters()` of `nn.Module` beside the hooks: a float16 loss it back-propagates
with no GradScaler underflows; a bfloat16 one does not, and one whose lineage has a
library's class may have a scaler in that class's `zero_grad()` or `backward()`."""
import torch

from ..module_trainer import AcceleratedTrainer, ModuleTrainer


class HalfTrainer(ModuleTrainer):
    def compute_loss(self, inputs):
        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103
            return self.net(inputs).mean()


class BFloat16Trainer(ModuleTrainer):
    def compute_loss(self, inputs):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return self.net(inputs).mean()


class HalfAcceleratedTrainer(AcceleratedTrainer):
    def compute_loss(self, inputs):
        with torch.autocast("cuda", dtype=torch.float16):
            return self.net(inputs).mean()
