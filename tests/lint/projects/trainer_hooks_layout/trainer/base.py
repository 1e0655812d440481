"""The training loop; subclasses override the hooks, never the loop.

Each override is judged as this loop runs it for an instance of its class, and
reported on its own line: AmpTrainer's clip before unscaling (after its scaled
`backward`), Fp16Trainer's float16 autocast that the base `backward()` runs
without a scaler, HistoryTrainer's history of losses and TidyTrainer's
`empty_cache()` on each step. UnscalingAmpTrainer (unscales first), Bf16Trainer,
DetachedHistoryTrainer and PeriodicTidyTrainer (every `log_every` steps) do the
same things right and are not reported; nor is this class's own `on_step_end`.
A loop of a subclass that calls the inherited hooks itself (tasks/finetune.py)
is followed as before."""
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
