"""Plain leaf tensors made with `requires_grad=True`, held by the script outside any
module, beside a model an optimizer steps.

    temperature   a softmax temperature `torch.ones(1, requires_grad=True)` used in the
                  loss and left out of the optimizer: it gets a gradient at every step
                  and never moves. Expected: param_not_in_optimizer naming `temperature`.
    healthy       the same temperature in a parameter group of the optimizer. Expected: nothing.
    scale         a linear correction `w = torch.randn(8, 1, requires_grad=True)`, a local
                  of the training function, meant to be trained by hand and never
                  updated. Expected: param_not_in_optimizer naming `w`.
    by-hand       the same `w`, updated by hand from its gradient under `no_grad`.
                  Expected: nothing.
    saliency      each step's batch made to require grad (`x.requires_grad_(True)`), its
                  gradient read as a saliency map: a new tensor at each step. Expected: nothing.
    probe         a fixed probe input made once with `requires_grad=True`, run through
                  the model at each step and its gradient summed as the step's saliency
                  (never cleared): data, not a weight. Expected: nothing.
    pinn          a physics-informed net on fixed collocation points `x`, `t` that require
                  grad, given to the model through `torch.cat` and differentiated against
                  with `torch.autograd.grad`; `loss.backward()` fills their `.grad` too.
                  Expected: nothing.
"""
import sys

import torch
from torch import nn
from torch.nn import functional as F

MODE = sys.argv[1] if len(sys.argv) > 1 else "temperature"
torch.manual_seed(0)
features = torch.randn(256, 8)
labels = (features[:, 0] - features[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))


def classify(steps: int) -> None:
    temperature = torch.ones(1, requires_grad=True)
    groups = [{"params": model.parameters()}]
    if MODE == "healthy":
        groups.append({"params": [temperature], "lr": 1e-2})
    optimizer = torch.optim.Adam(groups, lr=1e-2)
    for step in range(1, steps + 1):
        batch = torch.randint(0, len(features), (32,))
        loss = F.cross_entropy(model(features[batch]) / temperature, labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()  # the model only, unless healthy
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} temperature {temperature.item():.4f}")


def corrected(steps: int) -> None:
    w = torch.randn(8, 1, requires_grad=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    targets = features[:, :1] * 2 - features[:, 1:2]
    for step in range(1, steps + 1):
        batch = torch.randint(0, len(features), (32,))
        x = features[batch]
        loss = F.mse_loss(model(x)[:, :1] + x @ w, targets[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if MODE == "by-hand":
            with torch.no_grad():
                w -= 0.05 * w.grad
            w.grad = None
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} w {w.norm().item():.4f}")


def saliency(steps: int) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    probe = features[:4].clone().requires_grad_(True)
    for step in range(1, steps + 1):
        batch = torch.randint(0, len(features), (32,))
        x = features[batch].clone()
        if MODE == "saliency":
            x.requires_grad_(True)
        loss = F.cross_entropy(model(x), labels[batch])
        if MODE == "probe":
            loss = loss + 1e-3 * model(probe).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen = x.grad if MODE == "saliency" else probe.grad
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} saliency {seen.abs().mean().item():.4g}")


def pinn(steps: int) -> None:
    """u(x, t) with u_t + u_x = 0, u(x, 0) = sin(x): u = sin(x - t)."""
    net = nn.Sequential(nn.Linear(2, 24), nn.Tanh(), nn.Linear(24, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.rand(64, 1, requires_grad=True)
    t = torch.rand(64, 1, requires_grad=True)
    edge = torch.rand(16, 1)
    for step in range(1, steps + 1):
        u = net(torch.cat([x, t], dim=1))
        u_x, u_t = torch.autograd.grad(u.sum(), (x, t), create_graph=True)
        start = net(torch.cat([edge, torch.zeros_like(edge)], dim=1))
        loss = (u_t + u_x).pow(2).mean() + (start - torch.sin(edge)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.5f}")


if MODE in ("temperature", "healthy"):
    classify(30)
elif MODE in ("scale", "by-hand"):
    corrected(30)
elif MODE in ("saliency", "probe"):
    saliency(30)
else:
    pinn(30)
