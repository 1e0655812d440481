"""A parameter-free activation written as a custom autograd.Function whose backward
divides by its output (the derivative of a square root): where a unit is clipped to 0
the gradient it hands back is Inf, and the encoder's gradients become NaN. The forward
and the loss stay finite; the head, after the activation, gets finite gradients.
Expected: nonfinite_grad at step 1 naming `act` as where the NaN was born (the encoder
only received it). `healthy`: the backward adds an epsilon."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class ClippedRoot(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        root = x.clamp_min(0).sqrt()
        ctx.save_for_backward(root)
        return root

    @staticmethod
    def backward(ctx, grad):
        root, = ctx.saved_tensors
        return grad / (2 * root + (1e-3 if healthy else 0.0))


class RootActivation(nn.Module):
    def forward(self, x):
        return ClippedRoot.apply(x)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 32)
        self.act = RootActivation()
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        return self.head(self.act(self.enc(x)))


model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1, 4):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
