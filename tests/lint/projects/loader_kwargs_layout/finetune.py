"""Trains on the loader the options build, through a loop of another module that
never gives the sampler an epoch: every epoch sees the same order."""
from torch.utils.data import DataLoader

from loops import fit
from options import loader_options


def main(cfg, model, optimizer, train_set, val_set):
    train_options = loader_options(cfg, train_set, "train")
    train_options["num_workers"] = cfg.workers
    train_loader = DataLoader(  # expect: TL302
        train_set,
        pin_memory=True,
        **train_options,
    )
    print(f"{len(train_loader)} batches")
    eval_options = loader_options(cfg, val_set, "val")
    eval_loader = DataLoader(val_set, **eval_options)
    fit(model, train_loader, optimizer, cfg.epochs)
    return eval_loader
