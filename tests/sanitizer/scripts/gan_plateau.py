"""A small GAN on 2-D points whose discriminator ends in a sigmoid and is trained with
BCELoss. `--fault`: from iteration `--at` the discriminator's learning rate is 2, not
2e-4 (a restart of its schedule at the wrong scale), which drives its logits far past
the sigmoid's range within a few steps: its outputs saturate at exactly 0 or 1, BCELoss clamps
each log at -100, so the discriminator's loss jumps to a constant plateau (50) and
the sigmoid's backward makes every gradient exactly zero, the generator's too.
Expected: the plateau reported once, as the root; the zero gradients folded under
it, never parameters "the forward path skips"."""
import argparse

import torch
from torch import nn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", action="store_true")
    parser.add_argument("--at", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    centre = torch.tensor([2.0, -1.0], dtype=dtype)
    gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(dtype)
    disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid()).to(dtype)
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    bce = nn.BCELoss()
    ones, zeros = torch.ones(64, 1, dtype=dtype), torch.zeros(64, 1, dtype=dtype)
    for iteration in range(args.iterations):
        if args.fault and iteration == args.at:
            opt_d.param_groups[0]["lr"] = 2.0
        real = torch.randn(64, 2, dtype=dtype) * 0.3 + centre
        fake = gen(torch.randn(64, 4, dtype=dtype))
        d_loss = (bce(disc(real), ones) + bce(disc(fake.detach()), zeros)) / 2
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = bce(disc(fake), ones)
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    print(f"discriminator {d_loss.item():.4f} generator {g_loss.item():.4f}")


if __name__ == "__main__":
    main()
