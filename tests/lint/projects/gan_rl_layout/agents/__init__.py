from .buffer import ReplayBuffer  # noqa: F401
from .networks import *  # noqa: F401,F403
