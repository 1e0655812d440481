"""Training loops that validate through the evaluation code of other modules."""
import torch

import validate
from eval_utils import (
    Evaluator,
    NoGradEvaluator,
    Refiner,
    Validating,
    adapt,
    evaluate,
    evaluate_in_inference_mode,
    evaluate_restarting,
    unroll,
)


def train(model, loader, val_loader, optimizer, metric, epochs):
    evaluator = Evaluator(model, metric)
    guarded = NoGradEvaluator(model, metric)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            metric(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(evaluator.evaluate(val_loader))  # expect: TL406
        print(evaluate(model, val_loader))  # expect: TL406
        print(guarded.evaluate(val_loader))
        print(evaluate_in_inference_mode(model, val_loader))
        print(evaluate_restarting(model, val_loader))
        with torch.no_grad():
            print(evaluator.evaluate(val_loader))
            print(evaluate(model, val_loader))


def test_time_adaptation(model, val_loader, optimizer):
    model.eval()
    return adapt(model, val_loader, optimizer)


def probe_in_train_mode(model, loader, metric):
    """The model is in train mode: no evaluation of an eval-mode model."""
    evaluator = Evaluator(model, metric)
    model.train()
    return evaluator.evaluate(loader)


def probe_frozen(backbone, loader):
    backbone.requires_grad_(False)
    backbone.eval()
    return evaluate(backbone, loader)


def train_flow(model, loader, val_loader, optimizer):
    for step, (image1, image2, flow) in enumerate(loader):
        optimizer.zero_grad()
        (model(image1, image2) - flow).abs().mean().backward()
        optimizer.step()
        if step % 5000 == 4999:
            validate.validate_chairs(model.module, val_loader)  # expect: TL406
            validate.validate_kitti(model.module, val_loader)
            validate.validate_sintel(model.module, val_loader)
            model.train()


def train_unrolled(model, loader, optimizer, criterion):
    """BatchNorm frozen in eval mode while training through the unrolled model."""
    model.eval()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(unroll(model, x, 3)[-1], y).backward()
        optimizer.step()


@torch.no_grad()
def final_validation(model, val_loader):
    return validate.validate_chairs(model, val_loader)


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


class Refining:
    """Its own `self.head` in eval mode, and a refiner built around another head."""

    def __init__(self, head, other_head):
        self.head = head
        self.refiner = Refiner(other_head)

    def predict(self, x):
        self.head.eval()
        return self.refiner(x)


if __name__ == "__main__":
    net = torch.load("model.pt")
    net.eval()
    print(evaluate(net, torch.load("val.pt")))  # expect: TL406
