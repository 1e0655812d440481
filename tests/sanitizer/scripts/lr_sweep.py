"""A learning-rate sweep in one script, as hyperparameter searches run it: for each
rate a fresh model and a fresh Adam optimizer train 80 steps on the same data, and
the script prints each rate's final loss. Rates 30 and 10 diverge (steps 82 and
242): their loss jumps at their second step and stays thousands of times up.
"""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
features = torch.randn(2048, 20)
labels = (features @ torch.randn(20, 5)).argmax(1)


def train(model, optimizer, steps=80):
    for step in range(steps):
        start = (step * 64) % len(features)
        loss = F.cross_entropy(model(features[start:start + 64]), labels[start:start + 64])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


for rate in (0.001, 30.0, 0.01, 10.0):
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=rate)
    print(f"lr {rate:g}: final loss {train(model, optimizer):.4f}")
