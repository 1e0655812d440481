"""A policy whose `act` runs its layers as its `forward` does: no loop, and no
other word of a summary, in this module."""
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(4, 2)

    def act(self, obs):
        return self.base(obs).argmax(-1)

    def describe(self):
        return repr(self.base)
