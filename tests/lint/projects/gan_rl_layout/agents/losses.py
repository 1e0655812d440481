from .common import *  # noqa: F403


def discriminator_loss(real_logits, fake_logits):
    real = F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
    fake = F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits))
    return real + fake


def generator_loss(fake_logits):
    return F.binary_cross_entropy_with_logits(fake_logits, torch.ones_like(fake_logits))


def log_losses(history, **losses):
    for name, value in losses.items():
        history.setdefault(name, []).append(value)


def release_memory():
    torch.cuda.empty_cache()
