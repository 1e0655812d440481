"""A DeiT/MAE-style layout: main.py builds everything and hands it to
engine.py; the helpers live in utils.py."""
import argparse

import torch
from torch.utils.data import DataLoader, DistributedSampler

from engine import evaluate, train_one_epoch
from utils import build_optimizer, sample_data


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    return parser.parse_args()


def main(args, model, train_set, val_set, aux_set):
    sampler_train = DistributedSampler(train_set, shuffle=args.shuffle)  # expect: TL302
    data_loader_train = DataLoader(train_set, sampler=sampler_train, batch_size=64)
    sampler_val = DistributedSampler(val_set, shuffle=False)
    data_loader_val = DataLoader(val_set, sampler=sampler_val, batch_size=64)
    sampler_aux = DistributedSampler(aux_set)  # expect: TL302
    aux_batches = sample_data(DataLoader(aux_set, sampler=sampler_aux))
    optimizer = build_optimizer(args, model)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    loss_scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, data_loader_train, optimizer, loss_scaler, epoch, aux_batches)
        evaluate(data_loader_val, model)


if __name__ == "__main__":
    main(get_args(), *torch.load("setup.pt"))
