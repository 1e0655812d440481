"""Optimizer step hooks that the training scripts install: one updates the GradScaler
after every step that runs (not after one skipped for inf/NaN gradients), one only logs
its scale."""


def install_update_hook(optimizer, scaler):
    optimizer.register_step_post_hook(lambda *_: scaler.update())


def install_scale_logger(optimizer, scaler, log):
    optimizer.register_step_post_hook(lambda *_: log.update(scale=scaler.get_scale()))


def install_update_hook_when(optimizer, scaler, enabled):
    if enabled:
        optimizer.register_step_post_hook(lambda *_: scaler.update())


def report_scale(scaler):
    print("loss scale:", scaler.get_scale())


def report_and_keep(scaler, kept):
    print("loss scale:", scaler.get_scale())
    kept.append(scaler)
