"""A DQN on an environment of its own (a corridor: walk right to the goal), with
no RL library imported: a Q-network, a replay buffer and a target network synced
from it every 100 steps, as value-based tutorials write it. Each sync makes the
TD loss jump, and the loss grows with the values learnt: healthy RL, not a
spike nor a divergence.

    --steps N   optimizer steps (default 600)
"""
import argparse
import random

import torch
import torch.nn.functional as F
from torch import nn

LENGTH = 8


class Corridor:
    def __init__(self) -> None:
        self.position = 0

    def reset(self) -> torch.Tensor:
        self.position = 0
        return self.observe()

    def observe(self) -> torch.Tensor:
        return F.one_hot(torch.tensor(self.position), LENGTH).float()

    def step(self, action: int) -> tuple[torch.Tensor, float, bool]:
        self.position = max(0, min(LENGTH - 1, self.position + (1 if action == 1 else -1)))
        done = self.position == LENGTH - 1
        return self.observe(), (1.0 if done else -0.01), done


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=600)
    args = parser.parse_args()
    random.seed(0)
    torch.manual_seed(0)
    q_network = nn.Sequential(nn.Linear(LENGTH, 32), nn.ReLU(), nn.Linear(32, 2))
    target_network = nn.Sequential(nn.Linear(LENGTH, 32), nn.ReLU(), nn.Linear(32, 2))
    target_network.load_state_dict(q_network.state_dict())
    optimizer = torch.optim.Adam(q_network.parameters(), lr=2.5e-3)
    env, buffer = Corridor(), []
    state = env.reset()
    for step in range(1, args.steps + 1):
        epsilon = max(0.05, 1.0 - step / 300)
        with torch.no_grad():
            action = random.randrange(2) if random.random() < epsilon else int(q_network(state).argmax())
        next_state, reward, done = env.step(action)
        buffer.append((state, action, reward, next_state, done))
        state = env.reset() if done else next_state
        batch = random.sample(buffer, min(len(buffer), 32))
        states, actions, rewards, next_states, dones = zip(*batch)
        states, next_states = torch.stack(states), torch.stack(next_states)
        rewards, dones = torch.tensor(rewards), torch.tensor(dones, dtype=torch.float32)
        with torch.no_grad():
            target = rewards + 0.99 * target_network(next_states).max(dim=1).values * (1 - dones)
        q_values = q_network(states).gather(1, torch.tensor(actions).unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(q_values, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            target_network.load_state_dict(q_network.state_dict())
    print(f"loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
