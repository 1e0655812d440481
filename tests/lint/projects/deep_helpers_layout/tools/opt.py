def prepare(optimizer):
    optimizer.zero_grad(set_to_none=True)
