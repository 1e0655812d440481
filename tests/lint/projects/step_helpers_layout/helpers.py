"""The end of a training step, kept in a module of its own."""


def end_step(scaler, optimizer):
    scaler.update()
    optimizer.zero_grad()


def log_step(step, scale):
    print(f"step {step}: loss scale {scale}")


def zero_meters(meters):
    for meter in meters.values():
        meter.reset()
