"""Fine-tuning: the optimizer gets the model's parameters through the layer-decay
builder, and the epoch loop never puts the model back in train mode."""
import torch

import layer_decay
from engine import evaluate, train_one_epoch


def main(model, train_loader, val_loader, epochs):
    groups = layer_decay.param_groups(model, 0.05)
    optimizer = torch.optim.AdamW(groups, lr=1e-3)
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer)
        print(epoch, evaluate(val_loader, model))  # expect: TL405
