"""Ends of a training step, in the right order and in the wrong one."""
import torch


def step_then_clip(opt, model):
    opt.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)


def clip_then_step(opt, model):
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    opt.step()


def clear_then_step(opt):
    opt.zero_grad()
    opt.step()


def step_then_clear(opt):
    opt.step()
    opt.zero_grad()


def full_step(opt, model, batch):
    opt.zero_grad()
    model(batch).mean().backward()
    opt.step()
