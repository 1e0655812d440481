"""A bidirectional two-layer LSTM classifies sequences from its output at the last time
step (`out[:, -1, :]`): there the reverse direction has taken one step, from its zero
initial state, so its last layer's recurrent weights get only all-zero gradients.
Expected: unused_parameter on lstm.weight_hh_l1_reverse, saying why. `--read both`
(the forward half at the last step, the reverse half at the first) and `--one-way` (a
unidirectional LSTM read at its last step): nothing."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--read", choices=("last", "both"), default="last")
parser.add_argument("--one-way", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
HIDDEN = 16


class SequenceClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        directions = 1 if args.one_way else 2
        self.lstm = nn.LSTM(8, HIDDEN, num_layers=2, batch_first=True, bidirectional=not args.one_way)
        self.fc = nn.Linear(HIDDEN * directions, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        if args.read == "both" and not args.one_way:
            return self.fc(torch.cat([out[:, -1, :HIDDEN], out[:, 0, HIDDEN:]], dim=1))
        return self.fc(out[:, -1, :])


model = SequenceClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(30):
    x = torch.randn(16, 12, 8)
    y = (x[:, :, 0].sum(1) > 0).long() + (x[:, 0, 1] > 1).long()
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.3f}")
