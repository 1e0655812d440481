import torch


@torch.no_grad()
def predict(model, x):
    return model(x)


@torch.inference_mode()
def predict_fast(model, x):
    return model(x)
