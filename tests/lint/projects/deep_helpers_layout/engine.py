"""Steps that leave clearing and freeing to helpers of other modules."""
import tools
import utils


def train_step(model, optimizer, x):
    utils.prepare(optimizer)
    model(x).sum().backward()
    optimizer.step()


def train_step_freeing(model, optimizer, x):
    model(x).sum().backward()
    optimizer.step()
    utils.release()


def train_step_tools(model, optimizer, x):
    tools.prepare(optimizer)
    model(x).sum().backward()
    optimizer.step()


def backward(loss):
    loss.backward()


def step_only(optimizer):
    optimizer.step()
