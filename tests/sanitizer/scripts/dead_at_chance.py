"""A 10-class classifier (an MLP on noisy class centres, batches of 32, Adam) whose
loss starts at chance, ln(10) = 2.3. `--lr 0.3` (a rate a hundred times too high):
the first step throws the loss to 30-60 at step 2; a few steps later it is back near
2.3 and stays there, dipping now and then under 1.9: the network was killed and
predicts little more than the class frequencies. Expected: divergence at step 2. At
the default rate 0.003 with `--outlier`, step 2's batch has its inputs scaled 300 times
(a corrupt batch): the loss is 14 times its start there, back near 2.2 at once, and
trains on from there, under 1.9 by step 20 and to 0.3."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--lr", type=float, default=0.003)
parser.add_argument("--outlier", action="store_true")
parser.add_argument("--steps", type=int, default=150)
args = parser.parse_args()

torch.manual_seed(args.seed)
CLASSES = 10
centres = torch.randn(CLASSES, 20)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, CLASSES))
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
criterion = nn.CrossEntropyLoss()
for step in range(1, args.steps + 1):
    labels = torch.randint(0, CLASSES, (32,))
    inputs = centres[labels] + torch.randn(32, 20)
    if args.outlier and step == 2:
        inputs = inputs * 300
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.3f} after {step} steps")
