"""Speed settings taken before training: nothing of AMP is replaced."""
import torch

torch.backends.cudnn.benchmark = True
