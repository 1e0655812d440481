"""The same builder, its loader's sampler given its epoch."""
from data import build


def main(model, optimizer, dataset, epochs):
    loader = build(dataset, "train")
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
