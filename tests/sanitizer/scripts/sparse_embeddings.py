"""A recommender in the style of the usual matrix-factorisation examples: user and
item tables are `nn.Embedding(sparse=True)` trained by `SparseAdam`, the tower on
top by `Adam`, both stepped after one backward pass. Every row looked up gets a
sparse gradient and changes.

`--fault N` writes a NaN into one value of the user table's sparse gradient after
step N's backward pass (a corrupt count divided by zero upstream, say): the
gradient is non-finite at step N, before either optimizer applies it. `--spare`
gives the model a layer its forward never calls, in the tower's optimizer."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--fault", type=int, default=-1)
parser.add_argument("--spare", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)


class Recommender(nn.Module):
    def __init__(self, users: int, items: int, width: int = 8) -> None:
        super().__init__()
        self.users = nn.Embedding(users, width, sparse=True)
        self.items = nn.Embedding(items, width, sparse=True)
        self.tower = nn.Sequential(nn.Linear(2 * width, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, user: torch.Tensor, item: torch.Tensor) -> torch.Tensor:
        return self.tower(torch.cat([self.users(user), self.items(item)], dim=1)).squeeze(1)


model = Recommender(40, 60)
tables = list(model.users.parameters()) + list(model.items.parameters())
sparse_opt = torch.optim.SparseAdam(tables, lr=1e-2)
if args.spare:
    model.spare = nn.Linear(4, 1)
dense_opt = torch.optim.Adam([*model.tower.parameters(), *(model.spare.parameters() if args.spare else ())], lr=1e-2)
before = model.users.weight.detach().clone()
for step in range(1, args.steps + 1):
    user, item = torch.randint(0, 40, (32,)), torch.randint(0, 60, (32,))
    rating = ((user + item) % 5).float()
    loss = F.mse_loss(model(user, item), rating)
    sparse_opt.zero_grad()
    dense_opt.zero_grad()
    loss.backward()
    if step == args.fault:
        model.users.weight.grad._values()[0, 0] = float("nan")
    sparse_opt.step()
    dense_opt.step()
print("user rows changed:", int((model.users.weight.detach() != before).any(1).sum()), "of 40")
print("final loss:", f"{loss.item():.17g}")
