"""Evaluation entry points that hand the model to the function of this module
whose loop runs it: whether that loop records a graph is up to the caller."""
import torch


def _run_eval(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct


def validate(model, loader):
    """Puts the model in eval mode through `_run_eval`; this module's own script runs it under no_grad."""
    return _run_eval(model, loader)


def _score(model, loader):
    total = 0.0
    for x, y in loader:
        total += torch.nn.functional.cross_entropy(model(x), y).item()
    return total


def score(model, loader):
    return _score(model, loader)


def score_guarded(model, loader):
    with torch.no_grad():
        return _score(model, loader)


@torch.no_grad()
def score_decorated(model, loader):
    return _score(model, loader)


def score_restarted(model, loader):
    """Puts the model back in train mode first: no evaluation."""
    model.train()
    return _score(model, loader)


class Evaluator:
    def __init__(self, model):
        self.model = model

    def _loop(self, model, loader):
        outputs = []
        for x, _ in loader:
            outputs.append(model(x).argmax(1))
        return outputs

    def evaluate(self, loader):
        return self._loop(self.model, loader)


if __name__ == "__main__":
    net = torch.load("net.pt")
    with torch.no_grad():
        print(validate(net, torch.load("val.pt")))
