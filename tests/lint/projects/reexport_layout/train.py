import amp_utils
from amp_utils import GradScaler, autocast
from compat import autocast as compat_autocast
from own_amp import autocast as own_autocast


def train_step(model, optimizer, x, y, loss_fn):
    scaler = GradScaler()  # expect: TL102
    with autocast():  # expect: TL102
        loss = loss_fn(model(x), y)
    with amp_utils.autocast(enabled=False):  # expect: TL102
        loss = loss + loss_fn(model(x), y)
    with compat_autocast("cuda"):
        loss = loss + loss_fn(model(x), y)
    with own_autocast():
        loss = loss + loss_fn(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
