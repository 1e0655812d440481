"""REINFORCE on a five-armed bandit (no environment library): a small policy net
samples a batch of arms from a `Categorical`, and steps on minus the
log-probabilities weighted by the rewards less a running baseline.

    (none)      healthy
    --no-grad   the log-probabilities are taken under `torch.no_grad()`: the loss
                is cut off from the policy, and the first backward raises
    --detach    the same cut made with `.detach()`
    --ratio     an importance-weighted step (PPO's ratio, unclipped): the
                log-probabilities of the arms are taken once under `no_grad` when
                they are drawn (the old policy's, constants), and again with
                gradients for the loss. Healthy.
    --ratio-detach  the same, the new log-probabilities `.detach()`ed: the first
                backward raises; the cut is the `.detach()`, not the `no_grad` one
"""
import sys

import torch
from torch import nn
from torch.distributions import Categorical

CUT = sys.argv[1] if len(sys.argv) > 1 else None
torch.manual_seed(0)
noise = torch.Generator().manual_seed(1)
means = torch.tensor([0.1, 0.5, 0.2, 0.9, 0.3])
policy = nn.Sequential(nn.Linear(5, 32), nn.Tanh(), nn.Linear(32, 5))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
state = torch.ones(1, 5)
baseline = 0.0
for episode in range(150):
    logits = policy(state).squeeze(0)
    pick = Categorical(logits=logits)
    arms = pick.sample((16,))
    rewards = means[arms] + 0.1 * torch.randn(16, generator=noise)
    if CUT in ("--ratio", "--ratio-detach"):
        with torch.no_grad():
            old_log_probs = pick.log_prob(arms)
        log_probs = pick.log_prob(arms)
        if CUT == "--ratio-detach":
            log_probs = log_probs.detach()
        ratio = torch.exp(log_probs - old_log_probs)
        loss = -(ratio * (rewards - baseline)).mean()
    elif CUT == "--no-grad":
        with torch.no_grad():
            log_probs = pick.log_prob(arms)
    elif CUT == "--detach":
        log_probs = pick.log_prob(arms).detach()
    else:
        log_probs = pick.log_prob(arms)
    if CUT not in ("--ratio", "--ratio-detach"):
        loss = -(log_probs * (rewards - baseline)).mean()
    baseline = 0.9 * baseline + 0.1 * rewards.mean().item()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if episode % 50 == 49:
        print(f"episode {episode + 1}: reward {rewards.mean().item():.4f}")
