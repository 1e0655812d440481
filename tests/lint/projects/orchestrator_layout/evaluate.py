import torch


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct = correct + (model(x).argmax(1) == y).sum().item()
    return correct


@torch.no_grad()
def evaluate_and_restore(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct = correct + (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct
