"""Statistics of one policy-optimisation step, as torchtune's recipes keep them."""
from typing import NamedTuple

import torch


class PPOStats(NamedTuple):
    loss: torch.Tensor
    policy_loss: torch.Tensor
    value_loss: torch.Tensor
    approx_policy_kls: torch.Tensor


class GRPOStats(NamedTuple):
    loss: torch.Tensor
    policy_loss: torch.Tensor
    kl_loss: torch.Tensor
