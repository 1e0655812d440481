"""A catalogue model trained on two objectives at once: a shared encoder of item
features, a category head trained with cross-entropy, and a relevance scorer
trained with a pairwise margin ranking term (in each pair the relevant item must
score a margin above the other), as search and recommendation models combine them.
The pairs are easy: from step 83 on every pair of a batch meets the margin, the
ranking term is exactly 0 and the scorer's gradients are all zero, while the
cross-entropy trains on: healthy, nothing to report.

--term module|relu   the ranking term as nn.MarginRankingLoss, or written by hand
                     as relu(margin - (s_relevant - s_other)).mean()
--prune-step N       the scorer's output layer is pruned away whole at step N (a
                     pruning amount of 1.0): every item scores the same, the
                     ranking term stays at the margin, and the scorer gets all-zero
                     gradients from step N on: it stopped learning
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import prune

parser = argparse.ArgumentParser()
parser.add_argument("--term", choices=["module", "relu"], default="module")
parser.add_argument("--prune-step", type=int, default=0)
args = parser.parse_args()
MARGIN, BATCH, PAIRS = 0.5, 64, 32


class CatalogueModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
        self.category = nn.Linear(64, 5)
        # no bias: a pairwise term compares two scores, a bias would cancel out
        self.scorer = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1, bias=False))

    def forward(self, items):
        hidden = self.encoder(items)
        return self.category(hidden), self.scorer(hidden).squeeze(-1)


torch.manual_seed(0)
relevance_direction, category_map = torch.randn(16), torch.randn(16, 5)
items = torch.randn(1024, 16)
categories = (items @ category_map + 0.5 * torch.randn(1024, 5)).argmax(1)
pool = torch.randn(4096, 16)
relevance = pool @ relevance_direction
relevant, other = pool[relevance > 3][:512], pool[relevance < -3][:512]
model = CatalogueModel()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
ranking = nn.MarginRankingLoss(margin=MARGIN)

for step in range(1, 301):
    if step == args.prune_step:
        prune.l1_unstructured(model.scorer[2], "weight", amount=1.0)
    batch = (step - 1) % (len(items) // BATCH)
    pairs = (step - 1) % (len(relevant) // PAIRS)
    logits, _ = model(items[batch * BATCH:(batch + 1) * BATCH])
    _, relevant_scores = model(relevant[pairs * PAIRS:(pairs + 1) * PAIRS])
    _, other_scores = model(other[pairs * PAIRS:(pairs + 1) * PAIRS])
    if args.term == "module":
        rank_loss = ranking(relevant_scores, other_scores, torch.ones_like(relevant_scores))
    else:
        rank_loss = F.relu(MARGIN - (relevant_scores - other_scores)).mean()
    loss = F.cross_entropy(logits, categories[batch * BATCH:(batch + 1) * BATCH]) + rank_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step}: loss {loss.item():.4f} ranking {rank_loss.item():.4f}")
