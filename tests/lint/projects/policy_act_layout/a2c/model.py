import torch
import torch.nn as nn


class MLPBase(nn.Module):
    def __init__(self, num_inputs, hidden_size=64):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(num_inputs, hidden_size), nn.Tanh())
        self.critic = nn.Linear(hidden_size, 1)

    def forward(self, inputs):
        hidden = self.actor(inputs)
        return self.critic(hidden), hidden


class Policy(nn.Module):
    def __init__(self, num_inputs, num_actions):
        super().__init__()
        self.base = MLPBase(num_inputs)
        self.dist = nn.Linear(64, num_actions)

    def act(self, inputs):
        value, features = self.base(inputs)
        action = self.dist(features).argmax(-1)
        return value, action


class FrozenPolicy(nn.Module):
    def __init__(self, num_inputs, num_actions):
        super().__init__()
        self.base = MLPBase(num_inputs)
        self.dist = nn.Linear(64, num_actions)

    @torch.no_grad()
    def act(self, inputs):
        value, features = self.base(inputs)
        action = self.dist(features).argmax(-1)
        return value, action


class LearningPolicy(nn.Module):
    def __init__(self, num_inputs, num_actions):
        super().__init__()
        self.base = MLPBase(num_inputs)
        self.optimizer = torch.optim.Adam(self.base.parameters())

    def adapt(self, inputs):
        value, _ = self.base(inputs)
        self.optimizer.zero_grad()
        value.mean().backward()
        self.optimizer.step()
        return value
