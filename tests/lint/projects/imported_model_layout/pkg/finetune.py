import torch
import torch.nn.functional as F

from .heads import Classifier


def finetune(loader, epochs):
    model = Classifier(classes=5)
    model.eval()  # expect: TL405
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), "head.pt")
