"""A script run from its own folder: `from utils import *` is scripts/utils.py."""
import torch

from trainer import fit, train_step
from trainer.memory import release_sometimes
from trainer.loop import build_model
from models.build import build_float_model
from utils import *


def main(loader, width):
    model = build_model(width)  # expect: TL107
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0
    history = []
    for step, batch in enumerate(loader):
        loss = train_step(model, batch, optimizer)  # expect: TL201
        total += loss  # expect: TL202
        log_value(history, loss)
        release_sometimes(step)


def finetune(loader, width):
    model = build_float_model(width)
    to_half(model)  # expect: TL107
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, loader, optimizer)


def distill(loader, width):
    student = build_float_model(width)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    fit(student, loader, optimizer)
