"""A discriminator whose methods call their instance `disc`: `disc.eval()` puts
the instance itself in eval mode, as `self.eval()` would."""
import torch
from torch import nn


class Discriminator(nn.Module):
    def __init__(disc, dim):
        super().__init__()
        disc.trunk = nn.Sequential(nn.Linear(dim, 64), nn.Dropout(0.1), nn.Linear(64, 1))
        disc.optimizer = torch.optim.Adam(disc.trunk.parameters())

    def update(disc, batches):
        for x in batches:
            loss = disc.trunk(x).mean()
            disc.optimizer.zero_grad()
            loss.backward()
            disc.optimizer.step()

    def predict_reward(disc, obs):
        with torch.no_grad():
            disc.eval()
            return disc.trunk(obs)

    @staticmethod
    def score_with(model, obs):
        """A staticmethod: it puts the model it is handed in eval mode, not the instance."""
        with torch.no_grad():
            model.eval()
            return model(obs)


def score_named_self(self, obs):
    """A function of the module whose first parameter is called `self`: it puts what
    it is handed in eval mode, no instance of its own."""
    with torch.no_grad():
        self.eval()
        return self(obs)
