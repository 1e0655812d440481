"""An EMA fine-tuning stage that keeps the builder's sampler and never sets its epoch."""
from data.build import build_ema_loader


class ForgetfulStage:
    def setup(self, args, dataset):
        self.loader, self.sampler = build_ema_loader(dataset, args)  # expect: TL302

    def fit(self, model, optimizer, epochs):
        for epoch in range(epochs):
            for images, targets in self.loader:
                optimizer.zero_grad()
                model(images, targets).backward()
                optimizer.step()
