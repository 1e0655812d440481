"""Weights written outside the optimizer: after step 3's update, unit 0 is pruned and
every row renormalised, which divides that row by zero. The update left the weights
finite. Expected: nonfinite_param at step 3 saying its gradients were finite and code
outside the optimizer may have changed the weights, before step 4's forward."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(32, 4), torch.randn(32, 1)
for step in range(1, 6):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 3:
        with torch.no_grad():
            weight = model[0].weight
            weight[0] = 0
            weight.div_(weight.norm(dim=1, keepdim=True))
