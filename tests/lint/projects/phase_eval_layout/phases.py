"""Training phases that put the model in train mode themselves, for the epoch loops in run.py."""


def train_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        model(x, y).backward()
        optimizer.step()


def fit_head(head, features, optimizer):
    head.train()
    for f in features:
        optimizer.zero_grad()
        head(f).sum().backward()
        optimizer.step()


def fit_outputs(model, outputs, optimizer):
    model.train()
    for out in outputs:
        optimizer.zero_grad()
        out.mean().backward()
        optimizer.step()
