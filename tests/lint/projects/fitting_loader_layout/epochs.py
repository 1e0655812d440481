from data import fitting_loader


def main(model, dataset, optimizer, epochs):
    loader = fitting_loader(dataset, (64, 32, 16))
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
