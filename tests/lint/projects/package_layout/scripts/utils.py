import torch


def to_half(model):
    model.half()


def log_value(store, value):
    store.append(value.item())
