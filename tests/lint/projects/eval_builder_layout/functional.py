import torch
from torch.func import functional_call, grad
from loaders import build_data_loader


def train_functional(model, dataset, epochs, lr=0.1):
    # gradients from torch.func.grad, parameters updated by hand: this file trains
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, x, y):
        return torch.nn.functional.cross_entropy(functional_call(model, p, (x,)), y)

    loader = build_data_loader(dataset, 8)  # expect: TL302
    for epoch in range(epochs):
        for x, y in loader:
            grads = grad(loss_fn)(params, x, y)
            params = {k: params[k] - lr * grads[k] for k in params}
    return params
