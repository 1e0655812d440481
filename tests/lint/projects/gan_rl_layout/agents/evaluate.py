import gym

from .common import *  # noqa: F403


def evaluate_policy(actor, env_name, episodes=5):
    env = gym.make(env_name)
    actor.eval()
    total = 0.0
    for _ in range(episodes):
        obs, done = env.reset(), False
        while not done:
            action = actor(torch.as_tensor(obs, device=DEVICE))  # expect: TL406
            obs, reward, done, _ = env.step(action.detach().cpu().numpy())
            total += reward
    return total / episodes


@torch.no_grad()
def evaluate_and_resume(actor, env_name, episodes=5):
    env = gym.make(env_name)
    actor.eval()
    total = 0.0
    for _ in range(episodes):
        obs, done = env.reset(), False
        while not done:
            obs, reward, done, _ = env.step(actor(torch.as_tensor(obs, device=DEVICE)).cpu().numpy())
            total += reward
    actor.train()
    return total / episodes
