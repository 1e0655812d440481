import torch
import torch.nn.functional as F

import helpers
from net import Net


def main(loader, val_loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        helpers.prepare(model)
        for x, y in loader:
            loss = F.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print(F.mse_loss(model(x), y).item())
