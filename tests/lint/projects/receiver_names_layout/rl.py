"""A policy trained on the rewards of discriminators whose methods do not call
their instance `self`, and a loop accumulating through a scaler object alike."""
import torch

from rewards import Discriminator, score_named_self
from scalers import ClippingLossScaler


def train_with_gail(agent, rollouts, num_updates):
    discr = Discriminator(10)
    for j in range(num_updates):
        discr.update(rollouts.expert_batches())
        rollouts.rewards = discr.predict_reward(rollouts.obs)  # expect: TL405
        agent.update(rollouts)


def train_scored_by_another(agent, scorer, rollouts, num_updates):
    discr = Discriminator(10)
    for j in range(num_updates):
        discr.update(rollouts.expert_batches())
        rollouts.rewards = Discriminator.score_with(scorer, rollouts.obs)
        rollouts.rewards += score_named_self(scorer, rollouts.obs)
        agent.update(rollouts)


def train_accumulating(model, criterion, loader, optimizer, accum):
    loss_scaler = ClippingLossScaler()
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        loss_scaler(loss, optimizer, model.parameters(), update_grad=(i + 1) % accum == 0)  # expect: TL108
        if (i + 1) % accum == 0:
            optimizer.zero_grad()


def train_every_step(model, criterion, loader, optimizer):
    loss_scaler = ClippingLossScaler()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        loss_scaler(loss, optimizer, model.parameters())
        optimizer.zero_grad()
