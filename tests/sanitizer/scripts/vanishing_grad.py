"""A sigmoid output layer whose weights are blown up at step 20: it saturates, every
gradient becomes ~0 while the loss stays high. Expected: vanishing_grad after step 20.

`converged`: full-batch least squares on noisy targets, run to its optimum: the
gradient goes to ~0 because the model learned all it can (the loss fell about
ninefold, to the noise's variance). Expected: nothing. `plateau`: the same with a
noise floor above half the first loss (it falls by a third only), the gradient
halving each step. Expected: nothing. `warm`: float64 least squares started near its
optimum (an earlier solution, nudged): the loss falls by 4% only, at every step, as
the gradient goes to ~1e-15. Expected: nothing. `float64`: float64 least squares on
targets with little noise, converged to gradients of ~1e-12. Expected: nothing.
`tiny`: targets and outputs scaled by 1e-6, so the loss is ~1e-12 and its gradients
~1e-9 from the start, trained by Adam. Expected: nothing. `deep`: a stack of eight
sigmoid layers whose biases are pushed up by 12 at step 20: every layer saturates,
the gradients vanish and the loss stays. Expected: vanishing_grad after step 20."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
if "converged" in sys.argv[1:] or "plateau" in sys.argv[1:]:
    plateau = "plateau" in sys.argv[1:]
    features = torch.randn(400 if plateau else 200, 5)
    weights = torch.tensor([0.3, -0.2, 0.1, 0.0, 0.2] if plateau else [1.0, -2.0, 0.5, 0.0, 3.0])
    targets = features @ weights + (1.0 if plateau else 1.5) * torch.randn(len(features))
    model = nn.Linear(5, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.3 if plateau else 0.1)
    for step in range(300):
        loss = nn.functional.mse_loss(model(features).squeeze(1), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{loss.item():.6f}")
    sys.exit(0)
if "warm" in sys.argv[1:] or "float64" in sys.argv[1:]:
    warm = "warm" in sys.argv[1:]
    features = torch.randn(200, 5, dtype=torch.float64)
    weights = torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0], dtype=torch.float64)
    targets = features @ weights + (0.5 if warm else 0.01) * torch.randn(200, dtype=torch.float64)
    model = nn.Linear(5, 1).double()
    if warm:
        with torch.no_grad():
            design = torch.cat([features, torch.ones(200, 1, dtype=torch.float64)], 1)
            solution = torch.linalg.lstsq(design, targets[:, None]).solution
            model.weight.copy_(solution[:5].T + 0.05)
            model.bias.copy_(solution[5])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(300 if warm else 400):
        loss = nn.functional.mse_loss(model(features).squeeze(1), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{loss.item():.6g} {model.weight.grad.norm().item():.3g}")
    sys.exit(0)
if "tiny" in sys.argv[1:]:
    features = torch.randn(512, 8)
    targets = 1e-6 * (2 * features[:, :1] - features[:, 1:2])
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(200):
        batch = torch.randint(0, len(features), (32,))
        loss = nn.functional.mse_loss(1e-6 * model(features[batch]), targets[batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{loss.item():.6g}")
    sys.exit(0)
if "deep" in sys.argv[1:]:
    model = nn.Sequential(*[layer for _ in range(8) for layer in (nn.LazyLinear(16), nn.Sigmoid())],
                          nn.Linear(16, 1), nn.Sigmoid())
    model(torch.randn(1, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for step in range(1, 41):
        x = torch.randn(32, 8)
        y = (x[:, :1] > 0).float()
        if step == 20 and not healthy:
            with torch.no_grad():
                for layer in model[::2]:
                    layer.bias.add_(12.0)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"{step} {loss.item():.4f} {sum(p.grad.norm() ** 2 for p in model.parameters()).sqrt().item():.3g}")
    sys.exit(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1), nn.Sigmoid())
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(1, 41):
    x = torch.randn(32, 8)
    y = (x[:, :1] > 0).float()
    if step == 20 and not healthy:
        with torch.no_grad():
            model[2].weight.mul_(1e4)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
