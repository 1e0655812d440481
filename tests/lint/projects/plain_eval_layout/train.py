"""Training loops that validate through evaluation functions of other modules."""
import torch

from metrics import accuracy, first_logits
from policy import Policy
from predictions import evaluate, evaluate_quietly, sizes


def train(model, loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(accuracy(model, val_loader))  # expect: TL406
        print(first_logits(model, val_loader))
        with torch.no_grad():
            print(accuracy(model, val_loader))


def train_through_helpers(model, loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(evaluate(model, val_loader))  # expect: TL406
        print(evaluate_quietly(model, val_loader))
        print(sizes(model, val_loader))


def rollout(envs, steps):
    actor_critic = Policy()
    actor_critic.eval()
    obs = envs.reset()
    for _ in range(steps):
        print(actor_critic.describe())
        obs = envs.send(actor_critic.act(obs))  # expect: TL406
