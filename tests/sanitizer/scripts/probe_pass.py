"""Two backward passes per optimizer step, the first one's gradients cleared before
the second: 20 optimizer steps, the 10th on a batch holding an Inf.

    probe   the first pass only measures the gradient norm (then zero_grad)
    sam     sharpness-aware minimization: the first pass's gradient moves the
            weights uphill, the second pass's gradient is applied to the restored weights
    microbatch  DP-SGD by hand: one pass per sample (8 of them), cleared in between, the
            clipped gradients summed and written into `.grad` for one step
    by_hand one pass per step; the first 5 steps update the weights by hand, an
            optimizer steps from step 6
Expected: 20 steps, nonfinite_input at step 10."""
import sys

import torch
import torch.nn.functional as F
from torch import nn

MODE = sys.argv[1]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(1, 21):
    x = torch.randn(32, 10)
    y = (x[:, 0] > 0).long()
    if i == 10:
        x[0, 0] = float("inf")
    if MODE == "microbatch":
        total = [torch.zeros_like(p) for p in model.parameters()]
        for sample in range(8):
            opt.zero_grad()
            F.cross_entropy(model(x[sample:sample + 1]), y[sample:sample + 1]).backward()
            norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
            for kept, p in zip(total, model.parameters()):
                kept.add_(p.grad * torch.clamp(1.0 / (norm + 1e-6), max=1.0))
        for kept, p in zip(total, model.parameters()):
            p.grad = kept / 8
        opt.step()
        continue
    if MODE == "by_hand":
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if i > 5:
            opt.step()
            opt.zero_grad()
            continue
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-0.1)
                p.grad = None
        continue
    F.cross_entropy(model(x), y).backward()
    if MODE == "probe":
        norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
        opt.zero_grad()
    else:
        with torch.no_grad():
            norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm() + 1e-12
            moves = [0.05 * p.grad / norm for p in model.parameters()]
            for p, move in zip(model.parameters(), moves):
                p.add_(move)
        opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    if MODE == "sam":
        with torch.no_grad():
            for p, move in zip(model.parameters(), moves):
                p.sub_(move)
    opt.step()
    opt.zero_grad()
    print(f"{i} {loss.item():.6f}")
