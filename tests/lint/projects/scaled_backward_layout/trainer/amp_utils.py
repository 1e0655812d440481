"""Backward helpers: one scales the loss through the scaler it is handed, the
other takes a scaler too (for a common signature) and back-propagates plainly."""


def scaled_backward(scaler, loss):
    scaler.scale(loss).backward()


def backward(scaler, loss):
    del scaler  # float32 path: nothing to scale
    loss.backward()
