"""A model memorises random labels while, every epoch, the script evaluates it on
the training data and then on the validation data (to print both, as makemore and
pytorch/examples' gcn do). Only the second evaluation is a validation loss.

--data loader      DataLoaders: training batches, then one loader over the training
                   dataset and one over the validation dataset inside `evaluate`
--data slices      batches sliced from one tensor (`x[i:i + 16]`), evaluated on all of it
--data split       train and validation are two halves of one tensor (`X[:64]`, `X[64:]`)
--data full-batch  one whole tensor trained on and evaluated, train and validation
                   told apart by masks applied to the output (a graph's nodes)
--val-only         evaluate the validation data only
"""
import argparse

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--data", choices=["loader", "slices", "split", "full-batch"], required=True)
parser.add_argument("--val-only", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
inputs, labels = torch.randn(128, 16), torch.randint(0, 4, (128,))
model = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 4))
opt = torch.optim.Adam(model.parameters(), lr=0.01)


def evaluate_tensors(x, y, mask=None):
    model.eval()
    with torch.no_grad():
        out = model(x)
        if mask is not None:
            out, y = out[mask], y[mask]
        return F.cross_entropy(out, y).item()


def evaluate_dataset(dataset):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in DataLoader(dataset, batch_size=32):
            losses.append(F.cross_entropy(model(x), y).item())
    return sum(losses) / len(losses)


def train_batch(x, y, mask=None):
    model.train()
    out = model(x)
    if mask is not None:
        out, y = out[mask], y[mask]
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()


train_set, val_set = TensorDataset(inputs[:64].clone(), labels[:64].clone()), TensorDataset(inputs[64:], labels[64:])
loader = DataLoader(train_set, batch_size=16, shuffle=True)
train_x, train_y = inputs[:64].clone(), labels[:64].clone()
val_x, val_y = inputs[64:].clone(), labels[64:].clone()
train_mask = torch.arange(128) < 64
val = None
for epoch in range(150 if args.data == "full-batch" else 60):
    if args.data == "loader":
        for x, y in loader:
            train_batch(x, y)
        if not args.val_only:
            evaluate_dataset(train_set)
        val = evaluate_dataset(val_set)
    elif args.data == "full-batch":
        train_batch(inputs, labels, train_mask)
        if not args.val_only:
            evaluate_tensors(inputs, labels, train_mask)
        val = evaluate_tensors(inputs, labels, ~train_mask)
    else:
        x, y = (train_x, train_y) if args.data == "slices" else (inputs[:64], labels[:64])
        for i in range(0, 64, 16):
            train_batch(x[i:i + 16], y[i:i + 16])
        if not args.val_only:
            evaluate_tensors(x, y)
        val = evaluate_tensors(val_x, val_y) if args.data == "slices" else evaluate_tensors(inputs[64:], labels[64:])
print(f"val {val:.6f}")
