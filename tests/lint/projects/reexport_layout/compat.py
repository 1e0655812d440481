try:
    from torch.amp import autocast
except ImportError:  # torch before 2.4
    from torch.cuda.amp import autocast
