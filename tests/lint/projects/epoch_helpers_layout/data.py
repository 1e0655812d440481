from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_train_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
