"""Fine-tuning with gradient accumulation: its own loop over the inherited hooks."""
import torch

from trainer.amp_trainer import AmpTrainer, UnscalingAmpTrainer


class AccumulatingTrainer(AmpTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, self.config.lr, total_steps=10_000)
        self.losses = []

    def fit(self):
        for epoch in range(self.config.epochs):
            self.model.train()
            for i, batch in enumerate(self.train_loader):
                loss = self.training_step(batch) / self.config.accumulate
                self.backward(loss)
                if (i + 1) % self.config.accumulate == 0:
                    self.scheduler.step()  # expect: TL404
                    self.optimizer_step()  # expect: TL101
                    self.optimizer.zero_grad()
                self.losses.append(loss)  # expect: TL202
            self.evaluate()

    def evaluate(self):
        self.model.eval()
        return [self.validation_step(batch) for batch in self.val_loader]  # expect: TL406


class UnscalingAccumulatingTrainer(UnscalingAmpTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, self.config.lr, total_steps=10_000)
        self.losses = []

    def fit(self):
        for epoch in range(self.config.epochs):
            self.model.train()
            for i, batch in enumerate(self.train_loader):
                loss = self.training_step(batch) / self.config.accumulate
                self.backward(loss)
                if (i + 1) % self.config.accumulate == 0:
                    self.optimizer_step()
                    self.scheduler.step()
                    self.optimizer.zero_grad()
                self.losses.append(loss.item())
            self.evaluate()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        return [self.validation_step(batch) for batch in self.val_loader]
