"""fp16 autocast on CPU with a GradScaler and gradient clipping:

    healthy   unscale_, then clip, then step (the documented order)
    bug       clip while the loss scale still multiplies the gradients
    late      clip after the step and update (another mistake, not this one)
    measure   the norm measured with an infinite threshold before unscale_ (clips nothing)
    second    a second, fp32 model with its own optimizer, clipped and stepped while the
              scaled model's step is pending (nothing of the scaler's is clipped)
    listed    clip a list holding both models' parameters after unscaling only the
              first's optimizer: the second's are clipped while still scaled
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

WHERE = sys.argv[1]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cpu")
critic = nn.Linear(8, 1)
critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.05)
head = nn.Linear(8, 4)
head_optimizer = torch.optim.SGD(head.parameters(), lr=0.05)
for step in range(12):
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    with torch.autocast("cpu", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    if WHERE == "measure":
        torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    if WHERE in ("healthy", "measure"):
        scaler.unscale_(optimizer)
    if WHERE == "second":
        critic_optimizer.zero_grad()
        critic(x).pow(2).mean().backward()
        torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
        critic_optimizer.step()
        scaler.unscale_(optimizer)
    if WHERE == "listed":
        head_optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            head_loss = F.cross_entropy(head(x), y)
        scaler.scale(head_loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(parameters=[*model.parameters(), *head.parameters()], max_norm=1.0)
    elif WHERE != "late":
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    if WHERE == "listed":
        scaler.step(head_optimizer)
    scaler.update()
    if WHERE == "late":
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    print(f"{step} {loss.item():.6f}")
