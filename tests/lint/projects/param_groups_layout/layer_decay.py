"""Parameter groups with a learning-rate scale per depth (layer-wise decay)."""


def param_groups(model, weight_decay, decay=0.75):
    blocks = list(model.children())
    groups = []
    for depth, block in enumerate(blocks):
        scale = decay ** (len(blocks) - 1 - depth)
        groups.append({"params": list(block.parameters()), "weight_decay": weight_decay, "lr_scale": scale})
    return groups
