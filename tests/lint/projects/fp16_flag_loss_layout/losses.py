"""A denoising loss whose prediction runs under float16 autocast when a flag asks for it,
and is cast back to float32 for the loss; a classification loss returned from under float16
autocast when a flag asks for it; a distillation loss that detaches its float16 targets."""
import torch
import torch.nn.functional as F


def denoise_loss(unet, batch, scheduler, mixed_precision=False):
    noise = torch.randn_like(batch)
    steps = torch.randint(0, 1000, (batch.shape[0],), device=batch.device)
    noisy = scheduler.add_noise(batch, noise, steps)
    if mixed_precision:
        with torch.autocast("cuda"):
            pred = unet(noisy, steps).sample
    else:
        pred = unet(noisy, steps).sample
    loss = F.mse_loss(pred.float(), noise.float(), reduction="none").mean([1, 2, 3]).mean()
    return loss


def classify_loss(model, x, y, amp=False):
    if amp:
        with torch.autocast("cuda"):
            return F.cross_entropy(model(x), y)
    return F.cross_entropy(model(x), y)


def distill_loss(student, teacher, batch):
    with torch.autocast("cuda", dtype=torch.float16):
        targets = teacher(batch)
    return F.mse_loss(student(batch), targets.detach().float())
