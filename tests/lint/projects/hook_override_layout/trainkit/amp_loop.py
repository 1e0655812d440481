"""A loop that scales the loss and unscales the gradients itself, calling hooks in between.

`after_backward()` runs while the gradients are still multiplied by the loss scale;
`before_step()` runs after the loop's own `unscale_`. The subclasses in tasks/clipping.py
clip in one or the other."""
import torch


class AmpLoop:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.scaler = torch.amp.GradScaler("cuda")

    def after_backward(self):
        pass

    def before_step(self):
        pass

    def fit(self):
        for inputs, targets in self.loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(self.model(inputs), targets)
            self.scaler.scale(loss).backward()
            self.after_backward()
            self.scaler.unscale_(self.optimizer)
            self.before_step()
            self.scaler.step(self.optimizer)
            self.scaler.update()
