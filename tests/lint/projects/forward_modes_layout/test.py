"""Evaluation scripts calling those models: the inference branch needs no `no_grad` of its own."""
import torch

from models import LinearProbe, Pix2PixModel


def generate(netG, dataloader):
    model = Pix2PixModel(netG)
    model.eval()
    for data_i in dataloader:
        generated = model(data_i, mode="inference")
        torch.save(generated, f"{data_i['path']}.pt")


def validation_loss(netG, dataloader):
    model = Pix2PixModel(netG)
    model.eval()
    total = 0.0
    for data_i in dataloader:
        total += model(data_i, mode="generator").item()  # expect: TL406
    return total


def probe_accuracy(backbone, loader):
    probe = LinearProbe(backbone, 10)
    probe.eval()
    correct = 0
    for x, y in loader:
        correct += (probe(x).argmax(1) == y).sum().item()  # expect: TL406
    return correct
