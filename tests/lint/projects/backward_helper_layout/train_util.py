"""A training loop whose losses are back-propagated by the helpers of fp16_util.py."""
from fp16_util import MixedPrecisionTrainer, backward_scaled


class TrainLoop:
    def __init__(self, model, optimizer, scaler):
        self.model = model
        self.optimizer = optimizer
        self.scaler = scaler
        self.mp_trainer = MixedPrecisionTrainer(model)

    def forward_backward(self, batch, weights):
        total = 0
        for micro in batch.split(4):
            loss = (self.model(micro) * weights).mean()
            self.mp_trainer.backward(loss)
            total = total + loss  # expect: TL202
        self.last_total = total

    def run_epoch(self, loader):
        seen = 0.0
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.model(x).sub(y).pow(2).mean()
            backward_scaled(self.scaler, loss)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            seen += loss  # expect: TL202
        return seen.item() / len(loader)

    def run_logged_epoch(self, loader):
        seen = 0.0
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.model(x).sub(y).pow(2).mean()
            backward_scaled(self.scaler, loss)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            seen += loss.item()
        return seen / len(loader)
