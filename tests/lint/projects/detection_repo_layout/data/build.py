"""Loaders for the training and validation splits."""
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler


def build_train_loader(dataset, args):
    if args.distributed:
        sampler = DistributedSampler(dataset)
    else:
        sampler = RandomSampler(dataset)
    return DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4, drop_last=True)


def build_val_loader(dataset, args):
    sampler = DistributedSampler(dataset, shuffle=False) if args.distributed else SequentialSampler(dataset)
    return DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4, pin_memory=True)


def build_ema_loader(dataset, args):
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4, pin_memory=True)
    return loader, sampler
