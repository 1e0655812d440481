"""A regression MLP trained with a static loss scale by hand, in fp32 or under bf16
autocast: `(loss * 1024).backward()`, then every gradient divided by 1024 before
`optimizer.step()` (what apex's static scaling and old fairseq did).

    --dtype float32|bfloat16
    --corrupt-step N   the targets of step N are 60 times too large: one loss spike
    --no-unscale       the gradients are never divided by the scale (the bug)

Expected: nothing when healthy; with --corrupt-step, a loss_spike at step N that
quotes the loss the script computed, not the loss times 1024; with --no-unscale,
divergence whose advice names the scale."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--dtype", default="float32")
parser.add_argument("--corrupt-step", type=int, default=0)
parser.add_argument("--no-unscale", action="store_true")
args = parser.parse_args()
SCALE = 1024.0
torch.manual_seed(0)
noise = torch.Generator().manual_seed(1)
model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
features = torch.randn(512, 16, generator=noise)
targets = torch.sin(features @ torch.randn(16, 1, generator=noise)) + 0.05 * torch.randn(512, 1, generator=noise)
step = 0
for epoch in range(6):
    order = torch.randperm(512, generator=noise)
    for start in range(0, 512, 32):
        step += 1
        batch = order[start:start + 32]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.dtype == "bfloat16"):
            prediction = model(features[batch])
        target = targets[batch] * (60.0 if step == args.corrupt_step else 1.0)
        loss = nn.functional.mse_loss(prediction.float(), target)
        optimizer.zero_grad(set_to_none=True)
        (loss * SCALE).backward()
        for param in model.parameters():
            param.grad.div_(1.0 if args.no_unscale else SCALE)
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.6f}")
