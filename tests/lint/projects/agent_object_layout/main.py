import torch

from algo import A2C, DQN, PPO


def evaluate(model, obs):
    with torch.no_grad():
        return model(obs)


def train_ppo(actor_critic, rollouts, eval_obs, num_updates):
    agent = PPO(actor_critic, lr=3e-4)
    for j in range(num_updates):
        agent.update(rollouts)  # trains actor_critic, in another module
        if j % 10 == 0:
            actor_critic.eval()  # expect: TL405
            evaluate(actor_critic, eval_obs)


def train_dqn(q_net, target_net, batches, eval_obs, num_updates):
    agent = DQN(q_net, target_net, lr=1e-3)
    for j in range(num_updates):
        agent.update(batches)
        if j % 10 == 0:
            agent.sync()
            # the target network is only ever a copy, never stepped: its mode is its own
            target_net.eval()
            evaluate(target_net, eval_obs)
        if j % 50 == 0:
            q_net.eval()  # expect: TL405
            evaluate(q_net, eval_obs)


def train_any(actor_critic, name, rollouts, eval_obs, num_updates):
    # the agent's class depends on a flag (pytorch-a2c-ppo-acktr's main.py)
    if name == "a2c":
        agent = A2C(actor_critic, lr=7e-4)
    elif name == "ppo":
        agent = PPO(actor_critic, lr=3e-4)
    else:
        agent = A2C(actor_critic, lr=0.25, acktr=True)
    for j in range(num_updates):
        agent.update(rollouts)
        if j % 10 == 0:
            actor_critic.eval()  # expect: TL405
            evaluate(actor_critic, eval_obs)
