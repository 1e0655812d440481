"""Gradient clipping in the hooks of AmpLoop: too early in `after_backward()`, which
the loop calls before its `unscale_`; right in `before_step()`, and in an
`after_backward()` that unscales first."""
import torch

from trainkit.amp_loop import AmpLoop


class ClipsEarly(AmpLoop):
    def after_backward(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101


class ClipsBeforeStep(AmpLoop):
    def before_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
