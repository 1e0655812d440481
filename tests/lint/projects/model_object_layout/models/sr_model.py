import torch


class SRModel:
    def __init__(self, net):
        self.net = net
        self.optimizer_g = torch.optim.Adam(net.parameters())
        self.schedulers = [torch.optim.lr_scheduler.MultiStepLR(self.optimizer_g, [1000])]

    def update_learning_rate(self, current_iter):
        for scheduler in self.schedulers:
            scheduler.step()

    def optimize_parameters(self, data):
        self.optimizer_g.zero_grad()
        self.net(data).mean().backward()
        self.optimizer_g.step()
