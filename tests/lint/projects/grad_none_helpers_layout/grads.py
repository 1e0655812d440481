"""Gradients cleared by hand, by statements rather than calls."""


def clear(model):
    for p in model.parameters():
        p.grad = None


def drop(model):
    for p in model.parameters():
        if p.grad is not None:
            del p.grad


def freeze_prototypes(model):
    """A part frozen for a while: the step applies the rest."""
    for name, p in model.named_parameters():
        if "prototypes" in name:
            p.grad = None


class MixedPrecisionTrainer:
    """Clears only on an overflow, and returns there without stepping."""

    def __init__(self, params):
        self.params = params

    def optimize(self, opt, overflow):
        if overflow:
            clear_params(self.params)
            return False
        opt.step()
        clear_params(self.params)
        return True


def clear_params(params):
    for p in params:
        p.grad = None
