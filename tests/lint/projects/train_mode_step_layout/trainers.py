"""A module wrapper whose forward also trains (DALLE2-pytorch's DecoderTrainer): it
back-propagates and steps only in train mode, under `if self.training:`."""
import torch
from torch import nn


class TrainingStepper(nn.Module):
    """Back-propagates and steps only in train mode: in eval mode its forward
    just computes the loss."""

    def __init__(self, model, lr):
        super().__init__()
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def forward(self, x, y):
        total = 0.0
        for chunk_x, chunk_y in zip(x.chunk(2), y.chunk(2)):
            loss = nn.functional.mse_loss(self.model(chunk_x), chunk_y)
            total += loss.item()
            if self.training:
                loss.backward()
        if self.training:
            self._update()
        return total

    def _update(self):
        self.optimizer.step()
        self.optimizer.zero_grad()

