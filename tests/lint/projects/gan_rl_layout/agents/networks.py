from .common import *  # noqa: F403

__all__ = ["Actor", "Critic", "Generator", "Discriminator"]


def mlp(sizes, dropout=0.0):
    layers = []
    for i in range(len(sizes) - 1):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU(), nn.Dropout(dropout)]
    return nn.Sequential(*layers[:-2])


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.body = mlp([obs_dim, 256, 256, act_dim], dropout=0.1)

    def forward(self, obs):
        return torch.tanh(self.body(obs))


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q = mlp([obs_dim + act_dim, 256, 256, 1])

    def forward(self, obs, act):
        return self.q(torch.cat([obs, act], -1))


class Generator(nn.Module):
    def __init__(self, z_dim, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, out_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.net = mlp([in_dim, 256, 1])

    def forward(self, x):
        return self.net(x)
