"""Steppers whose `__call__` is a template method: the base calls `self.run()`,
which subclasses may override."""


class Stepper:
    def __call__(self, loss, optimizer):
        self.run(loss, optimizer)

    def run(self, loss, optimizer):
        loss.backward()
        optimizer.step()


class ClearingStepper(Stepper):
    def run(self, loss, optimizer):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class LoggingStepper(Stepper):
    def log(self, loss):
        print(loss.item())
