import torch
from loss import LossCompute

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters())
compute_loss = LossCompute(torch.nn.CrossEntropyLoss(reduction="none"), optimizer)


def evaluate(val_loader):
    cost = 0.0
    with torch.no_grad():
        model.eval()  # expect: TL405
        for x, y in val_loader:
            cost += compute_loss(model(x), y, only_return_losses=True).sum().item()
    return cost


def run_epoch(train_loader):
    # never back in train mode after the first validation
    for x, y in train_loader:
        compute_loss(model(x), y)


for epoch in range(3):
    run_epoch(train_loader)
    evaluate(val_loader)
