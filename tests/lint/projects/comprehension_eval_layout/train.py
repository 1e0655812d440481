"""A training script that validates through the comprehensions of scoring.py."""
import torch

import scoring


def train(model, loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(scoring.predictions(model, val_loader))  # expect: TL406
        print(scoring.all_logits(model, val_loader).shape)  # expect: TL406
        print(sum(scoring.batch_hits(model, batch) for batch in val_loader))  # expect: TL406
        print(scoring.quiet_predictions(model, val_loader))
        with torch.no_grad():
            print(scoring.predictions(model, val_loader))
            print(sum(scoring.batch_hits(model, batch) for batch in val_loader))


def inspect(model, x, val_loader):
    model.eval()
    print(scoring.head_scores(model, x))
    model.train()
    print(scoring.predictions(model, val_loader))


def fine_tune_frozen(model, optimizer, loader):
    model.eval()  # BatchNorm statistics stay fixed while fine-tuning
    return scoring.fine_tune(model, optimizer, loader)
