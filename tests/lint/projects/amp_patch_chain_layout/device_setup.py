"""Picks the accelerator: on an NPU host, its port patches torch when imported."""
import os

if os.environ.get("DEVICE") == "npu":
    import ports.npu  # noqa: F401

import launch  # noqa: F401 - imports this module back: a cycle
