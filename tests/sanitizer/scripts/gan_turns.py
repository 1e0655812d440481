"""A GAN in the style of the classic one-file GAN implementations: the generator
steps first, then the discriminator, each with its own Adam, over several epochs
of a small loader of 4x4 "images". The discriminator's gradients are tens of
times larger than the generator's and its loss sits at a different level: a
spike check that mixed the two optimizers' steps would flag every discriminator
step. `--corrupt` scales the real batch of epoch 3, batch 2 by 30, which the
discriminator's step (step 2 * (3 * 8 + 2) + 2 = 54) must flag."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=5)
parser.add_argument("--corrupt", action="store_true")
opt = parser.parse_args()
torch.manual_seed(0)
latent_dim, pixels = 16, 16
images = torch.tanh(torch.randn(256, pixels) @ torch.randn(pixels, pixels) / 4)
dataloader = DataLoader(TensorDataset(images), batch_size=32, shuffle=True)

generator = nn.Sequential(nn.Linear(latent_dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, pixels), nn.Tanh())
discriminator = nn.Sequential(nn.Linear(pixels, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2),
                              nn.Linear(128, 1), nn.Sigmoid())


def weights_init_normal(m: nn.Module) -> None:
    if isinstance(m, nn.Linear):
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)


generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
adversarial_loss = nn.BCELoss()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))

for epoch in range(opt.n_epochs):
    for i, (imgs,) in enumerate(dataloader):
        if opt.corrupt and (epoch, i) == (3, 2):
            imgs = imgs * 30
        valid = torch.ones(imgs.shape[0], 1)
        fake = torch.zeros(imgs.shape[0], 1)

        optimizer_G.zero_grad()
        gen_imgs = generator(torch.randn(imgs.shape[0], latent_dim))
        g_loss = adversarial_loss(discriminator(gen_imgs), valid)
        g_loss.backward()
        optimizer_G.step()

        optimizer_D.zero_grad()
        real_loss = adversarial_loss(discriminator(imgs), valid)
        fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), fake)
        d_loss = (real_loss + fake_loss) / 2
        d_loss.backward()
        optimizer_D.step()
    print(f"[Epoch {epoch}/{opt.n_epochs}] [D loss: {d_loss.item():f}] [G loss: {g_loss.item():f}]")
