"""DDPG-style actor-critic on an environment of its own (a point on a line, pushed
towards the origin by a continuous action) whose target networks are second
instances loaded with the trained weights (`load_state_dict`, not `deepcopy`) and
moved towards them at every step by a soft (Polyak) update.

    python soft_target.py [data|lerp|leaky]

`data` updates through `.data` (`tp.data.mul_(1 - tau).add_(tau * p.data)`), `lerp`
under `torch.no_grad()` with `lerp_`: healthy. `leaky` writes the update without
`no_grad()` into target parameters that do not require gradients: each step's
update joins the graph of the one before, and the target networks hold a graph
that grows by a step's at every step.
"""
import random
import sys

import torch
import torch.nn.functional as F
from torch import nn

STEPS, TAU, GAMMA, BATCH = 60, 0.05, 0.9, 16


class Line:
    """The state is a position; the action moves it; the reward is minus the distance."""

    def __init__(self) -> None:
        self.position = torch.tensor([1.0])

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, float]:
        self.position = (self.position + 0.2 * action.clamp(-1, 1)).clamp(-2, 2)
        return self.position.clone(), -float(self.position.abs())


def actor_net() -> nn.Module:
    return nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1), nn.Tanh())


def critic_net() -> nn.Module:
    return nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))


def soft_update(target: nn.Module, source: nn.Module, how: str) -> None:
    if how == "data":
        for tp, p in zip(target.parameters(), source.parameters()):
            tp.data.mul_(1 - TAU).add_(TAU * p.data)
    elif how == "lerp":
        with torch.no_grad():
            for tp, p in zip(target.parameters(), source.parameters()):
                tp.lerp_(p, TAU)
    else:
        for tp, p in zip(target.parameters(), source.parameters()):
            tp.mul_(1 - TAU).add_(TAU * p)


def main(how: str) -> None:
    random.seed(0)
    torch.manual_seed(0)
    actor, critic = actor_net(), critic_net()
    actor_target, critic_target = actor_net(), critic_net()
    actor_target.load_state_dict(actor.state_dict())
    critic_target.load_state_dict(critic.state_dict())
    if how == "leaky":
        for p in [*actor_target.parameters(), *critic_target.parameters()]:
            p.requires_grad_(False)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    env, buffer = Line(), []
    state = env.position.clone()
    for _ in range(STEPS):
        with torch.no_grad():
            action = actor(state) + 0.3 * torch.randn(1)
        next_state, reward = env.step(action)
        buffer.append((state, action, torch.tensor([reward]), next_state))
        state = next_state
        batch = random.sample(buffer, min(len(buffer), BATCH))
        states, actions, rewards, next_states = (torch.stack(part) for part in zip(*batch))
        with torch.no_grad():
            next_q = critic_target(torch.cat([next_states, actor_target(next_states)], dim=1))
            target_q = rewards + GAMMA * next_q
        critic_loss = F.mse_loss(critic(torch.cat([states, actions], dim=1)), target_q)
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        actor_loss = -critic(torch.cat([states, actor(states)], dim=1)).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        soft_update(actor_target, actor, how)
        soft_update(critic_target, critic, how)
    print(f"critic {critic_loss.item():.5f} actor {actor_loss.item():.5f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data")
