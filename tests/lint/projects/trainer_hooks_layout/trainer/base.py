"""The training loop; subclasses override the hooks, never the loop.

Known misses: what an override does when this loop calls it is not followed (the
loop's `self.optimizer_step()` is this class's), so AmpTrainer's clip before
unscaling (amp_trainer.py:21), Fp16Trainer's float16 backward without a scaler,
HistoryTrainer's history of losses (callbacks.py:15) and TidyTrainer's
`empty_cache()` each step (callbacks.py:30) are not reported. A loop of a subclass
that calls the inherited hooks itself (tasks/finetune.py) is followed."""
import torch


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, config):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.config = config
        self.global_step = 0

    # -- hooks -----------------------------------------------------------------
    def training_step(self, batch):
        inputs, targets = batch
        return torch.nn.functional.cross_entropy(self.model(inputs), targets)

    def validation_step(self, batch):
        inputs, targets = batch
        return (self.model(inputs).argmax(-1) == targets).float().mean()

    def backward(self, loss):
        loss.backward()

    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optimizer.step()

    def on_step_end(self, loss):
        pass

    # -- the loop --------------------------------------------------------------
    def fit(self):
        for epoch in range(self.config.epochs):
            self.model.train()
            for batch in self.train_loader:
                loss = self.training_step(batch)
                self.optimizer.zero_grad()
                self.backward(loss)
                self.optimizer_step()
                self.global_step += 1
                self.on_step_end(loss)
            print(epoch, self.validate())

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        scores = [self.validation_step(batch).item() for batch in self.val_loader]
        return sum(scores) / max(len(scores), 1)
