"""A small classifier trained by PyTorch Lightning (12 steps, a validation set).
`fault`: the 5th batch holds a NaN feature (expected: nonfinite_input at step 5).
`raise`: training_step raises at step 3. `callback REPORT`: watched through
SanitizerCallback under plain python; without it, run under `python -m sanitizer`."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

try:
    import lightning.pytorch as pl
except ImportError:
    import pytorch_lightning as pl

args = sys.argv[1:]


class Classifier(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))

    def training_step(self, batch, batch_idx):
        if "raise" in args and batch_idx == 2:
            raise RuntimeError("failure inside training_step")
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def main() -> None:
    torch.manual_seed(0)
    features, labels = torch.randn(128, 6), torch.randint(0, 2, (128,))
    if "fault" in args:
        features[4 * 8 + 3, 2] = float("nan")
    train = DataLoader(TensorDataset(features[:96], labels[:96]), batch_size=8)
    val = DataLoader(TensorDataset(features[96:], labels[96:]), batch_size=16)
    callbacks = []
    if "callback" in args:
        from sanitizer.integrations.lightning import SanitizerCallback
        callbacks.append(SanitizerCallback(report=args[args.index("callback") + 1]))
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, callbacks=callbacks,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Classifier(), train, val)
    print("fitted", trainer.global_step)


if __name__ == "__main__":
    main()
