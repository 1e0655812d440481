"""Steps of steps.py run under no_grad, also through the epoch loops of epochs.py:
those that compute and back-propagate raise."""
import torch

import epochs
import steps
from epochs import (
    ping, restart, resume, run_checked, run_eval, run_if, run_local, run_phase, run_refined, run_switched,
    run_tolerant, run_twice,
)
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


def warm_up_epochs(model, optimizer, loader, train):
    with torch.no_grad():
        epochs.run_epoch(model, optimizer, loader)  # expect: TL407
        run_phase(model, optimizer, loader)  # expect: TL407
        run_if(model, optimizer, loader, update=True)  # expect: TL407
        run_twice(model, optimizer, loader)  # expect: TL407
        run_local(model, optimizer, loader)  # expect: TL407
        ping(model, optimizer, loader, 3)  # expect: TL407
        resume(model, optimizer, loader, 3)  # expect: TL407
        restart(model, optimizer, loader, 3)  # expect: TL407
        epochs.wait(model, optimizer, loader, 3)
        run_phase(model, optimizer, loader, train=False)
        run_phase(model, optimizer, loader, train=train)
        run_if(model, optimizer, loader)
        run_eval(model, optimizer, loader)
        run_refined(model, optimizer, loader)
        run_switched(model, optimizer, loader)
        run_checked(model, optimizer, loader)
        run_tolerant(model, optimizer, loader)
        ping(model, optimizer, loader, 0)
