from common import *
from models import *


class Replicated(DP):  # expect: TL301
    pass


def evaluate(model, loader):
    model.eval()
    total = 0.0
    with no_grad():
        for x, y in loader:
            total += F.cross_entropy(model(x), y).item()
    return total


def accuracy(model, loader):
    model.eval()
    hits = 0
    for x, y in loader:
        hits += (model(x).argmax(1) == y).sum().item()  # expect: TL406
    return hits


def train(loader, val_loader, epochs):
    model = nn.DataParallel(Net())  # expect: TL301
    opt = th.optim.SGD(model.parameters(), lr=0.1)
    scaler = th.amp.GradScaler("cuda")
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            with th.autocast("cuda"):
                loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101
            scaler.step(opt)
            scaler.update()
            th.cuda.empty_cache()  # expect: TL201
        evaluate(model, val_loader)
        accuracy(model, val_loader)
