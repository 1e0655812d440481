import torch

# run in the order imported: lib_dry/ goes first, then lib/ before it
import z_dry_paths  # noqa: F401
import a_full_paths  # noqa: F401

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
