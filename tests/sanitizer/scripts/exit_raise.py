"""Raises after two steps: exit status 1, traceback as plain python prints it."""
import torch

torch.manual_seed(0)  # a batch of two: unseeded, one run in ten jumps tenfold at step 2
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
raise ValueError("boom from the script")
