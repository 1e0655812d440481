"""The torch names every module of the package star-imports."""
import torch
import torch.nn.functional as F  # noqa: F401
from torch import nn  # noqa: F401
from torch.cuda.amp import autocast  # noqa: F401

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
