import random

import torch


class ReplayBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = []

    def add(self, transition):
        if len(self.items) >= self.capacity:
            self.items.pop(0)
        self.items.append(transition)

    def sample(self, batch_size, device):
        batch = random.sample(self.items, batch_size)
        return [torch.stack(column).to(device, non_blocking=True) for column in zip(*batch)]
