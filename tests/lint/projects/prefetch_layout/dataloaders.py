import torch


class PrefetchedWrapper:
    """Moves batches to the GPU ahead of time; the epoch is the caller's business."""

    def __init__(self, dataloader, start_epoch):
        self.dataloader = dataloader
        self.epoch = start_epoch

    def __iter__(self):
        self.epoch += 1
        for x, y in self.dataloader:
            yield x.cuda(non_blocking=True), y.cuda(non_blocking=True)


class EpochWrapper:
    """The same, but it moves the sampler on to the next epoch itself."""

    def __init__(self, dataloader, start_epoch):
        self.dataloader = dataloader
        self.epoch = start_epoch

    def __iter__(self):
        self.epoch += 1
        self.dataloader.sampler.set_epoch(self.epoch)
        yield from self.dataloader


def get_train_loader(dataset, batch_size, start_epoch=0):
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=True)
    loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=batch_size,
                                         num_workers=4, pin_memory=True)
    return PrefetchedWrapper(loader, start_epoch), len(loader)


def get_epoch_loader(dataset, batch_size, start_epoch=0):
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=True)
    loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=batch_size,
                                         num_workers=4, pin_memory=True)
    return EpochWrapper(loader, start_epoch), len(loader)
