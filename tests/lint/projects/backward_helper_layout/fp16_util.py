"""A mixed-precision helper that back-propagates what it is given."""


class MixedPrecisionTrainer:
    def __init__(self, model, loss_scale=2.0 ** 16):
        self.model = model
        self.loss_scale = loss_scale

    def backward(self, loss):
        (loss * self.loss_scale).backward()


def backward_scaled(scaler, loss):
    scaler.scale(loss).backward()
