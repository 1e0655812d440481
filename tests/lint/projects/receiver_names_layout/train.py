"""Training loops that validate through methods whose receiver is not called `self`."""
import torch

from evaluators import Evaluator, Validating, validate_named_self, validate_plain


def train(model, loader, val_loader, optimizer, metric, epochs):
    evaluator = Evaluator(model, metric)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            metric(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(evaluator.evaluate(val_loader))  # expect: TL406
        print(evaluator.evaluate_restarting(val_loader))
        print(Evaluator.evaluate_head(model, val_loader))
        with torch.no_grad():
            print(evaluator.evaluate(val_loader))


class Trainer(Validating):
    def __init__(self, model, loader, val_loader, criterion):
        self.model = model
        self.loader = loader
        self.val_loader = val_loader
        self.criterion = criterion
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.loader:
                self.optimizer.zero_grad()
                self.criterion(self.model(x), y).backward()
                self.optimizer.step()
            self.model.eval()
            self.validate()  # expect: TL406
            validate_plain(self, self.val_loader)
            validate_named_self(self, self.val_loader)
