"""The loader's dataset or batch size handed to a logger of a class out of sight is not
the loader: the epoch loop is engine.py's, which never gives the sampler an epoch."""
from data import build_train_loader
from engine import fit_epoch


def main(logger, model, optimizer, train_set, epochs):
    loader = build_train_loader(train_set, 64)  # expect: TL302
    logger.info(loader.dataset)
    logger.info("batch size %d", loader.batch_size)
    for epoch in range(epochs):
        fit_epoch(model, loader, optimizer)


def sampler_handed_on(tracker, model, optimizer, train_set, epochs):
    # the sampler itself goes to an object of a class out of sight, which may set its epoch
    loader = build_train_loader(train_set, 64)
    tracker.watch(loader.sampler)
    for epoch in range(epochs):
        fit_epoch(model, loader, optimizer)


def loader_handed_on(tracker, model, optimizer, train_set, epochs):
    loader = build_train_loader(train_set, 64)
    tracker.watch(loader)
    for epoch in range(epochs):
        fit_epoch(model, loader, optimizer)
