from wrapped import build


def fit_epochs(model, opt, cfg, train_set, val_set, epochs):
    loaders = build(cfg, train_set, val_set)
    for epoch in range(epochs):
        loaders["train"].sampler.set_epoch(epoch)
        for x, y in loaders["train"]:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
