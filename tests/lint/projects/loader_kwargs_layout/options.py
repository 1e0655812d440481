"""Builds the keyword arguments of a DataLoader, its DistributedSampler among them:
the caller unpacks them into the loader (`DataLoader(ds, **options)`)."""
import torch.distributed as dist
from torch.utils.data import BatchSampler, DistributedSampler


def loader_options(cfg, dataset, split):
    options = {}
    options["batch_size"] = cfg.batch_size if split == "train" else cfg.eval_batch_size
    if cfg.distributed:
        options["sampler"] = DistributedSampler(
            dataset,
            num_replicas=dist.get_world_size(),
            rank=dist.get_rank(),
            shuffle=split == "train",
        )
    options["drop_last"] = True
    return options


def plain_options(dataset, batch_size):
    return dict(sampler=DistributedSampler(dataset), batch_size=batch_size)


def ordered_options(dataset):
    return {"sampler": DistributedSampler(dataset, shuffle=False), "batch_size": 8}


def distributed_sampler(dataset, shuffle):
    return DistributedSampler(dataset, shuffle=shuffle)


def split_options(dataset, split="train"):
    return {"sampler": DistributedSampler(dataset, shuffle=split == "train"), "batch_size": 8}


def held_out_options(dataset, split="val"):
    return dict(sampler=DistributedSampler(dataset, shuffle=split == "train"), batch_size=8)


def batched_options(dataset, batch_size, split):
    sampler = DistributedSampler(dataset, shuffle=split == "train")
    return {"batch_sampler": BatchSampler(sampler, batch_size, drop_last=True), "num_workers": 2}
