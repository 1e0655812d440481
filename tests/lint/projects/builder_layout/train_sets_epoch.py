"""The same builders, used as they should be."""
from data import build_train_loader, build_train_val
from engine import evaluate, train_one_epoch


def main(model, optimizer, train_set, epochs):
    loader = build_train_loader(train_set, 64)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).backward()
            optimizer.step()
            optimizer.zero_grad()


def with_engine(model, optimizer, train_set, epochs):
    train_loader = build_train_loader(train_set, 64)
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, epoch)


def validate(model, val_set):
    loader = build_train_loader(val_set, 64)  # sampled for evaluation only
    evaluate(model, loader)


def pair(model, optimizer, train_set, val_set, epochs):
    train_loader, val_loader = build_train_val(train_set, val_set)
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            model(batch).backward()
            optimizer.step()
