"""Two training loops that hand their work to hooks of the instance.

`LoopBase.fit()` calls its hooks for each batch; `PlainLoop.run()` back-propagates
itself and hands the loss to `report()`. Subclasses here and in tasks/ override
the hooks; each override is judged as these loops run it, on its own line. Stay
silent: this module's own hooks, `log_epoch()` that no subclass overrides, what a
hook looked up by name (`getattr(self, "on_" + event)`) does, and what an
override does on the iterations a condition of the loop picks (`on_log()`), and
what one does after each epoch of `EpochLoop.fit()`, whose iterations run a phase."""
import torch


class LoopBase:
    def __init__(self, model, optimizer, loader, log_every=100):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.log_every = log_every
        self.events = ("batch",)

    def compute_loss(self, batch):
        inputs, targets = batch
        return torch.nn.functional.mse_loss(self.model(inputs), targets)

    def backward(self, loss):
        loss.backward()

    def step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()

    def after_step(self, loss):
        pass

    def on_log(self, loss):
        print(loss.item())

    def log_epoch(self, epoch):
        print("epoch", epoch)

    def fit(self, epochs):
        for epoch in range(epochs):
            for step, batch in enumerate(self.loader):
                loss = self.compute_loss(batch)
                self.backward(loss)
                self.step()
                self.after_step(loss)
                if step % self.log_every == 0:
                    self.on_log(loss)
                for event in self.events:
                    getattr(self, "on_" + event)(loss)
            self.log_epoch(epoch)


class PlainLoop:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader

    def report(self, loss):
        print(float(loss))

    def run(self):
        for inputs, targets in self.loader:
            loss = torch.nn.functional.l1_loss(self.model(inputs), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.report(loss)


class EpochLoop(LoopBase):
    """Its loop runs a phase per iteration: a hook called after it runs once per epoch."""

    def train_epoch(self):
        for batch in self.loader:
            self.backward(self.compute_loss(batch))
            self.step()

    def on_epoch_end(self, epoch):
        pass

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            self.on_epoch_end(epoch)


class RecordingLoop(LoopBase):
    """Same module as its base: its override is judged the same way."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.losses = []

    def after_step(self, loss):
        self.losses.append(loss)  # expect: TL202


class AveragingLoop(LoopBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.total = 0.0

    def after_step(self, loss):
        self.total += loss.item()
