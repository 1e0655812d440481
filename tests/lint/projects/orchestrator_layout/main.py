"""Only calls into the other modules: no training or mode switch of its own."""
import torch

from evaluate import evaluate
from train import train_loop


def main(model, loss_func, train_loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(epochs):
        train_loop(model, loss_func, optimizer, train_loader)
        print(epoch, evaluate(model, val_loader))  # expect: TL405
