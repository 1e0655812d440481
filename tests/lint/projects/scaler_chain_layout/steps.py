"""One mixed-precision step that leaves the update to its callers, and a helper that
updates the scale."""


def train_one_step(model, optimizer, scaler, batch):
    optimizer.zero_grad()
    scaler.scale(model(batch).mean()).backward()
    scaler.step(optimizer)


def update_scale(scaler):
    scaler.update()
