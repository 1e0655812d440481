import torch

from scoring import explain, score, score_copy, score_inside, score_quietly, score_trained, score_under_grad_mode
from scoring import score_directly, score_directly_quietly


def main(model, loader, optimizer):
    for epoch in range(3):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        score(model, loader)  # expect: TL406


def quiet(model, loader):
    model.eval()
    score_quietly(model, loader)


def inside(model, loader):
    model.eval()
    score_inside(model, loader)


def explained(model, loader):
    model.eval()
    explain(model, loader)


def trained(model, loader):
    model.eval()
    score_trained(model, loader)


def copied(model, loader):
    model.eval()
    score_copy(model, loader)


def guarded(model, loader):
    model.eval()
    score_under_grad_mode(model, loader)


def direct(model, loader):
    model.eval()
    score_directly(model, loader)  # expect: TL406


def direct_quietly(model, loader):
    model.eval()
    score_directly_quietly(model, loader)
