"""Stateless training through `torch.func.functional_call`: the trained tensors are
detached clones of the module's parameters, kept in a dict the optimizer holds; the
module's own parameters are only its template and get no gradients. Nothing assigns
a new nn.Parameter. Expected: nothing to report."""
import torch
from torch import nn
from torch.func import functional_call

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 32), nn.Tanh(), nn.Linear(32, 1))
params = {name: value.detach().clone().requires_grad_(True) for name, value in net.named_parameters()}
optimizer = torch.optim.Adam(params.values(), lr=1e-2)
inputs = torch.randn(256, 5)
targets = inputs.pow(2).sum(1, keepdim=True)
for step in range(30):
    batch = torch.randint(0, 256, (32,))
    loss = nn.functional.mse_loss(functional_call(net, params, (inputs[batch],)), targets[batch])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{loss.item():.6f}")
