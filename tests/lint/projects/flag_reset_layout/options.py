"""Helpers that adjust the parsed command-line options."""
import copy


def enable_fp16(cfg):
    cfg.fp16 = True


def configure(cfg, overrides):
    cfg.lr = overrides.get("lr", cfg.lr)
    enable_fp16(cfg)


def force(cfg, name):
    setattr(cfg, name, True)


def show(cfg):
    print("fp16:", cfg.fp16)


def disable_fp16(cfg):
    vars(cfg)["fp16"] = False


def with_fp16(cfg):
    cfg = copy.copy(cfg)
    cfg.fp16 = True
    return cfg


def quiet(cfg):
    cfg.verbose = False
