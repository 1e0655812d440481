"""A training loop that validates through the wrappers of evaluation.py."""
import torch

from evaluation import Evaluator, score, score_decorated, score_guarded, score_restarted, validate
from trainer import Trainer


def train(model, loader, val_loader, optimizer, epochs):
    evaluator = Evaluator(model)
    trainer = Trainer(model, val_loader)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        print(validate(model, val_loader))  # expect: TL406
        model.eval()
        print(score(model, val_loader))  # expect: TL406
        print(evaluator.evaluate(val_loader))  # expect: TL406
        print(score_guarded(model, val_loader))
        print(score_decorated(model, val_loader))
        print(score_restarted(model, val_loader))
        print(trainer.validate())  # expect: TL406
        print(trainer.validate_guarded())
        print(trainer.validate_restarted())
        with torch.no_grad():
            print(validate(model, val_loader))
            print(score(model, val_loader))
            print(evaluator.evaluate(val_loader))
            print(trainer.validate())


@torch.inference_mode()
def final_check(model, val_loader):
    model.eval()
    return validate(model, val_loader), score(model, val_loader)
