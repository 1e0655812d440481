"""Per-sample gradients the way DP-SGD implementations take them with `torch.func`:
`vmap(grad(loss))` over the batch, each sample's gradient clipped to a norm bound,
their mean written into `p.grad`, then a plain optimizer step. Every forward pass
of the model runs inside the transforms.

`--fault N` hands step N an empty batch: the mean of no gradients is 0/0, NaN in
every parameter's gradient at that step."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--fault", type=int, default=-1)
parser.add_argument("--clip", type=float, default=1.0)
args = parser.parse_args()
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
features, labels = torch.randn(512, 8), torch.randint(0, 2, (512,))


def sample_loss(params: dict[str, torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(functional_call(model, params, (x[None],)), y[None])


def clipped_mean(per_sample: dict[str, torch.Tensor], count: int) -> dict[str, torch.Tensor]:
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).norm(dim=0)
    factor = (args.clip / (norms + 1e-6)).clamp(max=1.0)
    return {name: torch.einsum("b,b...->...", factor, g) / count for name, g in per_sample.items()}


for step in range(1, args.steps + 1):
    batch = torch.randint(0, 512, (32,)) if step != args.fault else torch.empty(0, dtype=torch.long)
    params = {name: p.detach() for name, p in model.named_parameters()}
    per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, features[batch], labels[batch])
    for name, p in model.named_parameters():
        p.grad = clipped_mean(per_sample, len(batch))[name]
    optimizer.step()
with torch.no_grad():
    accuracy = (model(features).argmax(1) == labels).float().mean().item()
print("accuracy:", f"{accuracy:.17g}")
