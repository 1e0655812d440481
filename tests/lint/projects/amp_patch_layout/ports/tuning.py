"""Speed settings taken before training: nothing of AMP is replaced."""
import torch

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True


def describe_amp():
    return f"autocast from {torch.cuda.amp.__name__}"
