import torch


class Translator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 4)
        self.dec = torch.nn.Linear(4, 4)

    def encode(self, x):
        return self.enc(x)

    def decode(self, y, memory):
        return self.dec(y) + memory
