"""Loaders handed to engine.py's loops that pin memory, may, or are not what the
loop draws from: nothing to report."""
import torch

from engine import evaluate, train_one_epoch, train_pinning, train_prepared
from loaders import build_loader_pinned_later, build_pinned_loader


def pinned(args, model, optimizer, train_set, device):
    loader = torch.utils.data.DataLoader(train_set, batch_size=64, pin_memory=True)
    train_one_epoch(model, optimizer, loader, device)
    train_one_epoch(model, optimizer, build_pinned_loader(train_set, args), device)


def pinned_after_build(model, optimizer, train_set, device):
    loader = torch.utils.data.DataLoader(train_set, batch_size=64)
    loader.pin_memory = True
    train_one_epoch(model, optimizer, loader, device)


def decided_at_run_time(args, model, optimizer, train_set, device):
    loader = torch.utils.data.DataLoader(train_set, batch_size=64, pin_memory=args.pin)
    train_one_epoch(model, optimizer, loader, device)


def other_loops(accelerator, model, train_set, val_set, device):
    evaluate(model, torch.utils.data.DataLoader(val_set, batch_size=64), device)
    train_prepared(accelerator, model, torch.utils.data.DataLoader(train_set, batch_size=64), device)
    train_pinning(model, torch.utils.data.DataLoader(train_set, batch_size=64), device)


def handed_in(model, optimizer, loader, device):
    # whatever a caller elsewhere hands over
    train_one_epoch(model, optimizer, loader, device)


def pinned_by_the_builder(args, model, optimizer, train_set, device):
    # the builder pins its loader before it returns it
    train_one_epoch(model, optimizer, build_loader_pinned_later(train_set, args), device)
    for images, _ in build_loader_pinned_later(train_set, args):
        model(images.to(device, non_blocking=True))
