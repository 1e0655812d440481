"""Step functions: one returns the loss it back-propagated, one its number."""


def train_step(model, optimizer, batch):
    optimizer.zero_grad()
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    return loss


def logged_step(model, optimizer, batch):
    optimizer.zero_grad()
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


def pair_step(model, optimizer, batch):
    """Returns the loss tensor with the batch size, and its number in a dict."""
    optimizer.zero_grad()
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    return loss, len(batch), {"loss": loss.item()}
