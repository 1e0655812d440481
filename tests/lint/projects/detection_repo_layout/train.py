"""Entry point: python train.py (or torchrun --nproc_per_node=8 train.py)."""
import argparse

import torch

from config import get_args_parser
from data.build import build_ema_loader, build_train_loader, build_val_loader
from engine import evaluate, evaluate_ema, train_one_epoch, train_one_epoch_unscaled
from models import build_model
from utils.dist import init_distributed_mode, is_main_process
from utils.misc import GradScaler, build_scaler


def main(args, dataset_train, dataset_val):
    init_distributed_mode(args)
    device = torch.device(args.device)
    model, criterion = build_model(args)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 40)
    scaler = GradScaler(enabled=args.amp)  # expect: TL102
    data_loader_train = build_train_loader(dataset_train, args)  # expect: TL302,TL502
    data_loader_val = build_val_loader(dataset_val, args)
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, data_loader_train, optimizer, scaler, device, epoch, args.clip_max_norm)
        lr_scheduler.step()
        if epoch % args.eval_every == 0:
            stats = evaluate(model, criterion, data_loader_val, device)  # expect: TL405
            if is_main_process():
                print(epoch, stats)


def finetune(args, dataset_train, dataset_val):
    device = torch.device(args.device)
    model, criterion = build_model(args)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = build_scaler(args.amp)
    data_loader, sampler = build_ema_loader(dataset_train, args)
    data_loader_val = build_val_loader(dataset_val, args)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        train_one_epoch_unscaled(model, criterion, data_loader, optimizer, scaler, device, args.clip_max_norm)
        evaluate_ema(model, criterion, data_loader_val, device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser("detector", parents=[get_args_parser()])
    main(parser.parse_args(), *torch.load("datasets.pt"))
