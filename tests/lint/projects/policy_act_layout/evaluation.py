import torch

from a2c.envs import make_vec_envs
from a2c.model import FrozenPolicy, LearningPolicy, Policy


def evaluate(env_name, seed, num_inputs, num_actions):
    envs = make_vec_envs(env_name, seed)
    actor_critic = Policy(num_inputs, num_actions)
    actor_critic.eval()
    obs = envs.reset()
    rewards = []
    while len(rewards) < 10:
        _, action = actor_critic.act(obs)  # expect: TL406
        obs, reward = envs.step(action)
        rewards.append(reward)
    return rewards


def evaluate_no_grad(env_name, seed, num_inputs, num_actions):
    envs = make_vec_envs(env_name, seed)
    actor_critic = Policy(num_inputs, num_actions)
    actor_critic.eval()
    obs = envs.reset()
    rewards = []
    with torch.no_grad():
        while len(rewards) < 10:
            _, action = actor_critic.act(obs)
            obs, reward = envs.step(action)
            rewards.append(reward)
    return rewards


def evaluate_frozen(env_name, seed, num_inputs, num_actions):
    envs = make_vec_envs(env_name, seed)
    actor_critic = FrozenPolicy(num_inputs, num_actions)
    actor_critic.eval()
    obs = envs.reset()
    rewards = []
    while len(rewards) < 10:
        _, action = actor_critic.act(obs)
        obs, reward = envs.step(action)
        rewards.append(reward)
    return rewards


def adapt_at_test_time(env_name, seed, num_inputs, num_actions):
    envs = make_vec_envs(env_name, seed)
    learner = LearningPolicy(num_inputs, num_actions)
    learner.eval()
    obs = envs.reset()
    values = []
    while len(values) < 10:
        values.append(learner.adapt(obs).item())
        obs, _ = envs.step(0)
    return values
