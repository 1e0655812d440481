"""A small GAN on 2-D points whose discriminator wins early: its loss falls from 1.4 to
0.2 within 20 of its steps and sits near 0.002 from its step 60 on. At iteration 100
one real point lies far from the others (an outlier of the data): the discriminator's
loss blips to 0.08, 30 times its median but a thirteenth of where it started. Healthy:
no spike. `--swap` feeds the generator's points as the real batch at iteration 100 (a
pipeline that mixed up its batches): a loss spike there."""
import sys

import torch
from torch import nn

swap = "--swap" in sys.argv[1:]
torch.manual_seed(0)
centre = torch.tensor([2.0, -1.0])
gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-4)
opt_d = torch.optim.Adam(disc.parameters(), lr=2e-2)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
for iteration in range(110):
    real = torch.randn(64, 2) * 0.3 + centre
    if iteration == 100:
        if swap:
            real = gen(torch.randn(64, 4)).detach()
        else:
            real[0] = centre + torch.tensor([-1.6, 1.6])
    fake = gen(torch.randn(64, 4))
    d_loss = bce(disc(real), ones) + bce(disc(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(disc(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
print(f"discriminator {d_loss.item():.4f} generator {g_loss.item():.4f}")
