"""Trainers whose step ends with a clip (SPADE's Pix2PixTrainer): where this module
knows the optimizer, the clip is reported here, and not again at every call."""
import torch


class Pix2PixTrainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt
        self.optimizer_G = torch.optim.Adam(model.netG.parameters(), lr=2e-4)

    def run_generator_one_step(self, data):
        self.optimizer_G.zero_grad()
        g_loss = self.model(data, mode="generator")
        g_loss.backward()
        self.optimizer_G.step()
        if self.opt.clip_grad > 0:
            torch.nn.utils.clip_grad_norm_(self.model.netG.parameters(), self.opt.clip_grad)  # expect: TL403


def _apply(optimizer):
    optimizer.step()


def update(model, optimizer, loss):
    """Steps an optimizer handed in (through a function of this module), then clips:
    only a caller can tell `optimizer` is one."""
    loss.backward()
    _apply(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
