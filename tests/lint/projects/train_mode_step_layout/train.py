"""Training scripts that validate with that wrapper in eval mode: its forward then only
computes the loss, so validation is no training (no TL405) and needs `torch.no_grad()`."""
import torch

from trainers import TrainingStepper


def train(model, train_loader, val_loader, epochs):
    stepper = TrainingStepper(model, lr=1e-4)
    for epoch in range(epochs):
        stepper.train()
        for x, y in train_loader:
            stepper(x, y)
        stepper.eval()
        val_loss = 0.0
        for x, y in val_loader:
            val_loss += stepper.forward(x, y)  # expect: TL406
        print(epoch, val_loss / len(val_loader))


def train_checked(model, train_loader, val_loader, epochs):
    stepper = TrainingStepper(model, lr=1e-4)
    for epoch in range(epochs):
        stepper.train()
        for x, y in train_loader:
            stepper(x, y)
        stepper.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += stepper(x, y)
        print(epoch, val_loss / len(val_loader))
