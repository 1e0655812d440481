import torch
import torch.nn.functional as F

import nets
from nets import Ensemble, Net, set_train
from pkg.heads import Classifier as Model
from vendor_models import ResNet


def train_net(loader, epochs):
    model = Net(classes=10)
    model.eval()  # expect: TL405
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()


def train_through_the_module(loader):
    model = nets.Net().eval()  # expect: TL405
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def train_renamed(loader):
    model = Model().eval()  # expect: TL405
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def calibrate_ensemble(loader, paths):
    # not a module: its `eval()` is its own
    model = Ensemble(paths).eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def train_vendor(loader):
    # a class of a library that is not in the project: what it is cannot be told
    model = ResNet().eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def train_switched_back(loader):
    model = Net().eval()
    set_train(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
