import torch


def pipeline(model, loader, val_loader, masked):
    # both alternatives put the model back in train mode
    optimizer = torch.optim.Adam(model.parameters())
    if masked:
        from train.epochs import train_epoch_masked as train_epoch
    else:
        from train.epochs import train_epoch_dense as train_epoch
    from train.epochs import evaluate_dense
    for epoch in range(10):
        train_epoch(model, optimizer, loader)
        evaluate_dense(model, val_loader)
