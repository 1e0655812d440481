"""K-fold cross-validation: every fold trains a fresh model with a fresh optimizer,
and each epoch ends on a short batch (6,531 training samples in batches of 128:
51 full batches and one of 3, the default `drop_last=False`). Once the model fits,
a full batch's mean gradient is small, while a batch of 3 holding one hard sample
has a gradient 5 to 11 times larger: noise of the short batch, not a spike.
Healthy: nothing to report (step 208, the end of the first fold, was reported as a
grad_spike when short batches were judged like full ones).
`--corrupt-step N`: the N-th training batch (a full one) has its inputs scaled by
1000: loss_spike and grad_spike at step N.
`--lr-of-fold F LR`: fold F (from 0) trains at learning rate LR; at 30 its loss
blows up within its first steps and stays there: divergence in that fold (each
fold is judged from its own first losses)."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Subset, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--corrupt-step", type=int, default=0)
parser.add_argument("--lr-of-fold", type=float, nargs=2, default=(-1, 0.0), metavar=("FOLD", "LR"))
args = parser.parse_args()

torch.manual_seed(0)
features = torch.randn(8708, 20)
labels = (features @ torch.randn(20, 3)).argmax(1)
dataset = TensorDataset(features, labels)
seen = 0


def train_fold(train_ids: list[int], val_ids: list[int], lr: float) -> float:
    global seen
    train_loader = DataLoader(Subset(dataset, train_ids), batch_size=128, shuffle=True)
    val_loader = DataLoader(Subset(dataset, val_ids), batch_size=512)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    val_loss = float("nan")
    for epoch in range(4):
        model.train()
        for inputs, targets in train_loader:
            seen += 1
            if seen == args.corrupt_step:
                inputs = inputs * 1000
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
        model.eval()
        total = 0.0
        with torch.no_grad():
            for inputs, targets in val_loader:
                total += criterion(model(inputs), targets).item() * len(inputs)
        val_loss = total / len(val_ids)
    return val_loss


order = torch.randperm(len(dataset)).tolist()
scores = []
for fold in range(4):
    held_out = order[fold::4]
    kept = set(held_out)
    lr = args.lr_of_fold[1] if fold == args.lr_of_fold[0] else 3e-3
    scores.append(train_fold([i for i in order if i not in kept], held_out, lr))
print(f"cross-validated loss {sum(scores) / len(scores):.3f}")
