"""Trains on the builders' loaders and never gives their samplers an epoch: the
split the call writes out decides whether the sampler shuffles."""
import data
from data import build


def main(model, optimizer, dataset, epochs):
    loader = build(dataset, "train")  # expect: TL302
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def second_split(model, optimizer, dataset, epochs):
    loader = build(dataset, "val")
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def through_module(model, optimizer, dataset, epochs):
    loader = data.build_split(dataset, "train")  # expect: TL302
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def holdout_through_module(model, optimizer, dataset, epochs):
    loader = data.build_split(dataset, "holdout")
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def split_unknown(model, optimizer, dataset, epochs, split):
    loader = build(dataset, split)
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def built_not_trained(dataset):
    loader = build(dataset, "train")
    return len(loader)
