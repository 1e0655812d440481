from .amp_trainer import AmpTrainer, Bf16Trainer  # noqa: F401
from .base import Trainer  # noqa: F401
