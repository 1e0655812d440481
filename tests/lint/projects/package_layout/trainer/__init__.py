from .loop import *  # noqa: F403 - the package's API is the loop module's
