import torch


class A2C:
    def __init__(self, actor_critic, lr, acktr=False):
        self.actor_critic = actor_critic
        if acktr:
            self.optimizer = make_kfac(actor_critic)
        else:
            self.optimizer = torch.optim.RMSprop(actor_critic.parameters(), lr=lr)

    def update(self, rollouts):
        loss = self.actor_critic.evaluate_actions(rollouts).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


def make_kfac(model):
    raise NotImplementedError
