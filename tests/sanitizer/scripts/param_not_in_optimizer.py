"""The classifier head is attached after the optimizer was built. Expected:
param_not_in_optimizer on head.weight at step 1.

`stale`: stage 1 trains everything with one optimizer; stage 2 builds a second one
for the head alone, the first still alive but never stepped again, so the
backbone's gradients pile up unapplied. Expected: param_not_in_optimizer on
backbone.0, saying only a stopped optimizer holds it.

`masters`: an fp16 model whose optimizer steps fp32 copies of its parameters (master
weights, a static loss scale: apex O2, fairseq, Megatron); the fp16 gradients are
copied into the copies' `.grad`, the copies back into the model after each step.
Expected: nothing. `masters-not-copied`: the copies are never copied back.
Expected: param_not_in_optimizer at step 2 for each layer, saying so.
`masters-overflow`: a loss scale so large that the fp16 gradients overflow. Expected:
nonfinite_grad at step 1 naming the model's parameters, not the unnamed copies.
`flat` with any of these: one flat fp32 tensor holds the copies of all the parameters
end to end (fairseq's FP16Optimizer), the optimizer steps it; the same expectations."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
if "stale" in sys.argv[1:]:
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    first = torch.optim.SGD(model.parameters(), lr=0.1)
    second = torch.optim.SGD(model[2].parameters(), lr=0.1)
    for step in range(45):
        optimizer = first if step < 5 else second
        loss = nn.functional.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    sys.exit(0)
if {"masters", "masters-not-copied", "masters-overflow"} & set(sys.argv[1:]):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).half()
    flat = "flat" in sys.argv[1:]
    sizes = [p.numel() for p in model.parameters()]
    if flat:
        flat_master = torch.cat([p.detach().float().reshape(-1) for p in model.parameters()]).requires_grad_(True)
        master = [part.view_as(p) for part, p in zip(flat_master.detach().split(sizes), model.parameters())]
        opt = torch.optim.SGD([flat_master], lr=0.05, momentum=0.9)
    else:
        master = [p.detach().float().requires_grad_(True) for p in model.parameters()]
        opt = torch.optim.SGD(master, lr=0.05, momentum=0.9)
    scale = 2.0 ** 24 if "masters-overflow" in sys.argv[1:] else 128.0
    features = torch.randn(256, 16)
    labels = features[:, :4].argmax(1)
    for step in range(5 if "masters-overflow" in sys.argv[1:] else 20):
        batch = torch.randint(0, 256, (32,))
        loss = nn.functional.cross_entropy(model(features[batch].half()).float(), labels[batch])
        model.zero_grad()
        (loss * scale).backward()
        if flat:
            flat_master.grad = torch.cat([p.grad.float().reshape(-1) for p in model.parameters()]) / scale
        else:
            for copy, param in zip(master, model.parameters()):
                copy.grad = param.grad.float() / scale
        opt.step()
        opt.zero_grad()
        if "masters-not-copied" not in sys.argv[1:]:
            with torch.no_grad():
                for copy, param in zip(master, model.parameters()):
                    param.copy_(copy)
    sys.exit(0)
model = nn.Module()
model.backbone = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
if healthy:
    model.head = nn.Linear(12, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
if not healthy:
    model.head = nn.Linear(12, 3)
for step in range(5):
    logits = model.head(model.backbone(torch.randn(4, 6)))
    loss = nn.functional.cross_entropy(logits, torch.randint(0, 3, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
