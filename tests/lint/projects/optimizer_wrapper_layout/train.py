import torch

import commons


def train(generator, loader, epochs):
    optimizer_g = commons.Adam(generator.parameters(), dim_model=192, warmup_steps=4000)
    amp_scaler = torch.amp.GradScaler("cuda")
    generator.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer_g.zero_grad()
            with torch.autocast("cuda"):
                loss_g = (generator(x) - y).abs().mean()
            amp_scaler.scale(loss_g).backward()
            optimizer_g.step()  # expect: TL105
            amp_scaler.update()


def train_scaled(generator, loader, epochs):
    """A look-alike: the wrapper's step() goes through the scaler."""
    scaler = torch.amp.GradScaler("cuda")
    optimizer_g = commons.ScaledAdam(generator.parameters(), scaler, dim_model=192)
    generator.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer_g.zero_grad()
            with torch.autocast("cuda"):
                loss_g = (generator(x) - y).abs().mean()
            scaler.scale(loss_g).backward()
            optimizer_g.step()
