"""A WGAN with gradient penalty on 2-D points, in the style of the usual one-file
implementations: five critic steps per generator step, each with its own Adam, and
the penalty taken from `torch.autograd.grad(..., create_graph=True)`, so every
critic step back-propagates through a backward pass. The critic's last bias
cancels out of its loss (a difference of means, and a gradient with respect to
the input): it only ever gets zero gradients, which the run reports.

`--fault N` takes the norm of iteration N's penalty as `sqrt(sum of squares)` of
gradients scaled to zero: its derivative at zero is infinite, so the critic's
gradients turn NaN on that iteration's first critic step (step 6 * N + 1), while
the loss stays finite."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=120)
parser.add_argument("--fault", type=int, default=-1)
args = parser.parse_args()
torch.manual_seed(0)

generator = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
critic = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
centers = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])


def real_points(n: int = 256) -> torch.Tensor:
    return centers[torch.randint(0, 4, (n,))] + 0.05 * torch.randn(n, 2)


def gradient_penalty(real: torch.Tensor, fake: torch.Tensor, iteration: int) -> torch.Tensor:
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grads, = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    if iteration == args.fault:
        norm = torch.sqrt((grads * 0.0).pow(2).sum(dim=1))
    else:
        norm = grads.norm(2, dim=1)
    return ((norm - 1) ** 2).mean()


for iteration in range(args.iterations):
    for _ in range(5):
        real = real_points()
        with torch.no_grad():
            fake = generator(torch.randn(256, 8))
        critic_loss = critic(fake).mean() - critic(real).mean() + 10 * gradient_penalty(real, fake, iteration)
        opt_c.zero_grad()
        critic_loss.backward()
        opt_c.step()
    generator_loss = -critic(generator(torch.randn(256, 8))).mean()
    opt_g.zero_grad()
    generator_loss.backward()
    opt_g.step()
print(f"critic loss {critic_loss.item():.4f}, generator loss {generator_loss.item():.4f}")
