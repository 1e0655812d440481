"""Methods that call their own instance `runner` / `trainer` and reach, through it,
what their bases of another module do: as the `self` versions do."""
import torch

from bases import StepMixin
from evaluators import Validating


class Runner(StepMixin):
    def __init__(runner, model, loader):
        runner.model = model
        runner.loader = loader
        runner.optimizer = torch.optim.AdamW(model.parameters())

    def fit(runner):
        for batch in runner.loader:
            runner.training_step(batch)  # expect: TL401


class ClearingRunner(StepMixin):
    def __init__(runner, model, loader):
        runner.model = model
        runner.loader = loader
        runner.optimizer = torch.optim.AdamW(model.parameters())

    def fit(runner):
        for batch in runner.loader:
            runner.optimizer.zero_grad()
            runner.training_step(batch)


class Trainer(Validating):
    def __init__(trainer, model, loader, val_loader, criterion):
        trainer.model = model
        trainer.loader = loader
        trainer.val_loader = val_loader
        trainer.criterion = criterion
        trainer.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(trainer, epochs):
        for epoch in range(epochs):
            trainer.model.train()
            for x, y in trainer.loader:
                trainer.optimizer.zero_grad()
                trainer.criterion(trainer.model(x), y).backward()
                trainer.optimizer.step()
            trainer.model.eval()
            trainer.validate()  # expect: TL406
            with torch.no_grad():
                trainer.validate()

