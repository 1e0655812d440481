"""The optimizer factory of DDIM's `functions/__init__.py`: given parameters, not the model."""
import torch.optim as optim


def get_optimizer(config, parameters):
    if config.optimizer == "Adam":
        return optim.Adam(parameters, lr=config.lr, weight_decay=config.weight_decay)
    if config.optimizer == "RMSProp":
        return optim.RMSprop(parameters, lr=config.lr, weight_decay=config.weight_decay)
    return optim.SGD(parameters, lr=config.lr, momentum=0.9)
