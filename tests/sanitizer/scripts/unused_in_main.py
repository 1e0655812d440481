"""The model lives in `main()`, gone when the run ends: a branch never called (`aux`)
and a gate saturated by a bias of 200 (run in every forward, zero gradients) are
still told apart."""
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 16)
        self.gate = nn.Linear(16, 16)
        self.aux = nn.Linear(16, 2)
        self.out = nn.Linear(16, 2)
        with torch.no_grad():
            self.gate.bias.fill_(200.0)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.out(h * torch.sigmoid(self.gate(h)))


def main():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(12):
        loss = nn.functional.cross_entropy(model(torch.randn(8, 8)), torch.randint(0, 2, (8,)))
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
