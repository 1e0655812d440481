"""Two optimizers, one per network."""
from . import losses
from .common import *  # noqa: F403
from .networks import Discriminator, Generator


def train_gan(loader, z_dim, data_dim, epochs):
    G, D = Generator(z_dim, data_dim).to(DEVICE), Discriminator(data_dim).to(DEVICE)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    history = {}
    for epoch in range(epochs):
        for real in loader:
            real = real.to(DEVICE)
            z = torch.randn(real.shape[0], z_dim, device=DEVICE)
            with autocast():  # expect: TL102
                fake = G(z)
                d_loss = losses.discriminator_loss(D(real), D(fake.detach()))
            opt_d.zero_grad()
            d_loss.backward()  # expect: TL103
            opt_d.step()
            g_loss = losses.generator_loss(D(fake))
            g_loss.backward()  # expect: TL103
            opt_g.step()  # expect: TL401
            losses.log_losses(history, d=d_loss.item(), g=g_loss.item())
    return G


def train_gan_logged(loader, z_dim, data_dim, epochs):
    G, D = Generator(z_dim, data_dim).to(DEVICE), Discriminator(data_dim).to(DEVICE)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
    history = {"d": [], "g": []}
    for epoch in range(epochs):
        for step, real in enumerate(loader):
            z = torch.randn(real.shape[0], z_dim, device=DEVICE)
            fake = G(z)
            d_loss = losses.discriminator_loss(D(real), D(fake.detach()))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = losses.generator_loss(D(fake))
            g_loss.backward()
            opt_g.step()
            history["d"].append(d_loss)  # expect: TL202
            history["g"].append(g_loss.item())
            losses.release_memory()  # expect: TL201
            if step % 1000 == 0:
                losses.release_memory()
    return G, history
