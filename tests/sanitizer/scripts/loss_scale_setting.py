"""Mixed-precision regression of house prices (log scale) from tabular features: fp16
autocast on the CPU and a GradScaler whose starting scale comes from the command line,
as a config file or a port of old static-loss-scale code sets it.

`--init-scale 1e-12`: every fp16 gradient flushes to zero and the model never moves
(grad_underflow, not a collapse: the scale was set there, nothing skipped or fell).
`--init-scale 0.25`: a scale below 1 that the gradients survive, the run trains."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--init-scale", type=float, default=2.0 ** 16)
parser.add_argument("--epochs", type=int, default=6)
args = parser.parse_args()

torch.manual_seed(0)
features = torch.randn(1024, 12)
price = features @ torch.linspace(-0.5, 0.8, 12) + 0.3 * features[:, 0] * features[:, 1] + 0.1 * torch.randn(1024)
loader = DataLoader(TensorDataset(features, price.unsqueeze(1)), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(12, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
scaler = torch.amp.GradScaler("cpu", init_scale=args.init_scale)

for epoch in range(args.epochs):
    model.train()
    total = 0.0
    for x, y in loader:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x).float(), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    print(f"epoch {epoch}: mse {total / len(loader):.4f}, loss scale {scaler.get_scale():.3g}")
