"""A checkpoint loader: what class it builds the project cannot tell."""
import torch


def load_ranker(path):
    return torch.load(path)
