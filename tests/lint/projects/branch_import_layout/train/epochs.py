import torch


def train_epoch_sparse(model, optimizer, loader):
    for x in loader:
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()


def train_epoch_dense(model, optimizer, loader):
    model.train()
    for x in loader:
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()


def train_epoch_masked(model, optimizer, loader):
    model.train()
    for x, mask in loader:
        optimizer.zero_grad()
        (model(x) * mask).mean().backward()
        optimizer.step()


def evaluate_sparse(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x) for x in loader]


def evaluate_dense(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x).sum() for x in loader]


def prepare_sparse(model):
    model.train()


def prepare_dense(model):
    return model
