"""What every script imports first: logging, then the device."""
import logging

import device_setup  # noqa: F401

logging.basicConfig(level=logging.INFO)
