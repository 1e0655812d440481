import torch

from utils import MetricLogger, empty_cache


def train_one_epoch(model, data_loader, optimizer, scaler, epoch, aux_batches):
    model.train()
    metric_logger = MetricLogger()
    for samples, targets in data_loader:
        with torch.autocast("cuda"):
            loss = torch.nn.functional.cross_entropy(model(samples), targets)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101
        scaler.step(optimizer)
        scaler.update()
        metric_logger.update(loss=loss)  # expect: TL202
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])
        empty_cache()  # expect: TL201
        next(aux_batches)


@torch.no_grad()
def evaluate(data_loader, model):
    model.eval()
    for images, target in data_loader:
        output = model(images)
        torch.nn.functional.cross_entropy(output, target)
