"""Training options: a dataclass filled from the command line."""
import argparse
from dataclasses import dataclass


@dataclass
class TrainConfig:
    epochs: int = 10
    lr: float = 3e-4
    max_grad_norm: float = 1.0
    accumulate: int = 1
    precision: str = "fp16"
    log_every: int = 50


def parse_config(argv=None):
    parser = argparse.ArgumentParser()
    for name, default in vars(TrainConfig()).items():
        parser.add_argument(f"--{name}", type=type(default), default=default)
    return TrainConfig(**vars(parser.parse_args(argv)))
