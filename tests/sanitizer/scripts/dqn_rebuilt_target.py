"""A DQN on an environment of its own (a corridor: walk right to the goal) whose
target network is rebuilt with `copy.deepcopy(policy)` at each sync, every 100
steps, as many DQN tutorials write it, instead of loading the policy's weights
into one built before. Each sync makes the TD loss jump (the targets move): healthy
RL, not a spike nor a divergence.
"""
import copy
import random

import torch
import torch.nn.functional as F
from torch import nn

LENGTH, SYNC, STEPS = 8, 100, 600


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
    random.seed(0)
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(LENGTH, 32), nn.ReLU(), nn.Linear(32, 2))
    target = copy.deepcopy(policy)
    optimizer = torch.optim.Adam(policy.parameters(), lr=2.5e-3)
    env, buffer = Corridor(), []
    state = env.reset()
    for step in range(1, STEPS + 1):
        epsilon = max(0.05, 1.0 - step / 300)
        with torch.no_grad():
            action = random.randrange(2) if random.random() < epsilon else int(policy(state).argmax())
        next_state, reward, done = env.step(action)
        buffer.append((state, action, reward, next_state, done))
        state = env.reset() if done else next_state
        batch = random.sample(buffer, min(len(buffer), 32))
        states, actions, rewards, next_states, dones = zip(*batch)
        states, next_states = torch.stack(states), torch.stack(next_states)
        rewards, dones = torch.tensor(rewards), torch.tensor(dones, dtype=torch.float32)
        with torch.no_grad():
            td_target = rewards + 0.99 * target(next_states).max(dim=1).values * (1 - dones)
        q_values = policy(states).gather(1, torch.tensor(actions).unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q_values, td_target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % SYNC == 0:
            target = copy.deepcopy(policy)
    print(f"loss {loss.item():.5f}")


if __name__ == "__main__":
    main()
