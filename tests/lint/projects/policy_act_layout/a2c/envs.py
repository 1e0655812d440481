import gym


def make_vec_envs(env_name, seed):
    env = gym.make(env_name)
    env.seed(seed)
    return env
