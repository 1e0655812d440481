class LossCompute:
    """The loss of a batch; back-propagates and steps unless asked only for the losses."""

    def __init__(self, criterion, opt):
        self.criterion = criterion
        self.opt = opt

    def __call__(self, logits, y, only_return_losses=False):
        losses = self.criterion(logits, y)
        if only_return_losses:
            return losses
        losses.mean().backward()
        self.opt.step()
        self.opt.zero_grad()
        return losses.mean().item()
