"""An engine whose epoch function trains without putting the model in train mode,
and whose evaluation leaves it in eval mode."""
import torch


def train_one_epoch(model, loader, optimizer):
    for images, targets in loader:
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(loader, model):
    model.eval()
    return sum(model(images).argmax(1).eq(targets).sum().item() for images, targets in loader)
