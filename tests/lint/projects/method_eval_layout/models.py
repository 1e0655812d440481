"""Models whose scoring method is not `forward`: `Ranker.score` runs the layers as a
forward does; `Popularity.score` runs none (a count table), nor does the `score` of
`ShortlistRanker`, which keeps its base's constructor, and `Ranker.size` only counts
parameters. `QuietRanker.score` and `RescoredRanker.score` are bound again after their
`def`: under `no_grad`, and by a second `def` that runs no layers."""
import torch
from torch import nn


class Ranker(nn.Module):
    def __init__(self, items, dim):
        super().__init__()
        self.items = nn.Embedding(items, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)

    def forward(self, history):
        states, _ = self.encoder(self.items(history))
        return states[:, -1]

    def score(self, history, candidates):
        user = self.forward(history)
        return (self.items(candidates) * user.unsqueeze(1)).sum(-1)

    def size(self):
        return sum(p.numel() for p in self.parameters())


class Popularity(nn.Module):
    def __init__(self, counts):
        super().__init__()
        self.register_buffer("counts", torch.as_tensor(counts, dtype=torch.float))

    def forward(self, history):
        return self.counts.expand(len(history), -1)

    def score(self, history, candidates):
        return self.counts[candidates]


class ShortlistRanker(Ranker):
    def score(self, history, candidates):
        return -torch.arange(len(candidates), dtype=torch.float)


class QuietRanker(nn.Module):
    def __init__(self, items, dim):
        super().__init__()
        self.items = nn.Embedding(items, dim)

    def forward(self, history):
        return self.items(history).mean(1)

    def score(self, history, candidates):
        return (self.items(candidates) * self.forward(history).unsqueeze(1)).sum(-1)

    score = torch.no_grad()(score)


class RescoredRanker(nn.Module):
    def __init__(self, items, dim):
        super().__init__()
        self.items = nn.Embedding(items, dim)

    def forward(self, history):
        return self.items(history).mean(1)

    def score(self, history, candidates):
        return (self.items(candidates) * self.forward(history).unsqueeze(1)).sum(-1)

    def score(self, history, candidates):  # noqa: F811
        return -torch.arange(len(candidates), dtype=torch.float)
