"""The imports every script of the project takes with `from common import *`."""
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch import no_grad
from torch.nn.parallel import DataParallel as DP

SEED = 0
