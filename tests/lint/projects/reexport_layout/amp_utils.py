"""Imports the AMP names once, for the rest of the project to import from here."""
from torch.cuda.amp import GradScaler, autocast  # noqa: F401
