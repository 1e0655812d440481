import torch

from engine import run_batch_for_caller, run_batch_then_update
from steps import train_one_step

model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
batches = [torch.randn(4, 2) for _ in range(8)]

train_one_step(model, optimizer, scaler, batches[0])  # one step per run: nothing to update for

for batch in batches:
    run_batch_for_caller(model, optimizer, scaler, batch)  # expect: TL104


def main():
    scaler = torch.amp.GradScaler("cuda")
    for batch in batches:
        run_batch_then_update(model, optimizer, scaler, batch)
    for batch in batches:
        run_batch_for_caller(model, optimizer, scaler, batch)
        scaler.update()
