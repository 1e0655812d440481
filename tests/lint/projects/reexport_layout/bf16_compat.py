"""The new API bound under the old names, the old import only a fallback for old torch."""
import functools

import torch

try:
    from torch.amp import autocast as _autocast
    autocast = functools.partial(_autocast, "cuda", dtype=torch.bfloat16)
except ImportError:
    from torch.cuda.amp import autocast

if hasattr(torch.amp, "GradScaler"):
    GradScaler = functools.partial(torch.amp.GradScaler, "cuda")
else:
    from torch.cuda.amp import GradScaler
