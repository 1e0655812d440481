from ._types import GRPOStats, PPOStats

__all__ = ["GRPOStats", "PPOStats"]
