"""Loss scalers that own their GradScaler: backward, unscale, clip, step and update in one call."""
import torch


class LossScaler:
    """timm's layout: the unscale and the clip only on the call that steps."""

    def __init__(self, device="cuda"):
        self._scaler = torch.amp.GradScaler(device)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, need_update=True):
        self._scaler.scale(loss).backward()
        if need_update:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()

    def state_dict(self):
        return self._scaler.state_dict()


class ClippingLossScaler:
    """Unscales and clips on every call, steps and updates only when told to."""

    def __init__(self, device="cuda"):
        self._scaler = torch.amp.GradScaler(device)

    def __call__(self, loss, optimizer, parameters, max_norm=1.0, update_grad=True):
        self._scaler.scale(loss).backward()
        self._scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(parameters, max_norm)
        if update_grad:
            self._scaler.step(optimizer)
            self._scaler.update()
        return norm


def unscale_and_clip(scaler, optimizer, model, last_micro_step):
    """Takes the caller's step condition, and unscales whatever it says."""
    scaler.unscale_(optimizer)
    if last_micro_step:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


class AmpBackward:
    """Backward with the unscale and the clip, and the step apart."""

    def __init__(self, max_norm=1.0):
        self.scaler = torch.amp.GradScaler("cuda")
        self.max_norm = max_norm

    def backward(self, loss, optimizer, parameters):
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(parameters, self.max_norm)

    def step(self, optimizer):
        self.scaler.step(optimizer)
        self.scaler.update()


class AmpStepper:
    """Backward alone; the unscale and the clip go with the step."""

    def __init__(self, max_norm=1.0):
        self.scaler = torch.amp.GradScaler("cuda")
        self.max_norm = max_norm

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self, optimizer, parameters):
        self.scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(parameters, self.max_norm)
        self.scaler.step(optimizer)
        self.scaler.update()
