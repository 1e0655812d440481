"""Trainers that take LoopBase's loop from the engine and a finetuning loop of this
module: `class TidyFinetuner(LoopBase, Finetuning)`. Python looks `finetune()` up in
LoopBase and its bases first, which only the project sees; this module's reading of
the class stops there, so the project tells it Finetuning's loop too. Its override
that empties the cache on every step is reported; the one that does every
`log_every` steps is not. `class TidyLoggedFinetuner(LoggedLoop, FinetuningLoop)`,
both of LoopBase, runs FinetuningLoop's `finetune()` before LoopBase could have one,
as Python's C3 order has it: this module alone sees it."""
import torch

from trainkit.engine import LoopBase


class Finetuning:
    def after_finetune_step(self, loss):
        pass

    def finetune(self):
        for inputs, targets in self.loader:
            loss = torch.nn.functional.mse_loss(self.model(inputs), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.after_finetune_step(loss)


class TidyFinetuner(LoopBase, Finetuning):
    def after_finetune_step(self, loss):
        torch.cuda.empty_cache()  # expect: TL201


class PeriodicTidyFinetuner(LoopBase, Finetuning):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.finetuned = 0

    def after_finetune_step(self, loss):
        self.finetuned += 1
        if self.finetuned % self.log_every == 0:
            torch.cuda.empty_cache()


class LoggedLoop(LoopBase):
    def log(self, text):
        print(text)


class FinetuningLoop(LoopBase):
    def after_finetune_step(self, loss):
        pass

    def finetune(self):
        for inputs, targets in self.loader:
            loss = torch.nn.functional.mse_loss(self.model(inputs), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.after_finetune_step(loss)


class TidyLoggedFinetuner(LoggedLoop, FinetuningLoop):
    """Python looks `finetune()` up in FinetuningLoop before their common base LoopBase."""

    def after_finetune_step(self, loss):
        torch.cuda.empty_cache()  # expect: TL201


class LoggedFinetuner(LoggedLoop, FinetuningLoop):
    def after_finetune_step(self, loss):
        self.log(float(loss))
