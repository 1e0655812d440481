"""Device settings of the parsed command-line options."""


def force_cpu(cfg):
    cfg.cuda = False
