from data import loader_and_sampler, train_model


def main(model, dataset, optimizer):
    loader, sampler = loader_and_sampler(dataset)
    train_model(model, sampler, loader, optimizer, 10)
