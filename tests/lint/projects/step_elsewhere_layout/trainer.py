"""A trainer whose own loop steps the optimizer it builds, then clips: this file
reports the clip; the callers of `fit()` in train.py are not told again."""
import torch


class Trainer:
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs

    def fit(self, model, loader):
        self.optim = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(self.max_epochs):
            self.fit_epoch(model, loader)

    def fit_epoch(self, model, loader):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403
