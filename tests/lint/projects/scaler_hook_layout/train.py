import torch

from events import subscribe_scaler_update
from hooks import install_scale_logger, install_update_hook, install_update_hook_when, report_and_keep, report_scale
from setup import prepare


def train(model, optimizer, loader):
    # the hook updates the scaler after every optimizer step that runs: one skipped for
    # inf/NaN gradients misses the update, and the next scaler.step() raises
    scaler = torch.amp.GradScaler("cuda")
    install_update_hook(optimizer, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_prepared(model, optimizer, loader):
    # installed two calls away: the same
    scaler = torch.amp.GradScaler("cuda")
    prepare(model, optimizer, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_logged(model, optimizer, loader, log):
    # the hook only reads the scale: nothing updates the scaler
    scaler = torch.amp.GradScaler("cuda")
    install_scale_logger(optimizer, scaler, log)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_hook_off(model, optimizer, loader):
    # the hook is registered only when enabled, and this call disables it
    scaler = torch.amp.GradScaler("cuda")
    install_update_hook_when(optimizer, scaler, False)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_swa_hooked(model, optimizer, swa_optimizer, loader):
    # the hook goes on the optimizer this loop never steps
    scaler = torch.amp.GradScaler("cuda")
    prepare(model, swa_optimizer, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_on_events(model, optimizer, loader, bus):
    # the bus may update the scaler when "step_end" fires: reported, with no fix
    scaler = torch.amp.GradScaler("cuda")
    subscribe_scaler_update(bus, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_reported(model, optimizer, loader):
    # the helper only prints the scale: nothing else can update the scaler, and the fix
    # adds the update after the step
    scaler = torch.amp.GradScaler("cuda")
    report_scale(scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104


def train_kept(model, optimizer, loader, kept):
    # the helper also keeps the scaler, for whatever runs later to update it: no fix
    scaler = torch.amp.GradScaler("cuda")
    report_and_keep(scaler, kept)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104
