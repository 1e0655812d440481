from .buffer import ReplayBuffer
from .common import *  # noqa: F403
from .evaluate import evaluate_and_resume, evaluate_policy
from .networks import *  # noqa: F403
from .sac import update, update_in_order


def collect(env, actor, buffer, steps):
    obs = env.reset()
    for _ in range(steps):
        with torch.no_grad():
            action = actor(torch.as_tensor(obs, device=DEVICE))
        next_obs, reward, done, _ = env.step(action.cpu().numpy())
        buffer.add((obs, action, reward, next_obs, done))
        obs = env.reset() if done else next_obs


def main(env, iterations=100_000, eval_every=5_000):
    actor, critic = Actor(17, 6).to(DEVICE), Critic(17, 6).to(DEVICE)
    if torch.cuda.device_count() > 1:
        critic = nn.DataParallel(critic)  # expect: TL301
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)
    buffer = ReplayBuffer(1_000_000)
    for it in range(iterations):
        collect(env, actor, buffer, 1)
        update(actor, critic, buffer, actor_opt, critic_opt)
        if it % eval_every == 0:
            print(it, evaluate_policy(actor, "HalfCheetah-v4"))  # expect: TL405


def main_resuming(env, iterations=100_000, eval_every=5_000):
    actor, critic = Actor(17, 6).to(DEVICE), Critic(17, 6).to(DEVICE)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)
    buffer = ReplayBuffer(1_000_000)
    for it in range(iterations):
        collect(env, actor, buffer, 1)
        update_in_order(actor, critic, buffer, actor_opt, critic_opt)
        if it % eval_every == 0:
            print(it, evaluate_and_resume(actor, "HalfCheetah-v4"))
