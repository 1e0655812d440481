"""Steps of steps.py run under no_grad: those that compute and back-propagate raise."""
import torch

import steps
from steps import (
    apply_step, checked_step, guarded_step, quick_step, refine_step, shared_step, tolerant_step, train_step,
)


def warm_up(model, optimizer, loader):
    with torch.no_grad():
        for images, labels in loader:
            train_step(model, optimizer, images, labels)  # expect: TL407


@torch.inference_mode()
def probe(model, optimizer, loader):
    for images, labels in loader:
        steps.shared_step(model, optimizer, images, labels)  # expect: TL407
        guarded_step(model, optimizer, images, labels, update=True)  # expect: TL407
        quick_step(model, optimizer, images, labels, update=True)  # expect: TL407


def validate(model, optimizer, loader):
    total = 0.0
    with torch.no_grad():
        for images, labels in loader:
            total += shared_step(model, optimizer, images, labels, train=False)
            total += guarded_step(model, optimizer, images, labels)
            refine_step(model, optimizer, images, labels)
            checked_step(model, optimizer, images, labels)
            total += quick_step(model, optimizer, images, labels)
            total += tolerant_step(model, optimizer, images, labels)
    return total


def fit(model, optimizer, loader, options):
    for images, labels in loader:
        train_step(model, optimizer, images, labels)
        shared_step(model, optimizer, images, labels)
        loss = torch.nn.functional.mse_loss(model(images), labels)
        with torch.no_grad():
            apply_step(loss, optimizer)
    with torch.no_grad():
        shared_step(model, optimizer, images, labels, **options)


def warm_up_stepper(model, optimizer, loader):
    stepper = steps.Stepper(model, optimizer)
    with torch.no_grad():
        for images, labels in loader:
            stepper.step(images, labels)  # expect: TL407
    for images, labels in loader:
        stepper.step(images, labels)
