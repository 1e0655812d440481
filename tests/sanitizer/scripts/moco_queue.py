"""Momentum-contrast training (MoCo v1 settings: temperature 0.07) on noisy views of
points in 16 dimensions. The negative queue starts as random unit vectors, so the
first loss is tiny (the positive logit is ~14, the negatives ~0); as real keys fill
the queue the loss rises 30 to 60 times over a dozen steps, then trains down. Healthy:
expected to report nothing."""
import argparse
import copy

import torch
from torch import nn
from torch.nn import functional as F


class Contrast(nn.Module):
    def __init__(self, size: int, dim: int, temperature: float) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, dim))
        self.momentum_encoder = copy.deepcopy(self.encoder).requires_grad_(False)
        self.register_buffer("negatives", F.normalize(torch.randn(size, dim), dim=1))
        self.slot = 0
        self.temperature = temperature

    def forward(self, view: torch.Tensor, other_view: torch.Tensor) -> torch.Tensor:
        query = F.normalize(self.encoder(view), dim=1)
        with torch.no_grad():
            for slow, fast in zip(self.momentum_encoder.parameters(), self.encoder.parameters()):
                slow.lerp_(fast, 0.01)
            key = F.normalize(self.momentum_encoder(other_view), dim=1)
        positive = (query * key).sum(dim=1, keepdim=True)
        logits = torch.cat([positive, query @ self.negatives.clone().t()], dim=1) / self.temperature
        count = key.shape[0]
        self.negatives[self.slot:self.slot + count] = key
        self.slot = (self.slot + count) % self.negatives.shape[0]
        return logits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=90)
    parser.add_argument("--temperature", type=float, default=0.07)
    args = parser.parse_args()
    torch.manual_seed(1)
    points = torch.randn(2048, 16)
    model = Contrast(size=512, dim=32, temperature=args.temperature)
    optimizer = torch.optim.SGD(model.encoder.parameters(), lr=0.03, momentum=0.9)
    for step in range(1, args.steps + 1):
        batch = points[torch.randint(0, len(points), (32,))]
        logits = model(batch + 0.1 * torch.randn_like(batch), batch + 0.1 * torch.randn_like(batch))
        loss = F.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
