from models.restoration_model import RestorationModel
from models.sr_model import SRModel


def train(net, loader):
    model = SRModel(net)
    for current_iter, data in enumerate(loader):
        model.update_learning_rate(current_iter)  # expect: TL404
        model.optimize_parameters(data)


# the look-alike: the schedulers stepped after the optimizer
def finetune(net, loader):
    model = SRModel(net)
    for current_iter, data in enumerate(loader):
        model.optimize_parameters(data)
        model.update_learning_rate(current_iter)


# the look-alike: the model's schedulers are not stepped on the first iteration
def restore(net, loader):
    model = RestorationModel(net)
    for current_iter, data in enumerate(loader, 1):
        model.update_learning_rate(current_iter)
        model.optimize_parameters(data)
