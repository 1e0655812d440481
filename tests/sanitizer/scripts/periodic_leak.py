"""A validation loss kept with its graph every N steps (`every=N`, default 10): the list
grows by one graph per N steps, never every sample. Expected: tensor_leak on `val_losses`
at the append line.
`bounded`: graphs kept with the same period but bounded: a list trimmed to its last three
entries, one trimmed to its last five, a list cleared every 30 steps, one cleared every
60-step epoch, a cache filled once before training. Expected: no tensor_leak."""
import sys

import torch
from torch import nn

args = sys.argv[1:]
every = next((int(a.split("=")[1]) for a in args if a.startswith("every=")), 10)
bounded = "bounded" in args
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
held_out = torch.randn(64, 8)
val_losses = []
recent = []
last_five = []
window = []
epoch = []
reference = [model(held_out).sum() for _ in range(3)]
for step in range(1, 10 * every + 21):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % every:
        continue
    val = model(held_out).pow(2).mean()  # kept with its graph: no torch.no_grad()
    if bounded:
        recent.append(val)
        recent = recent[-3:]
        last_five.append(val)
        del last_five[:-5]
        if step % 30 == 0:
            window.clear()
        window.append(val)
        if step % 60 == 0:
            epoch = []
        epoch.append(val)
    else:
        val_losses.append(val)
print(len(val_losses), len(recent), len(last_five), len(window), len(epoch), len(reference))
