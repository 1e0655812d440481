"""REINFORCE in the style of the classic policy-gradient examples, on a small
unstable 1-D balancing task: the policy samples an action from a
`Categorical`, keeps its log-probability, and at the end of each episode steps
on minus the log-probabilities weighted by the normalized returns, summed over
the episode. Episodes get longer as the agent learns, so the loss's graph and
its value grow with them; the loss changes sign. `--critic` adds a value head
and its smooth-L1 loss (actor-critic), whose level grows with the returns.
`--multinomial`: the action is drawn by hand, `probs.multinomial(1)`, and its
log-probability taken as `probs.log().gather(1, action)` (no torch.distributions).
None of this is a leak, a divergence or a spike."""
import argparse

import torch
from torch import nn
from torch.distributions import Categorical
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--episodes", type=int, default=200)
parser.add_argument("--critic", action="store_true")
parser.add_argument("--multinomial", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
noise = torch.Generator().manual_seed(1)


class Balance:
    """x drifts away from 0 on its own; pushing left or right holds it. Done when |x| > 1."""

    def reset(self) -> torch.Tensor:
        self.x, self.v, self.t = 0.0, 0.0, 0
        return self.state()

    def state(self) -> torch.Tensor:
        return torch.tensor([self.x, self.v])

    def step(self, action: int) -> tuple[torch.Tensor, float, bool]:
        push = 0.05 if action == 1 else -0.05
        self.v += 0.05 * self.x + push + 0.01 * float(torch.randn((), generator=noise))
        self.x += self.v
        self.t += 1
        return self.state(), 1.0, abs(self.x) > 1 or self.t >= 200


class Policy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.affine1 = nn.Linear(2, 32)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1) if args.critic else None
        self.saved_log_probs: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.rewards: list[float] = []

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        x = F.relu(self.affine1(x))
        value = self.value_head(x) if self.value_head is not None else None
        return F.softmax(self.action_head(x), dim=-1), value


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = torch.finfo(torch.float32).eps


def select_action(state: torch.Tensor) -> int:
    probs, value = policy(state.unsqueeze(0))
    if args.multinomial:
        action = probs.multinomial(1)
        policy.saved_log_probs.append(probs.log().gather(1, action).squeeze(1))
    else:
        m = Categorical(probs)
        action = m.sample()
        policy.saved_log_probs.append(m.log_prob(action))
    if value is not None:
        policy.values.append(value.squeeze())
    return action.item()


def finish_episode() -> None:
    R = 0.0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + 0.99 * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = []
    value_losses = []
    for i, (log_prob, R) in enumerate(zip(policy.saved_log_probs, returns)):
        if args.critic:
            value = policy.values[i]
            policy_loss.append(-log_prob * (R - value.item()))
            value_losses.append(F.smooth_l1_loss(value, R))
        else:
            policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    if args.critic:
        policy_loss = policy_loss + torch.stack(value_losses).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    del policy.values[:]


env = Balance()
lengths = []
for episode in range(args.episodes):
    state, done = env.reset(), False
    while not done:
        state, reward, done = env.step(select_action(state))
        policy.rewards.append(reward)
    lengths.append(env.t)
    finish_episode()
print(f"episode length: first 10 {sum(lengths[:10]) / 10:.1f}, last 10 {sum(lengths[-10:]) / 10:.1f}")
