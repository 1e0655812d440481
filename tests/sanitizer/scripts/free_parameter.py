"""A CLIP-style contrastive model whose temperature is a free `nn.Parameter` the
script holds (`logit_scale`, in no module), used in the loss and receiving
gradients at every step, but left out of the optimizer: it never moves. Expected:
param_not_in_optimizer naming `logit_scale`. `healthy`: it is a parameter group of
the optimizer. Expected: nothing.

`--perturb data|param-data|add`: adversarial training with a perturbation kept from
batch to batch (a leaf tensor that requires grad; an `nn.Parameter` for `param-data`
and `add`), deliberately in no optimizer: updated by hand under `no_grad` from its
gradient at every step (`delta.data -= ...`, `delta.add_(...)`). Expected: nothing."""
import argparse
import math

import torch
from torch import nn
from torch.nn import functional as F

parser = argparse.ArgumentParser()
parser.add_argument("mode", nargs="?", default="fault", choices=["fault", "healthy"])
parser.add_argument("--perturb", choices=["data", "param-data", "add"])
parser.add_argument("--steps", type=int, default=30)
args = parser.parse_args()
torch.manual_seed(0)

if args.perturb:
    points = torch.randn(512, 8)
    labels = (points[:, 0] + points[:, 1] > 0).long()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    delta = torch.zeros(32, 8, requires_grad=True)
    if args.perturb != "data":
        delta = nn.Parameter(torch.zeros(32, 8))
    for step in range(1, args.steps + 1):
        batch = torch.randint(0, len(points), (32,))
        loss = F.cross_entropy(model(points[batch] + delta), labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():  # ascend the loss, within a box of 0.1
            if args.perturb != "add":
                delta.data -= -0.02 * delta.grad.sign()
            else:
                delta.add_(0.02 * delta.grad.sign())
            delta.clamp_(-0.1, 0.1)
        delta.grad = None
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} perturbation {delta.abs().mean().item():.4f}")
    raise SystemExit(0)

images, texts = torch.randn(256, 12), torch.randn(256, 10)
texts[:, :6] += images[:, :6]  # pairs share a part
image_encoder = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))
text_encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
encoders = [*image_encoder.parameters(), *text_encoder.parameters()]
if args.mode == "healthy":
    optimizer = torch.optim.AdamW([{"params": encoders}, {"params": [logit_scale], "weight_decay": 0.0}], lr=3e-3)
else:
    optimizer = torch.optim.AdamW(encoders, lr=3e-3)
for step in range(1, args.steps + 1):
    batch = torch.randint(0, len(images), (32,))
    image = F.normalize(image_encoder(images[batch]), dim=1)
    text = F.normalize(text_encoder(texts[batch]), dim=1)
    logits = logit_scale.exp() * image @ text.t()
    targets = torch.arange(len(batch))
    loss = (F.cross_entropy(logits, targets) + F.cross_entropy(logits.t(), targets)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()  # the encoders only, unless healthy
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} logit_scale {logit_scale.item():.4f}")
