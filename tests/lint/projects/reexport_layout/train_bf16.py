from bf16_compat import GradScaler, autocast


def train(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        opt.zero_grad()
        with autocast():
            loss = model(x).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
