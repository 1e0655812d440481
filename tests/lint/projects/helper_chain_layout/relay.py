import leaf


def outputs(model, x):
    return leaf.predict(model, x)


def outputs_quietly(model, x):
    return leaf.predict_quietly(model, x)


def shapes(model, x):
    return leaf.sizes(model, x)
