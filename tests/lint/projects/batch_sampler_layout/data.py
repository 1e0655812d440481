import torch
from torch.utils.data import BatchSampler, DataLoader


def create_dataloader(train_dataset, val_dataset, batch_size):
    # the caller owns the epoch loop: the sampler leaves inside its loader's batch sampler
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
    train_loader = DataLoader(train_dataset, batch_sampler=BatchSampler(train_sampler, batch_size, drop_last=True))
    val_loader = DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader
