import torch


def use_full_paths():
    import a_full_paths  # noqa: F401  # runs only when called, after the imports below


# run in the order the module itself imports them: lib_dry/, then lib/ before it
try:
    import z_dry_paths  # noqa: E402, F401
    import a_full_paths  # noqa: E402, F401
except ImportError:
    pass

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
