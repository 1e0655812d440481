"""A regression trained with SGD; after each epoch its weights are copied into a separate
evaluation model (`eval_model.load_state_dict(model.state_dict())`), which computes the
validation loss under no_grad. The copy's output never feeds the training loss: it is no
target network, and the loss's level is judged. At epoch 3 the learning rate is set to
50 (`--blow-up`): the loss blows up at the epoch's second step (62) and goes NaN."""
import sys

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(22)


def make() -> nn.Module:
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))


model, eval_model = make(), make().eval()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
inputs = torch.randn(640, 8)
targets = inputs.sum(1, keepdim=True) + 0.1 * torch.randn(640, 1)
for epoch in range(6):
    if epoch == 3 and "--blow-up" in sys.argv:
        for group in opt.param_groups:
            group["lr"] = 50.0
    for start in range(0, 640, 32):
        loss = F.mse_loss(model(inputs[start:start + 32]), targets[start:start + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    eval_model.load_state_dict(model.state_dict())
    with torch.no_grad():
        validation = F.mse_loss(eval_model(inputs[:128]), targets[:128]).item()
    print(epoch, f"{validation:.4g}")
