"""A deterministic CPU run (dropout, shuffled DataLoader, Adam, LayerNorm) that prints
fingerprints of its final parameters, every RNG state and its losses."""
import hashlib
import random

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

random.seed(0)
torch.manual_seed(0)
data = TensorDataset(torch.randn(96, 10), torch.randint(0, 4, (96,)))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(10, 32), nn.LayerNorm(32), nn.ReLU(inplace=True), nn.Dropout(0.2),
                      nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
losses = []
for epoch in range(3):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
model.eval()
with torch.no_grad():
    val = nn.functional.cross_entropy(model(data.tensors[0]), data.tensors[1]).item()
digest = hashlib.sha256()
for name, param in model.named_parameters():
    digest.update(name.encode())
    digest.update(param.detach().numpy().tobytes())
print("params", digest.hexdigest())
print("torch rng", hashlib.sha256(torch.get_rng_state().numpy().tobytes()).hexdigest())
print("python rng", random.random())
print("losses", [float.hex(v) for v in losses])
print("val", float.hex(val))
