import torch


class DQN:
    """Trains `q_net` only: `target_net` follows it by copies and is never stepped."""

    def __init__(self, q_net, target_net, lr):
        self.q_net = q_net
        self.target_net = target_net
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=lr)

    def update(self, batches):
        for obs, action, reward, next_obs in batches:
            with torch.no_grad():
                target = reward + 0.99 * self.target_net(next_obs).max(1).values
            q = self.q_net(obs).gather(1, action[:, None]).squeeze(1)
            loss = torch.nn.functional.smooth_l1_loss(q, target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def sync(self):
        self.target_net.load_state_dict(self.q_net.state_dict())
