import torch


def train_loop(model, loss_func, optimizer, loader):
    for x, y in loader:
        loss = loss_func(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
