"""Evaluation loops that call a method of the model they are handed, one user at a
time. The quiet ones run it under a grad mode of their own or call a method
of it that runs no layers."""
import torch


def hit_rate(model, users, histories, candidates):
    hits = 0
    for user in users:
        scores = model.score(histories[user], candidates[user])
        hits += int(scores.argmax(-1).item() == 0)
    return hits / len(users)


def hit_rate_quietly(model, users, histories, candidates):
    hits = 0
    for user in users:
        with torch.no_grad():
            scores = model.score(histories[user], candidates[user])
        hits += int(scores.argmax(-1).item() == 0)
    return hits / len(users)


def sizes(model, users):
    return [model.size() for _ in users]
