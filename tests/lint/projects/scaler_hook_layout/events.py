"""An event bus of the project: its callbacks run when the training script fires them."""


def subscribe_scaler_update(bus, scaler):
    bus.subscribe("step_end", lambda *_: scaler.update())
