"""A step-decay schedule told the epoch number at the start of every epoch, before
any optimizer step (the deprecated `scheduler.step(epoch)` form). Told 0 first, the
schedule stays at its first learning rate: nothing is skipped, nothing to report.
`--ahead` tells it `epoch + 1` and `--plain` calls `step()`: both move it on before
the first update, and scheduler_before_optimizer is reported at step 1."""
import sys
import warnings

import torch
from torch import nn

warnings.filterwarnings("ignore", category=UserWarning)  # torch's own order and deprecation warnings
ahead = "--ahead" in sys.argv[1:]
plain = "--plain" in sys.argv[1:]
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
adam = torch.optim.Adam(net.parameters(), 1e-2)
decay = torch.optim.lr_scheduler.StepLR(adam, step_size=3, gamma=0.5)
inputs = torch.randn(48, 6)
targets = inputs[:, :1] * 2 - inputs[:, 1:2]

for epoch in range(6):
    if plain:
        decay.step()  # moves the schedule on before the first update
    else:
        decay.step(epoch + 1 if ahead else epoch)
    for start in range(0, 48, 12):
        loss = (net(inputs[start:start + 12]) - targets[start:start + 12]).pow(2).mean()
        adam.zero_grad()
        loss.backward()
        adam.step()
    print(f"epoch {epoch} lr {adam.param_groups[0]['lr']:.4f} loss {loss.item():.4f}")
