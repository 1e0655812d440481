from utils import *


def evaluate(model, loader):
    model.eval()
    correct = []
    with torch.no_grad():
        for x, y in loader:
            correct.append(accuracy(model(x), y))
    return sum(correct) / len(correct)
