"""A trainer that keeps the loaders the data module builds."""
import torch

from data import build_loader, build_pinned_loader, build_val_loader


class Trainer:
    def __init__(self, model, optimizer, train_set, val_set, pin):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = build_loader(train_set, 32)
        self.val_loader = build_val_loader(val_set)
        self.aux_loader = build_pinned_loader(train_set, 8) if pin else build_loader(train_set, 8)

    def fit(self, device):
        for x, y in self.train_loader:
            x = x.to(device, non_blocking=True)  # expect: TL502
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y.to(device)).backward()
            self.optimizer.step()
        for x, y in self.aux_loader:
            self.model(x.to(device, non_blocking=True))

    def validate(self, device):
        with torch.no_grad():
            for x, y in self.val_loader:
                self.model(x.to(device, non_blocking=True))  # expect: TL502
