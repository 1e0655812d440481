"""Image classification: picks a trainer by precision and runs it."""
import torch

from config import parse_config
from trainer import AmpTrainer, Bf16Trainer
from trainer.amp_trainer import Fp16Trainer
from trainer.callbacks import DetachedHistoryTrainer, HistoryTrainer, PeriodicTidyTrainer, TidyTrainer

TRAINERS = {"bf16": Bf16Trainer, "history": HistoryTrainer, "detached": DetachedHistoryTrainer}


def main(model, train_loader, val_loader):
    config = parse_config()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    if config.precision == "fp16":
        trainer = AmpTrainer(model, optimizer, train_loader, val_loader, config)
    else:
        trainer = TRAINERS[config.precision](model, optimizer, train_loader, val_loader, config)
    trainer.fit()


def tidy(model, train_loader, val_loader, config):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    TidyTrainer(model, optimizer, train_loader, val_loader, config).fit()
    PeriodicTidyTrainer(model, optimizer, train_loader, val_loader, config).fit()


def half(model, train_loader, val_loader, config):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    Fp16Trainer(model, optimizer, train_loader, val_loader, config).fit()
