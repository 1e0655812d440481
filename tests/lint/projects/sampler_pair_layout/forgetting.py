from data import loader_and_sampler, train_forgetting


def main(model, dataset, optimizer):
    loader, sampler = loader_and_sampler(dataset)  # expect: TL302
    train_forgetting(model, sampler, loader, optimizer, 10)
