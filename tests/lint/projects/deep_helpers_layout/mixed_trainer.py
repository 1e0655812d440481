"""A trainer made of mixins of another module: `self.tidy()` comes from the second
base, which the first does not have."""
from mixins import LoggingMixin, MemoryMixin


class Trainer(LoggingMixin, MemoryMixin):
    def fit(self, loader):
        for x in loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()
            self.tidy()  # expect: TL201
            self.log("step")
