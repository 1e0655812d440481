import torch


def empty_cache():
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


class MetricLogger:
    def __init__(self):
        self.meters = {}

    def update(self, **kwargs):
        for name, value in kwargs.items():
            self.meters.setdefault(name, []).append(value)


def build_optimizer(args, model):
    return torch.optim.AdamW(model.parameters(), lr=args.lr)


def sample_data(loader):
    while True:
        for batch in loader:
            yield batch
