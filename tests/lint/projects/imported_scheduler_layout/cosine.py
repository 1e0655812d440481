import math

from schedules import WarmupPoly


class WarmupCosine(WarmupPoly):
    def get_lr(self):
        return [lr * 0.5 * (1 + math.cos(math.pi * self.last_epoch / self.total)) for lr in self.base_lrs]
