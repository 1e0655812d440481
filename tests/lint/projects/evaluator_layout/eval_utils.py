"""Evaluation code whose loops run the model they are handed: whether they
record a graph is up to the caller's grad mode."""
import torch


class Evaluator:
    def __init__(self, model, metric):
        self.model = model
        self.metric = metric

    def evaluate(self, loader):
        scores = []
        for x, y in loader:
            scores.append(self.metric(self.model(x), y).item())
        return sum(scores) / len(scores)


class NoGradEvaluator:
    def __init__(self, model, metric):
        self.model = model
        self.metric = metric

    @torch.no_grad()
    def evaluate(self, loader):
        scores = []
        for x, y in loader:
            scores.append(self.metric(self.model(x), y).item())
        return sum(scores) / len(scores)


class Validating:
    """A mixin of trainers: validates the trainer's own model."""

    def validate(self):
        total = 0.0
        for x, y in self.val_loader:
            total += self.criterion(self.model(x), y).item()
        return total


def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


def evaluate_in_inference_mode(model, loader):
    correct = 0
    for x, y in loader:
        with torch.inference_mode():
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


def evaluate_restarting(model, loader):
    """Puts the model back in train mode first: no evaluation."""
    model.train()
    return [model(x).mean().item() for x, _ in loader]


def unroll(model, x, steps):
    """Runs the model on its own output: the caller may train through it."""
    outputs = []
    for _ in range(steps):
        x = model(x)
        outputs.append(x)
    return outputs


class Refiner(torch.nn.Module):
    """Runs its own head a few times: that `self.head` is the refiner's, not its caller's."""

    def __init__(self, head):
        super().__init__()
        self.head = head

    def forward(self, x):
        for _ in range(3):
            x = self.head(x)
        return x


def adapt(model, loader, optimizer):
    """Trains on what it is given (test-time adaptation): it needs the graph."""
    correct = 0
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        logits.logsumexp(1).mean().backward()
        optimizer.step()
        correct += (logits.argmax(1) == y).sum().item()
    return correct
