"""Helpers that switch a model's mode for the scripts of the project."""
import torch


def prepare_eval(model):
    model.eval()


def set_eval(net):
    net.eval()
    return net


def eval_without_grad(model):
    model.eval()
    torch.set_grad_enabled(False)


def set_eval_mode(model):
    model.train()  # named for eval, puts the model in train mode


def maybe_eval(model, frozen):
    if frozen:
        model.eval()


def eval_then_restore(model):
    model.eval()
    model.train()
