import torch
import torch.nn as nn


class Discriminator(nn.Module):
    """Trains itself in `update()`, and puts itself in eval mode to score rollouts,
    but `update()` never puts it back in train mode."""

    def __init__(self, dim):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, 64), nn.Dropout(0.1), nn.Linear(64, 1))
        self.optimizer = torch.optim.Adam(self.trunk.parameters())

    def update(self, batches):
        for x in batches:
            loss = self.trunk(x).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def predict_reward(self, obs):
        with torch.no_grad():
            self.eval()
            return self.trunk(obs)


class TrainingDiscriminator(Discriminator):
    """The same, with `update()` switching back to train mode first."""

    def update(self, batches):
        self.train()
        super().update(batches)


class RewardModel(nn.Module):
    """A scorer that is never trained: its eval mode is its own."""

    def __init__(self, dim):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, 64), nn.Dropout(0.1), nn.Linear(64, 1))

    def predict_reward(self, obs):
        with torch.no_grad():
            self.eval()
            return self.trunk(obs)
