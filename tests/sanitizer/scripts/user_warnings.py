"""A regression run whose warnings come from torch calls the sanitizer wraps (a
scheduler stepped before its optimizer, a loss broadcasting its target), each
from two lines of the script, and from a helper warning for its caller:

    default    warnings as Python shows them: once per line
    module     the script ignores warnings raised by its own module (`__main__`)
    error      warnings are errors: the run stops at the first one
    compiled   the model, compiled, warns in its forward (a call torch.compile
               leaves to run eagerly)
"""
import sys
import warnings

import torch
import torch.nn.functional as F
from torch import nn

WHERE = sys.argv[1]
if WHERE == "module":
    warnings.filterwarnings("ignore", module="__main__")
elif WHERE == "error":
    warnings.simplefilter("error")


def check_batch(x):
    if x.abs().max() > 3:
        warnings.warn("an outlier in the batch", stacklevel=2)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x):
        if x.shape[0] > 8:
            warnings.warn("a batch larger than the model was tuned for")
        return self.layers(x)


torch.manual_seed(0)
model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
schedule = torch.optim.lr_scheduler.StepLR(optimizer, 2)
if WHERE == "compiled":
    model = torch.compile(model)
for step in range(6):
    if step % 2:
        schedule.step()
    else:
        schedule.step()
    x = torch.randn(16, 4) * 2
    check_batch(x)
    target = torch.randn(16, 2)
    if step % 2:
        loss = F.mse_loss(model(x), target)
    else:
        loss = F.mse_loss(model(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.8f}")
warnings.warn("the run is over", stacklevel=2)  # at the top level: nothing called it
