"""Training phases calling the loss helpers of another module: the float16 path asked for
without a scaler, with one, not asked for (false, left to the default, or a flag whose callers
turn it off), and a distillation loss whose float16 values carry no gradient."""
import torch

from losses import classify_loss, denoise_loss, distill_loss


def tune_unet(unet, loader, scheduler, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        loss = denoise_loss(unet, batch, scheduler, mixed_precision=True)
        loss.backward()  # expect: TL103
        optimizer.step()


def tune_unet_scaled(unet, loader, scheduler, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        optimizer.zero_grad()
        loss = denoise_loss(unet, batch, scheduler, mixed_precision=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def tune_embeddings(unet, loader, scheduler, optimizer, mixed_precision=False):
    for batch in loader:
        optimizer.zero_grad()
        denoise_loss(unet, batch, scheduler, mixed_precision=mixed_precision).backward()
        denoise_loss(unet, batch, scheduler).backward()
        optimizer.step()


def tune_classifier(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        classify_loss(model, x, y, amp=True).backward()  # expect: TL103
        classify_loss(model, x, y).backward()
        optimizer.step()


def distill(student, teacher, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        distill_loss(student, teacher, batch).backward()
        optimizer.step()


def main(unet, student, teacher, loader, scheduler, optimizer):
    tune_embeddings(unet, loader, scheduler, optimizer, mixed_precision=False)
    tune_unet(unet, loader, scheduler, optimizer)
    tune_unet_scaled(unet, loader, scheduler, optimizer)
    tune_classifier(student, loader, optimizer)
    distill(student, teacher, loader, optimizer)
