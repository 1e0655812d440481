import data


def loaders(args):
    return data.make_loaders(args)


@data.pinned
def pinned_loaders(args):
    return data.make_loaders(args)
