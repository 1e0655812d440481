import copy

import torch

from optim_utils import get_optimizer


class Diffusion:
    def __init__(self, config, model):
        self.config = config
        self.model = model

    def train(self, loader):
        model = self.model
        if self.config.fp16:
            model = model.half()  # expect: TL107
        optimizer = get_optimizer(self.config, model.parameters())
        for x in loader:
            loss = model(x).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def finetune_head(self, loader):
        """A look-alike: the float16 copy only samples; the optimizer gets the head's parameters."""
        sampler = copy.deepcopy(self.model).half().eval()
        head = torch.nn.Linear(16, 16)
        optimizer = get_optimizer(self.config, head.parameters())
        for x in loader:
            with torch.no_grad():
                features = sampler(x.half()).float()
            loss = head(features).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
