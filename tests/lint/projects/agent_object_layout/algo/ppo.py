import torch


class PPO:
    def __init__(self, actor_critic, lr):
        self.actor_critic = actor_critic
        self.optimizer = torch.optim.Adam(actor_critic.parameters(), lr=lr)

    def update(self, batches):
        for obs, ret in batches:
            loss = ((self.actor_critic(obs) - ret) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
