"""One epoch of training and one pass of evaluation, called by train.py."""
import math
import sys

import torch

from utils.dist import reduce_value
from utils.misc import MetricLogger, SmoothedValue


def train_one_epoch(model, criterion, data_loader, optimizer, scaler, device, epoch, max_norm=0.0):
    metric_logger = MetricLogger()
    epoch_loss = SmoothedValue()
    for samples, targets in data_loader:
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", enabled=scaler.is_enabled()):
            outputs = model(samples)
            loss = criterion(outputs, targets)
        loss_value = reduce_value(loss.detach()).item()
        if not math.isfinite(loss_value):
            sys.exit(1)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        if max_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # expect: TL101
        scaler.step(optimizer)
        scaler.update()
        metric_logger.update(loss=loss)
        epoch_loss.update(loss, n=samples.shape[0])  # expect: TL202
    return epoch_loss.avg


def train_one_epoch_unscaled(model, criterion, data_loader, optimizer, scaler, device, max_norm=0.0):
    for samples, targets in data_loader:
        samples = samples.to(device, non_blocking=True)
        with torch.autocast("cuda", enabled=scaler.is_enabled()):
            loss = criterion(model(samples), targets.to(device))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        if max_norm > 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()


def evaluate(model, criterion, data_loader, device):
    model.eval()
    total = SmoothedValue()
    for samples, targets in data_loader:
        samples = samples.to(device, non_blocking=True)
        outputs = model(samples)  # expect: TL406
        total.update(criterion(outputs, targets.to(device)).item())
    return total.avg


@torch.no_grad()
def evaluate_ema(model, criterion, data_loader, device):
    model.eval()
    total = SmoothedValue()
    for samples, targets in data_loader:
        outputs = model(samples.to(device, non_blocking=True))
        total.update(criterion(outputs, targets.to(device)).item())
    model.train()
    return total.avg
