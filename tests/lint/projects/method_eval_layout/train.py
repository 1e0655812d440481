"""A recommender trained on next-item prediction, evaluated each few epochs by
ranking.py's loops, which call the model's `score` method of models.py."""
import torch

from models import Popularity, QuietRanker, Ranker, RescoredRanker, ShortlistRanker
from ranking import hit_rate, hit_rate_quietly, sizes
from store import load_ranker


def main(loader, users, histories, candidates, counts):
    model = Ranker(1000, 64).to("cuda")
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(20):
        model.train()
        for history, target in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(history) @ model.items.weight.T, target)
            loss.backward()
            optimizer.step()
        if epoch % 5 == 0:
            model.eval()
            print(hit_rate(model, users, histories, candidates))  # expect: TL406
            print(hit_rate_quietly(model, users, histories, candidates))
            print(sizes(model, users))


def in_train_mode(users, histories, candidates):
    model = Ranker(1000, 64)
    model.eval()
    model.train()
    return hit_rate(model, users, histories, candidates)


def baseline(users, histories, candidates, counts):
    popular = Popularity(counts)
    print(popular(histories[users[0]]).shape)
    popular.eval()
    return hit_rate(popular, users, histories, candidates)


def loaded(path, users, histories, candidates):
    model = load_ranker(path)
    model.eval()
    return hit_rate(model, users, histories, candidates)


def shortlisted(users, histories, candidates):
    model = ShortlistRanker(1000, 64)
    print(model(histories[users[0]]).shape)
    model.eval()
    return hit_rate(model, users, histories, candidates)


def rebound(users, histories, candidates):
    quiet = QuietRanker(1000, 64)
    rescored = RescoredRanker(1000, 64)
    print(quiet(histories[users[0]]).shape, rescored(histories[users[0]]).shape)
    quiet.eval()
    rescored.eval()
    return hit_rate(quiet, users, histories, candidates), hit_rate(rescored, users, histories, candidates)
