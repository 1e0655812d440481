"""Training steps that compute their loss and back-propagate it themselves."""
import torch
import torch.nn.functional as F


def train_step(model, optimizer, images, labels):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def shared_step(model, optimizer, images, labels, train=True):
    loss = F.cross_entropy(model(images), labels)
    if train:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def guarded_step(model, optimizer, images, labels, update=False):
    loss = F.cross_entropy(model(images), labels)
    if not update:
        return loss.item()
    loss.backward()
    optimizer.step()
    return loss.item()


def quick_step(model, optimizer, images, labels, update=False):
    loss = F.cross_entropy(model(images), labels)
    if not update: return loss.item()
    loss.backward()
    optimizer.step()
    return loss.item()


def tolerant_step(model, optimizer, images, labels):
    loss = F.cross_entropy(model(images), labels)
    try:
        loss.backward()
    except RuntimeError:
        return loss.item()
    optimizer.step()
    return loss.item()


def refine_step(model, optimizer, images, labels):
    with torch.enable_grad():
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
    optimizer.step()


def apply_step(loss, optimizer):
    loss.backward()
    optimizer.step()


def checked_step(model, optimizer, images, labels):
    loss = F.cross_entropy(model(images), labels)
    if loss.requires_grad:
        loss.backward()
        optimizer.step()


class Stepper:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def step(self, images, labels):
        loss = F.cross_entropy(self.model(images), labels)
        loss.backward()
        self.optimizer.step()
