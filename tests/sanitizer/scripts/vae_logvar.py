"""A VAE whose forward returns (reconstruction, mean, log-variance), all three read by
the loss. `--fault`: the log-variance is the log of a ReLU head, -Inf wherever the ReLU
is 0, so the KL term is Inf from step 1 while the reconstruction, the first output, is
finite. Expected: nonfinite_activation naming the VAE, whose own code made it (not "the
loss computation"). Healthy: nothing."""
import sys

import torch
import torch.nn.functional as F
from torch import nn

fault = "--fault" in sys.argv[1:]
torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Linear(32, 24)
        self.mu = nn.Linear(24, 4)
        self.logvar = nn.Linear(24, 4)
        self.dec = nn.Linear(4, 32)

    def forward(self, x):
        h = F.relu(self.enc(x))
        logvar = torch.log(F.relu(self.logvar(h))) if fault else self.logvar(h)
        mu = self.mu(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.dec(z)), mu, logvar


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.rand(256, 32)
for epoch in range(2):
    for start in range(0, 256, 32):
        x = data[start:start + 32]
        recon, mu, logvar = model(x)
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = F.binary_cross_entropy(recon, x, reduction="sum") + kld
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print(f"loss {loss.item():.2f}")
