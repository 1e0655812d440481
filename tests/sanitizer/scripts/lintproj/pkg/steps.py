"""The training step lives in the package; the script only loops."""
import torch


def train_step(model, scaler, optimizer, x, y):
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # still scaled: TL101
    scaler.step(optimizer)
    scaler.update()
    torch.cuda.empty_cache()  # TL201, ignored by this project's settings
