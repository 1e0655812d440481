import torch


def build_data_loader(dataset, micro_batch_size):
    sampler = torch.utils.data.distributed.DistributedSampler(dataset)
    return torch.utils.data.DataLoader(dataset, batch_size=micro_batch_size, sampler=sampler)
