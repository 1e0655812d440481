"""An EMA fine-tuning stage kept on an object: the builder's sampler is stored beside
its loader and a per-epoch hook sets its epoch (`ema_forgetful.py` forgets to)."""
from data.build import build_ema_loader


class EmaStage:
    def setup(self, args, dataset):
        self.loader, sampler = build_ema_loader(dataset, args)
        self.sampler = sampler

    def on_epoch(self, epoch):
        self.sampler.set_epoch(epoch)

    def fit(self, model, optimizer, epochs):
        for epoch in range(epochs):
            self.on_epoch(epoch)
            for images, targets in self.loader:
                optimizer.zero_grad()
                model(images, targets).backward()
                optimizer.step()

