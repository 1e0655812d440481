"""A GAN in the style of the DCGAN example, on 2-D points around a ring: two
models at module level (`netG`, its Sequential ending in Tanh, and `netD`),
two optimizers, `nn.BCEWithLogitsLoss` as a module, and a parameter-free augmentation
module applied to the real batch. `--fault` sets a weight of netG.main.2 to
Inf before iteration 6 (step 11, the discriminator's step): every module must
be named as `netG.named_modules()` / `netD.named_modules()` name it, prefixed
with the variable."""
import argparse
import math

import torch
from torch import nn


class Jitter(nn.Module):
    """Augmentation: a small random rotation of each point (no parameters)."""

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        angle = 0.05 * torch.randn(points.shape[0], 1)
        cos, sin = angle.cos(), angle.sin()
        return torch.cat([cos * points[:, :1] - sin * points[:, 1:], sin * points[:, :1] + cos * points[:, 1:]], 1)


class Generator(nn.Module):
    def __init__(self, nz: int) -> None:
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                  nn.Linear(64, 2), nn.Tanh())

    def forward(self, noise: torch.Tensor) -> torch.Tensor:
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.main = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        return self.main(points).view(-1)


def ring(n: int) -> torch.Tensor:
    angle = torch.randint(0, 8, (n,)).float() * (2 * math.pi / 8)
    return 0.8 * torch.stack([angle.cos(), angle.sin()], 1) + 0.02 * torch.randn(n, 2)


parser = argparse.ArgumentParser()
parser.add_argument("--fault", action="store_true")
parser.add_argument("--iterations", type=int, default=30)
opt = parser.parse_args()
torch.manual_seed(0)
nz = 8
netG = Generator(nz)
netD = Discriminator()
augment = Jitter()
criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
for iteration in range(1, opt.iterations + 1):
    if opt.fault and iteration == 6:
        with torch.no_grad():
            netG.main[2].weight[0, 0] = float("inf")
    netD.zero_grad()
    real = augment(ring(64))
    errD_real = criterion(netD(real), torch.ones(64))
    errD_real.backward()
    fake = netG(torch.randn(64, nz))
    errD_fake = criterion(netD(fake.detach()), torch.zeros(64))
    errD_fake.backward()
    optimizerD.step()
    netG.zero_grad()
    errG = criterion(netD(fake), torch.ones(64))
    errG.backward()
    optimizerG.step()
print(f"Loss_D {(errD_real + errD_fake).item():.3f} Loss_G {errG.item():.3f}")
