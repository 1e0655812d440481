"""Gradient helpers: one back-propagates (plainly or through a scaler), one clears."""


def backward(loss):
    loss.backward()


def scaled_backward(scaler, loss):
    scaler.scale(loss).backward()


def clear_grads(optimizer):
    optimizer.zero_grad(set_to_none=True)
