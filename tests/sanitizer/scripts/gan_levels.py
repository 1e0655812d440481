"""A healthy GAN in the style of the DCGAN example: the discriminator steps first (its
loss on real and on fake batches, backward one after the other), then the generator.
The discriminator's loss (the mean of its two) falls from about 0.4 to 0.05 and comes
back to 0.5, while the generator's climbs from about 1.2 to 3.7 and falls back to 2.3:
each at a level of its own, 10 to 60 times apart.
Expected: nothing (`divergence` and `loss_spike` judge each optimizer's losses apart,
or not at all while they take turns).

    critic     the discriminator steps 5 times per generator step (a WGAN's schedule), at
               a quarter of the learning rate
    fault      the real batch of iteration 150 is given the fake label (a data bug): the
               discriminator's loss jumps to about 1.5, 30 times its level and still under
               the generator's. Expected: loss_spike of the discriminator's optimizer at
               its step of that iteration (step 301), at the line of the real loss.
"""
import sys

import torch
from torch import nn

arguments = sys.argv[1:]
n_critic = 5 if "critic" in arguments else 1
torch.manual_seed(0)
latent, pixels = 8, 16
images = torch.tanh(torch.randn(2048, pixels) @ torch.randn(pixels, pixels) / 4) * 0.5 + 0.4
netG = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, pixels), nn.Tanh())
netD = nn.Sequential(nn.Linear(pixels, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3 if n_critic == 1 else 5e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.999))
d_losses, g_losses = [], []
for i in range(400):
    for _ in range(n_critic):
        real = images[torch.randint(0, len(images), (32,))]
        label = torch.zeros(32, 1) if "fault" in arguments and i == 150 else torch.ones(32, 1)
        netD.zero_grad()
        errD_real = criterion(netD(real), label)
        errD_real.backward()
        fake = netG(torch.randn(32, latent))
        errD_fake = criterion(netD(fake.detach()), torch.zeros(32, 1))
        errD_fake.backward()
        optimizerD.step()
    netG.zero_grad()
    errG = criterion(netD(fake), torch.ones(32, 1))
    errG.backward()
    optimizerG.step()
    d_losses.append((errD_real + errD_fake).item())
    g_losses.append(errG.item())
print(round(sum(d_losses) / len(d_losses), 3), round(sum(g_losses) / len(g_losses), 3))
