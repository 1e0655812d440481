def train_one_epoch(model, loader, optimizer, epoch):
    loader.sampler.set_epoch(epoch)
    for batch in loader:
        model(batch).backward()
        optimizer.step()
        optimizer.zero_grad()


def evaluate(model, loader):
    for batch in loader:
        model(batch)
