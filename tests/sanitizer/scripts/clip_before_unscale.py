"""fp16 autocast on CPU with a GradScaler, gradients clipped while still scaled
(before `scaler.unscale_`), and a layer whose squared activations overflow fp16,
so the scaler skips every step. Expected: lint finds TL101 at the clip, and the
scale_collapse event, and the run's own clip_before_unscale, name that finding in
`related`."""
import torch
from torch import nn

torch.manual_seed(0)


class Squares(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x) * 300
        return h * h


model = nn.Sequential(Squares(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
for step in range(20):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x).float(), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # still scaled: TL101
    scaler.step(optimizer)
    scaler.update()
