def fit(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def fit_each_epoch(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
