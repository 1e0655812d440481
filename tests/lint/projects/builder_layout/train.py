"""Trains on a builder's loader and never gives its sampler an epoch."""
from data import (
    build_eval_loader,
    build_loader,
    build_maybe_ordered,
    build_reassigned,
    build_reusing_name,
    build_train_loader,
    build_train_val,
)


def main(model, optimizer, train_set, val_set, epochs):
    loader = build_train_loader(train_set, 64)  # expect: TL302
    tuned = build_loader(train_set, 64, shuffle=True)  # up to the call: not followed
    val_loader = build_eval_loader(val_set)
    for epoch in range(epochs):
        for batch in loader:
            model(batch).backward()
            optimizer.step()
            optimizer.zero_grad()


def main_pair(model, optimizer, train_set, val_set, epochs):
    train_loader, val_loader = build_train_val(train_set, val_set)  # expect: TL302
    for epoch in range(epochs):
        for batch in train_loader:
            model(batch).backward()
            optimizer.step()
            optimizer.zero_grad()


def main_reused_name(model, optimizer, train_set, val_set, epochs):
    train_loader, valid_loader = build_reusing_name(train_set, val_set)  # expect: TL302
    ordered = build_reassigned(train_set)
    maybe_ordered = build_maybe_ordered(train_set, epochs > 1)
    for epoch in range(epochs):
        for loader in (train_loader, ordered, maybe_ordered):
            for batch in loader:
                model(batch).backward()
                optimizer.step()
                optimizer.zero_grad()
