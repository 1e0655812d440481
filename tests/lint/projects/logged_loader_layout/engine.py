def fit_epoch(model, loader, optimizer):
    for inputs, targets in loader:
        optimizer.zero_grad()
        model(inputs, targets).backward()
        optimizer.step()
