"""The training loops calling those steps."""
import torch

from trainer import Pix2PixTrainer, update


def main(model, opt, dataloader):
    trainer = Pix2PixTrainer(model, opt)
    for epoch in range(opt.epochs):
        for data_i in dataloader:
            trainer.run_generator_one_step(data_i)


def fit(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        update(model, optimizer, torch.nn.functional.mse_loss(model(x), y))  # expect: TL403
