"""A dataset whose samples take 4 ms each to load, for a model that steps in well under a
millisecond. Expected: dataloader_bound."""
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

healthy = "healthy" in sys.argv[1:]


class SlowDataset(Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, index):
        if not healthy:
            time.sleep(0.004)
        return torch.full((4,), float(index % 7)), torch.tensor([index % 2], dtype=torch.float32)


torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
for x, y in DataLoader(SlowDataset(), batch_size=4):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
