from torch.utils.data import DataLoader


def build_train_loader(dataset, args):
    return DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)


def build_pinned_loader(dataset, args):
    return DataLoader(dataset, batch_size=args.batch_size, num_workers=args.workers, pin_memory=True)


def build_loader_pinned_later(dataset, args):
    loader = DataLoader(dataset, batch_size=args.batch_size)
    loader.pin_memory = True
    return loader


def build_loader_unpinned_later(dataset, args):
    loader = DataLoader(dataset, batch_size=args.batch_size)
    loader.pin_memory = False
    return loader
