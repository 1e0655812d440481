"""Which model got the corrupt batch, and where. `gan`: the generator runs first on finite
noise, then the discriminator on a real batch holding a NaN (iteration 6). `views`: one
model, two views per step, the second holding a NaN (step 6). `transform`: a data
transform written as a module runs in the Dataset before the model, which is left in eval
mode (every step trains it so). `head`: a parameter-free head applied to the model's
output, given it by keyword, takes the log of a negative value at step 6: the NaN is
born there."""
import sys

import torch
from torch import nn

torch.manual_seed(0)
mode = sys.argv[1]
if mode == "gan":
    G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g, opt_d = torch.optim.Adam(G.parameters(), 1e-3), torch.optim.Adam(D.parameters(), 1e-3)
    bce = nn.BCEWithLogitsLoss()
    for it in range(8):
        real = torch.randn(32, 2)
        if it == 5:
            real[0, 0] = float("nan")
        fake = G(torch.randn(32, 8))
        loss_d = bce(D(real), torch.ones(32, 1)) + bce(D(fake.detach()), torch.zeros(32, 1))  # the NaN batch
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        loss_g = bce(D(fake), torch.ones(32, 1))
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
elif mode == "views":
    net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for step in range(8):
        x = torch.randn(16, 8)
        view = x + 0.1 * torch.randn_like(x)
        if step == 5:
            view[2, 1] = float("nan")
        first = net(x)
        second = net(view)  # the NaN view
        loss = nn.functional.mse_loss(first, second)
        opt.zero_grad()
        loss.backward()
        opt.step()
elif mode == "head":
    class LogHead(nn.Module):
        def forward(self, z):
            return torch.log(z)

    model, head = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)), LogHead()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(8):
        z = model(torch.randn(16, 8)).abs() + 1e-3
        if step == 5:
            z = z - 10.0
        loss = nn.functional.mse_loss(head(z=z), torch.zeros(16, 1))
        opt.zero_grad()
        loss.backward()
        opt.step()
else:
    class Jitter(nn.Module):
        def forward(self, x):
            return x + 0.01

    class Samples(torch.utils.data.Dataset):
        def __init__(self):
            self.x, self.y, self.jitter = torch.randn(64, 8), torch.randn(64, 1), Jitter()

        def __len__(self):
            return 64

        def __getitem__(self, i):
            return self.jitter(self.x[i]), self.y[i]

    model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.5), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.eval()
    for x, y in torch.utils.data.DataLoader(Samples(), batch_size=8):
        out = model(x)  # the model's call
        loss = nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
print("done")
