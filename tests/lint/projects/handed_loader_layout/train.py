"""A loader built here, or by a builder of loaders.py, handed to the epoch loops of
engine.py: the unpinned ones meet a non-blocking copy there, reported where built."""
import torch

from engine import evaluate, train_one_epoch
from loaders import build_loader_unpinned_later, build_train_loader


def main(args, model, optimizer, train_set, val_set):
    device = torch.device("cuda")
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)  # expect: TL502
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=64)
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer, train_loader, device)
        evaluate(model, val_loader, device)


def finetune(args, model, optimizer, train_set):
    loader = build_train_loader(train_set, args)  # expect: TL502
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer, loader, torch.device("cuda"))


def two_runs(args, model, optimizer, train_set, device):
    # two loaders written alike, each handed over, one of them twice: each is reported once
    first = torch.utils.data.DataLoader(train_set, batch_size=64)  # expect: TL502
    train_one_epoch(model, optimizer, first, device)
    second = torch.utils.data.DataLoader(train_set, batch_size=64)  # expect: TL502
    train_one_epoch(model, optimizer, second, device)
    train_one_epoch(model, optimizer, second, device)


def unpinned_by_the_builder(args, model, optimizer, train_set, device):
    # the builder writes `pin_memory = False`: still not pinned
    train_one_epoch(model, optimizer, build_loader_unpinned_later(train_set, args), device)  # expect: TL502
    for images, _ in build_loader_unpinned_later(train_set, args):
        model(images.to(device, non_blocking=True))  # expect: TL502
