"""Trainers whose per-step methods back-propagate a loss (XLM's layout: the
trainer lives here, the epoch loops that call it in train.py)."""
import torch


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.n_steps = 0

    def optimize(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def mlm_step(self, batch):
        """Back-propagates through `optimize`, then returns the loss tensor."""
        loss = self.model(batch).mean()
        self.optimize(loss)
        self.n_steps += 1
        return loss

    def logged_step(self, batch):
        loss = self.model(batch).mean()
        self.optimize(loss)
        return loss.item()

    def rebound_step(self, batch):
        """The name returned is rebound to a number after the backward."""
        loss = self.model(batch).mean()
        self.optimize(loss)
        loss = loss.item()
        return loss

    def score(self, batch):
        """The loss it returns is not the one it back-propagates."""
        loss = self.model(batch).mean()
        with torch.no_grad():
            score = self.model(batch).mean()
        self.optimize(loss)
        return score


class EncDecTrainer(Trainer):
    def mt_step(self, batch):
        loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def detached_step(self, batch):
        loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()
