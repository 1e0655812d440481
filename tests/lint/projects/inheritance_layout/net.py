import torch


class Net(torch.nn.Module):
    def forward(self, x):
        torch.cuda.empty_cache()
        return self.fc(x)


class QuietNet(torch.nn.Module):
    def forward(self, x):
        return self.fc(x)
