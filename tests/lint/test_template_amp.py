"""The chapter's training template, written correctly in its bf16 path (no
scaler) and its fp16 path (GradScaler, `unscale_` before clipping), must give
no mixed-precision finding at all."""

from __future__ import annotations

import pytest

from trainlint.registry import all_rules
from trainlint.testing import findings_of

TEMPLATE = '''\
import torch
import torch.nn as nn


def train_one_epoch(model, loader, criterion, optimizer, device, scaler=None):
    model.train()
    total_loss, correct, total = 0, 0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.amp.autocast("cuda", dtype=AMP_DTYPE):
            out = model(x)
            loss = criterion(out, y)
        if scaler is not None:  # fp16 path
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            scaler.step(optimizer)
            scaler.update()
        else:  # bf16 / fp32 path
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
        total_loss += loss.item() * x.size(0)
        correct += (out.argmax(1) == y).sum().item()
        total += x.size(0)
    return total_loss / total, correct / total


@torch.no_grad()
def validate(model, loader, criterion, device):
    model.eval()
    total_loss, correct, total = 0, 0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with torch.amp.autocast("cuda", dtype=AMP_DTYPE):
            out = model(x)
            loss = criterion(out, y)
        total_loss += loss.item() * x.size(0)
        correct += (out.argmax(1) == y).sum().item()
        total += x.size(0)
    return total_loss / total, correct / total


model = MyModel().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_epochs)
criterion = nn.CrossEntropyLoss()
scaler = SCALER
best_val_acc = 0
for epoch in range(num_epochs):
    train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer, device, scaler=scaler)
    val_loss, val_acc = validate(model, val_loader, criterion, device)
    scheduler.step()
    if val_acc > best_val_acc:
        best_val_acc = val_acc
        torch.save(model.state_dict(), "best_model.pth")
'''

PATHS = {
    "bf16": TEMPLATE.replace("AMP_DTYPE", "torch.bfloat16").replace("SCALER", "None"),
    "fp16": TEMPLATE.replace("AMP_DTYPE", "torch.float16").replace("SCALER", 'torch.amp.GradScaler("cuda")'),
    # the chapter's own wording: keep the bf16 autocast, pass a scaler for fp16
    "as-printed-with-scaler": TEMPLATE.replace("AMP_DTYPE", "torch.bfloat16").replace(
        "SCALER", 'torch.amp.GradScaler("cuda")'
    ),
}
MIXED_PRECISION_RULES = [rule for rule in all_rules() if rule.code.startswith("TL1")]


@pytest.mark.parametrize("path", sorted(PATHS))
def test_template_has_no_mixed_precision_finding(path: str) -> None:
    assert MIXED_PRECISION_RULES
    assert findings_of_all(PATHS[path]) == []


def findings_of_all(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for rule in MIXED_PRECISION_RULES for f in findings_of(rule, source)]
