"""The old AMP import, with None in its place where torch lacks it."""
try:
    from torch.cuda.amp import autocast
except ImportError:
    autocast = None
