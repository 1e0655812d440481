"""Metric learning with a triplet loss: the model's `embed()` method (not its forward)
computes each embedding (it has no forward), so its layers are called one by one from
that method and no call of the model itself is seen. A validation pass after each epoch,
in eval mode, classifies each point by its nearest class mean embedding.

    --bug        `model.train()` is called once before the loop: from the second epoch
                 the embeddings are trained in eval mode (batch norm frozen, no dropout).
                 Expected: train_in_eval_mode at the first step of epoch 2 (step 5) naming
                 the model's layers that change, the batch norm first (not only the last
                 layer `embed()` called).
    --frozen-bn  the model is put back in train mode each epoch, its batch norm frozen on
                 purpose with `model.norm.eval()`: nothing to report.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

STEPS_PER_EPOCH = 4


class Embedder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(10, 32)
        self.norm = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(0.2)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(torch.relu(self.norm(self.body(x))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", action="store_true")
    parser.add_argument("--frozen-bn", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    centers = torch.randn(3, 10) * 2
    labels = torch.randint(0, 3, (256,))
    points = centers[labels] + torch.randn(256, 10)
    model = Embedder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.train()
    for epoch in range(3):
        if not args.bug:
            model.train()
        if args.frozen_bn:
            model.norm.eval()
        for step in range(STEPS_PER_EPOCH):
            rows = torch.randperm(256)[:32]
            anchor = rows
            positive = torch.stack([torch.nonzero(labels == labels[i])[step % 5, 0] for i in rows])
            negative = torch.stack([torch.nonzero(labels != labels[i])[step % 5, 0] for i in rows])
            loss = F.triplet_margin_loss(model.embed(points[anchor]), model.embed(points[positive]),
                                         model.embed(points[negative]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            embedded = model.embed(points)
            means = torch.stack([embedded[labels == k].mean(0) for k in range(3)])
            accuracy = (torch.cdist(embedded, means).argmin(1) == labels).float().mean()
    print(f"loss {loss.item():.6f} accuracy {accuracy.item():.3f}")


if __name__ == "__main__":
    main()
