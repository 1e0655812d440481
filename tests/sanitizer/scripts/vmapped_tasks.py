"""Per-task losses batched with `torch.func.vmap` over `functional_call`: every module
runs inside the transform. `aux` is called, but its output is multiplied by zero: its
gradients are all zeros, and it is no module that forward skips."""
import torch
from torch import nn
from torch.func import functional_call, vmap


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h) + 0.0 * self.aux(h)


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)


def task_loss(params, x):
    return functional_call(model, params, (x,)).pow(2).mean()


for step in range(20):
    params = dict(model.named_parameters())
    loss = vmap(task_loss, in_dims=(None, 0))(params, torch.randn(3, 16, 4)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{loss.item():.8f}")
