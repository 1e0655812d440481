"""A model whose forward runs its inference branch without gradients (SPADE's
Pix2PixModel), and one whose forward runs only its frozen backbone so."""
import torch
from torch import nn


class Pix2PixModel(nn.Module):
    def __init__(self, netG):
        super().__init__()
        self.netG = netG

    def forward(self, data, mode):
        semantics = self.preprocess_input(data)
        if mode == "generator":
            return self.compute_generator_loss(semantics)
        elif mode == "inference":
            with torch.no_grad():
                fake_image = self.netG(semantics)
            return fake_image
        else:
            raise ValueError("|mode| is invalid")

    def preprocess_input(self, data):
        return data["label"].float()

    def compute_generator_loss(self, semantics):
        return self.netG(semantics).abs().mean()


class LinearProbe(nn.Module):
    def __init__(self, backbone, classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.LazyLinear(classes)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.head(feats)
