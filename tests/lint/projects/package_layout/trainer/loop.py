from ..models.build import build_model  # noqa: F401 - re-exported for scripts
from .memory import release


def train_step(model, batch, optimizer):
    optimizer.zero_grad()
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()
    release()
    return loss


def fit(model, loader, optimizer):
    for batch in loader:
        train_step(model, batch, optimizer)  # expect: TL201
