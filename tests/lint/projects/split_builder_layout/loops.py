def fit(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
