"""A small GAN on 2-D points whose discriminator wins gradually: the generator learns
too slowly (a learning rate 50 times the discriminator's smaller), so over 400
iterations the discriminator's loss falls from 1.4 to about 0.3 while the
generator's climbs from 0.7 to about 1.7. Nothing is non-finite and no loss jumps.
Every 50 iterations the script scores, without gradients, the discriminator on
held-out real points and on a fixed batch of noise through the generator (its
loss falls with its training loss). Expected: nothing: the generator's rising loss
is the discriminator winning, not a divergence, and neither model overfits.
`fast`: the discriminator learns 4 times faster (its loss reaches about 0.02, the
generator's 5): nothing either."""
import sys

import torch
from torch import nn

fast = "fast" in sys.argv[1:]
torch.manual_seed(0)
centre = torch.tensor([2.0, -1.0])
gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-5)
opt_d = torch.optim.Adam(disc.parameters(), lr=2e-3 if fast else 5e-4)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
held_out, fixed_noise = centre + 0.5 * torch.randn(64, 2), torch.randn(64, 4)
for iteration in range(1, 401):
    real = centre + 0.5 * torch.randn(64, 2)
    fake = gen(torch.randn(64, 4))
    loss_d = bce(disc(real), ones) + bce(disc(fake.detach()), zeros)
    opt_d.zero_grad()
    loss_d.backward()
    opt_d.step()
    loss_g = bce(disc(fake), ones)
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if iteration % 50 == 0:
        with torch.no_grad():
            scored = bce(disc(held_out), ones) + bce(disc(gen(fixed_noise)), zeros)
        print(f"{iteration} D {loss_d.item():.3f} G {loss_g.item():.3f} held-out D {scored.item():.3f}")
