"""A clipped-surrogate policy update (PPO style) on a small 1-D balancing task:
short rollouts sample actions from a `Categorical` of the policy's softmax, then a
few epochs of updates run on the rollout's batch. `--nan-state N`: the batch of the
N-th update holds a NaN state, so that update leaves the weights NaN and the next
rollout's `Categorical` rejects its NaN probabilities (a ValueError, steps after the
update). Expected: nonfinite_input at the step of that batch, and the crash named
as following it. Without it: nothing."""
import argparse
import math

import torch
from torch import nn
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument("--nan-state", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(0)

policy = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam([*policy.parameters(), *critic.parameters()], lr=3e-3)
EPOCHS, HORIZON, CLIP = 3, 16, 0.2


def balance(position: float, speed: float, push: int) -> tuple[float, float, bool]:
    speed += 0.05 * math.sin(position) + (0.02 if push else -0.02)
    position += speed
    return position, speed, abs(position) > 0.6


updates = 0
position, speed = 0.01, 0.0
for rollout in range(30):
    states, actions, rewards, old_probs = [], [], [], []
    for _ in range(HORIZON):
        state = torch.tensor([position, speed])
        with torch.no_grad():
            probs = torch.softmax(policy(state), dim=-1)
        action = int(Categorical(probs=probs).sample())
        position, speed, fell = balance(position, speed, action)
        states.append(state)
        actions.append(action)
        old_probs.append(float(probs[action]))
        rewards.append(0.0 if fell else 1.0)
        if fell:
            position, speed = 0.01 * (rollout % 3 - 1), 0.0
    returns, running = [], 0.0
    for reward in reversed(rewards):
        running = reward + 0.95 * running
        returns.insert(0, running)
    batch = torch.stack(states)
    taken = torch.tensor(actions).unsqueeze(1)
    target = torch.tensor(returns).unsqueeze(1)
    before = torch.tensor(old_probs).unsqueeze(1)
    updates += 1
    if updates == args.nan_state:
        batch = batch.clone()
        batch[3, 0] = float("nan")
    for _ in range(EPOCHS):
        value = critic(batch)
        advantage = (target - value).detach()
        now = torch.softmax(policy(batch), dim=-1).gather(1, taken)
        ratio = now / before
        surrogate = torch.min(ratio * advantage, ratio.clamp(1 - CLIP, 1 + CLIP) * advantage)
        loss = -surrogate.mean() + nn.functional.smooth_l1_loss(value, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print(f"rollouts 30, last return {returns[0]:.3f}")
