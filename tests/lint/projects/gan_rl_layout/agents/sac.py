"""Actor-critic updates from a replay buffer."""
from .common import *  # noqa: F403


def update(actor, critic, buffer, actor_opt, critic_opt, batch_size=256, gamma=0.99):
    obs, act, rew, next_obs, done = buffer.sample(batch_size, DEVICE)
    with torch.no_grad():
        target = rew + gamma * (1 - done) * critic(next_obs, actor(next_obs))
    critic_loss = F.mse_loss(critic(obs, act), target)
    critic_loss.backward()
    critic_opt.zero_grad()  # expect: TL402
    critic_opt.step()
    actor_loss = -critic(obs, actor(obs)).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    nn.utils.clip_grad_norm_(actor.parameters(), 1.0)  # expect: TL403
    return critic_loss.item(), actor_loss.item()


def update_in_order(actor, critic, buffer, actor_opt, critic_opt, batch_size=256, gamma=0.99):
    obs, act, rew, next_obs, done = buffer.sample(batch_size, DEVICE)
    with torch.no_grad():
        target = rew + gamma * (1 - done) * critic(next_obs, actor(next_obs))
    critic_opt.zero_grad()
    F.mse_loss(critic(obs, act), target).backward()
    critic_opt.step()
    actor_opt.zero_grad()
    (-critic(obs, actor(obs)).mean()).backward()
    nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
    actor_opt.step()
