"""A base trainer that autocasts to float16 itself: its scaler serves that path."""
import torch


class HalfBase:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.scaler = torch.amp.GradScaler("cuda")

    def half_loss(self, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            return self.model(batch).mean()
