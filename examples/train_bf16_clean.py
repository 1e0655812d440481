"""The reference training loop: bf16 autocast, no GradScaler needed, a
validation pass under no_grad, a cosine schedule per epoch. No findings."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train_one_epoch(model, loader, criterion, optimizer, device):
    model.train()
    total_loss, total = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.amp.autocast(device.type, dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total_loss += loss.item() * x.size(0)
        total += x.size(0)
    return total_loss / total


@torch.no_grad()
def validate(model, loader, criterion, device):
    model.eval()
    total_loss, total = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        total_loss += loss.item() * x.size(0)
        total += x.size(0)
    return total_loss / total


def main() -> None:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    val = TensorDataset(torch.randn(128, 16), torch.randint(0, 4, (128,)))
    train_loader = DataLoader(train, batch_size=32, shuffle=True, num_workers=2)
    val_loader = DataLoader(val, batch_size=64, num_workers=2)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    criterion = nn.CrossEntropyLoss()
    best = float("inf")
    for epoch in range(10):
        train_loss = train_one_epoch(model, train_loader, criterion, optimizer, device)
        val_loss = validate(model, val_loader, criterion, device)
        scheduler.step()
        print(f"epoch {epoch + 1}: train {train_loss:.4f} val {val_loss:.4f}")
        if val_loss < best:
            best = val_loss
            torch.save(model.state_dict(), "best_model.pth")


if __name__ == "__main__":
    main()
