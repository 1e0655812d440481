"""A script whose training loop runs at module level, calling methods and
functions of the project's other modules."""
import helpers
from net import Net, QuietNet
from trainer import OwnFree, Trainer

trainer = Trainer(model, optimizer, loader)
quiet = OwnFree()
net = Net()
quiet_net = QuietNet()
for epoch in range(10):
    for batch in loader:
        trainer.update(batch)
        trainer.free_memory()  # expect: TL201
        quiet.free_memory()
        helpers.release()  # expect: TL201
        helpers.release_sometimes(epoch)
        net(batch).sum().backward()  # expect: TL201
        quiet_net(batch).sum().backward()
