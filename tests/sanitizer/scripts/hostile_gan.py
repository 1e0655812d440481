"""Two models, two optimizers (GAN-style), the model built inside the main
guard, the working directory changed, the script's own forward hook and
anomaly mode: the sanitizer must leave all of it working."""
import os
import tempfile

import torch
from torch import nn

if __name__ == "__main__":
    torch.manual_seed(0)
    os.chdir(tempfile.mkdtemp())
    generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    discriminator = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    seen = []
    handle = generator.register_forward_hook(lambda module, args, out: seen.append(out.shape[0]))
    g_opt = torch.optim.Adam(generator.parameters(), lr=1e-3)
    d_opt = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    with torch.autograd.set_detect_anomaly(True):
        for step in range(6):
            real = torch.randn(16, 2)
            fake = generator(torch.randn(16, 4))
            d_opt.zero_grad()
            d_loss = bce(discriminator(real), torch.ones(16, 1)) + bce(discriminator(fake.detach()), torch.zeros(16, 1))
            d_loss.backward()
            d_opt.step()
            g_opt.zero_grad()
            g_loss = bce(discriminator(fake), torch.ones(16, 1))
            g_loss.backward()
            g_opt.step()
    handle.remove()
    print(f"cwd-changed {os.getcwd() != os.path.dirname(__file__)} hooks-fired {len(seen)} anomaly {torch.is_anomaly_enabled()}")
    print(f"final {g_loss.item():.6f} {d_loss.item():.6f}")
