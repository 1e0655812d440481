"""`from .. import utils` is the parent package's: `train/utils.py`."""
import torch
import torch.nn.functional as F

from .. import utils
from ..utils import update_meter


def finetune(model, loader):
    opt = torch.optim.AdamW(model.parameters())
    meter, history = [], []
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        utils.free_memory()
        utils.update_meter(meter, loss)  # expect: TL202
        update_meter(history, loss)  # expect: TL202
