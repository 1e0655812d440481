from .a2c import A2C
from .dqn import DQN
from .ppo import PPO
