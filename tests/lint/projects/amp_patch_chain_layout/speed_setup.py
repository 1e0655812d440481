"""Imports the speed settings only: the AMP API stays torch's."""
import ports.tuning  # noqa: F401
import speed_setup  # noqa: F401 - itself: a cycle of one
