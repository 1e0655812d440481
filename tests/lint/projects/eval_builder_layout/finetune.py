import torch
from loaders import build_data_loader


def finetune(model, optimizer, dataset, epochs):
    loader = build_data_loader(dataset, 8)  # expect: TL302
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
