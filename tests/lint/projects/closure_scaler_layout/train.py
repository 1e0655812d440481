"""Accumulating loops that call the loss scaler from a closure defined on each
pass, as timm's `train_one_epoch` does."""
import torch
import torch.nn.functional as F

from scalers import ClippingScaler, NativeScaler


def train_one_epoch(model, loader, optimizer, args):
    loss_scaler = ClippingScaler()
    accum_steps = args.grad_accum_steps
    for batch_idx, (x, y) in enumerate(loader):
        need_update = (batch_idx + 1) % accum_steps == 0

        def _backward(_loss):
            loss_scaler(  # expect: TL108
                _loss,
                optimizer,
                clip_grad=args.clip_grad,
                clip_mode=args.clip_mode,
                parameters=model.parameters(),
                create_graph=False,
                need_update=need_update,
            )

        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y) / accum_steps
        _backward(loss)
        if need_update:
            optimizer.zero_grad()


def train_one_epoch_timm(model, loader, optimizer, args):
    loss_scaler = NativeScaler()
    accum_steps = args.grad_accum_steps
    for batch_idx, (x, y) in enumerate(loader):
        need_update = (batch_idx + 1) % accum_steps == 0

        def _backward(_loss):
            loss_scaler(
                _loss,
                optimizer,
                clip_grad=args.clip_grad,
                clip_mode=args.clip_mode,
                parameters=model.parameters(),
                create_graph=False,
                need_update=need_update,
            )

        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y) / accum_steps
        _backward(loss)
        if need_update:
            optimizer.zero_grad()
