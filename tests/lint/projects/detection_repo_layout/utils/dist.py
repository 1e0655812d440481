"""Process-group helpers: every rank runs train.py, rank 0 logs and saves."""
import os

import torch
import torch.distributed as dist

LAUNCH_HINT = ["python", "-m", "torch.distributed.launch", "--nproc_per_node=8", "train.py"]  # expect: TL303
TORCHRUN_HINT = ["torchrun", "--nproc_per_node=8", "train.py"]


def init_distributed_mode(args):
    if "RANK" not in os.environ:
        args.distributed = False
        return
    args.rank = int(os.environ["RANK"])
    args.gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(args.gpu)
    dist.init_process_group(backend="nccl")
    args.distributed = True


def is_dist_avail_and_initialized():
    return dist.is_available() and dist.is_initialized()


def get_world_size():
    return dist.get_world_size() if is_dist_avail_and_initialized() else 1


def is_main_process():
    return not is_dist_avail_and_initialized() or dist.get_rank() == 0


def reduce_value(value):
    if get_world_size() < 2:
        return value
    with torch.no_grad():
        dist.all_reduce(value)
        return value / get_world_size()
