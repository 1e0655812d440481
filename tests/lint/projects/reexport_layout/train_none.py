from none_compat import autocast


def evaluate(model, batches):
    with autocast():  # expect: TL102
        return [model(x) for x in batches]
