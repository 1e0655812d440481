from utils import *


def train(model, loader, optimizer, epochs):
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            with torch.cuda.amp.autocast():  # expect: TL102
                loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            torch.cuda.empty_cache()  # expect: TL201
