"""A weight written through `.data` after step 3's update, in a model with two heads
trained in turns: the auxiliary head (`aux`) runs on odd steps only. Its weight gets
a NaN after step 3; step 4 trains the main head alone, so `aux.weight` has no
gradient there and step 4's update leaves it as it is; step 5's forward reads it.
Expected: nonfinite_param at step 3 on aux.weight, written by code outside the
optimizer (the write through `.data` is not seen, so no line is named): not the
update of step 4, which never touched it. `healthy`: the same line writes a finite
value: nothing. `used`: the NaN goes into the main head, which step 4's forward
reads: the same report, from the forward's NaN (as before). `added`: the NaN goes into
a head added to the model and the optimizer after step 3, which no update measured
before step 4's: named at step 4, written outside the optimizer before that update."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "unused"
torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 16)
        self.main = nn.Linear(16, 1)
        self.aux = nn.Linear(16, 3)

    def forward(self, x, task):
        features = torch.relu(self.body(x))
        return self.main(features) if task == "main" else self.aux(features)


model = TwoHeads()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y, labels = torch.randn(64, 6), torch.randn(64, 1), torch.randint(0, 3, (64,))
for step in range(1, 9):
    task = "aux" if step % 2 else "main"
    out = model(x, task)
    loss = nn.functional.cross_entropy(out, labels) if task == "aux" else nn.functional.mse_loss(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 3 and mode == "added":
        model.extra = nn.Linear(16, 2)  # a head for a later task, trained from now on
        opt.add_param_group({"params": model.extra.parameters()})
        model.extra.weight.data[0, 1] = float("nan")
    elif step == 3:
        head = model.main if mode == "used" else model.aux
        head.weight.data[0, 1] = 0.5 if mode == "healthy" else float("nan")
print("finished")
