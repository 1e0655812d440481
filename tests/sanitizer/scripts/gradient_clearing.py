"""A small classifier trained with an encoder optimizer and a head optimizer, its
gradients cleared in one of the ways real loops clear them, or not at all.

    --clear HOW       zero_grad (default) | in_place (zero_grad(set_to_none=False)) |
                      data (p.grad.data.zero_() by hand) | model (model.zero_grad()) |
                      none_by_hand (p.grad = None) | after_step (zero_grad after the step) |
                      accumulate (4 micro-batches per step) | never | head_only |
                      accumulate_wrong (cleared every 4 micro-batches, stepped on each) |
                      model_beside_temperature / model_in_place_beside_temperature
                      (model.zero_grad(), in place or not, while the head's optimizer also
                      steps a temperature kept outside the model, which it never clears) |
                      optimizers_beside_temperature (each optimizer.zero_grad(): clears it)
    --lr LR           learning rate of both optimizers (default 0.05)
    --iterations N    (default 60)
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.encoder(x))


def clear(how, model, optimizers):
    if how in ("zero_grad", "accumulate"):
        for optimizer in optimizers:
            optimizer.zero_grad()
    elif how == "in_place":
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=False)
    elif how == "data":
        for param in model.parameters():
            if param.grad is not None:
                param.grad.data.zero_()
    elif how in ("model", "model_beside_temperature"):
        model.zero_grad()
    elif how == "model_in_place_beside_temperature":
        model.zero_grad(set_to_none=False)
    elif how == "optimizers_beside_temperature":
        for optimizer in optimizers:
            optimizer.zero_grad()
    elif how == "none_by_hand":
        for param in model.parameters():
            param.grad = None
    elif how == "head_only":
        optimizers[1].zero_grad()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clear", default="zero_grad")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--iterations", type=int, default=60)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Classifier()
    # a CLIP-style learnable temperature, outside the model, stepped by the head's optimizer
    temperature = nn.Parameter(torch.tensor(1.0)) if args.clear.endswith("temperature") else None
    optimizers = [torch.optim.SGD(model.encoder.parameters(), lr=args.lr, momentum=0.9),
                  torch.optim.SGD([*model.head.parameters(), *([temperature] if temperature is not None else [])],
                                  lr=args.lr, momentum=0.9)]
    inputs = torch.randn(512, 10)
    labels = (inputs[:, :3].argmax(dim=1) + (inputs[:, 3] > 1).long()) % 3
    micro_batches = 4 if args.clear in ("accumulate", "accumulate_wrong") else 1
    batch = 0
    for iteration in range(args.iterations):
        for micro in range(micro_batches):
            if args.clear == "accumulate_wrong":
                if micro == 0:
                    clear("zero_grad", model, optimizers)
            elif micro == 0 and args.clear != "after_step":
                clear(args.clear, model, optimizers)
            start = (batch * 32) % len(inputs)
            batch += 1
            logits = model(inputs[start:start + 32])
            if temperature is not None:
                logits = logits * temperature.exp()
            loss = F.cross_entropy(logits, labels[start:start + 32]) / micro_batches
            loss.backward()
            if args.clear == "accumulate_wrong":
                for optimizer in optimizers:
                    optimizer.step()  # on each micro-batch
        if args.clear != "accumulate_wrong":
            for optimizer in optimizers:
                optimizer.step()  # once per iteration
        if args.clear == "after_step":
            clear("zero_grad", model, optimizers)
    print(f"loss: {loss.item():.4f}")


if __name__ == "__main__":
    main()
