"""Epoch loops that sum what the trainer's step methods return."""
from trainer import EncDecTrainer, Trainer


def train_mt(model, optimizer, loader):
    trainer = EncDecTrainer(model, optimizer)
    total = 0.0
    for batch in loader:
        total += trainer.mt_step(batch)  # expect: TL202
    return total


def train_mlm(model, optimizer, loader):
    trainer = Trainer(model, optimizer)
    losses = []
    for batch in loader:
        losses.append(trainer.mlm_step(batch))  # expect: TL202
    return losses


def train_inherited(model, optimizer, loader):
    trainer = EncDecTrainer(model, optimizer)
    total = 0.0
    for batch in loader:
        total += trainer.mlm_step(batch)  # expect: TL202
    return total


def run_epoch(trainer, loader):
    """Handed its trainer: every call of it in this file gives an EncDecTrainer."""
    total = 0.0
    for batch in loader:
        total += trainer.mt_step(batch)  # expect: TL202
    return total


def main(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        print(epoch, run_epoch(EncDecTrainer(model, optimizer), loader))


def run_given(trainer, loader):
    """Handed a trainer no call of this file tells the class of: what its step returns is unknown."""
    total = 0.0
    for batch in loader:
        total += trainer.mt_step(batch)
    return total


def train_logged(model, optimizer, loader):
    trainer = EncDecTrainer(model, optimizer)
    total = 0.0
    for batch in loader:
        total += trainer.logged_step(batch)
        total += trainer.rebound_step(batch)
        total += trainer.detached_step(batch)
        total += trainer.score(batch)
    return total
