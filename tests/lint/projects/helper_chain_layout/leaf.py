import torch


def _logits(model, x):
    return model(x)


def predict(model, x):
    return _logits(model, x).softmax(-1)


@torch.no_grad()
def predict_quietly(model, x):
    return model(x)


def sizes(model, x):
    return x.size()
