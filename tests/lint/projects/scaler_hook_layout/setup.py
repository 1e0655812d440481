"""Training set-up that installs the hooks of hooks.py."""
from hooks import install_update_hook


def prepare(model, optimizer, scaler):
    model.train()
    install_update_hook(optimizer, scaler)
