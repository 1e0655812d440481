import torch


def pipeline(model, loader, val_loader, dense):
    # each run puts the model back in train mode, in one helper or the other: which
    # preparation goes with which epoch is the branch's, not told by the names
    optimizer = torch.optim.Adam(model.parameters())
    if dense:
        from train.epochs import train_epoch_dense as train_epoch, prepare_dense as prepare
    else:
        from train.epochs import train_epoch_sparse as train_epoch, prepare_sparse as prepare
    from train.epochs import evaluate_dense
    for epoch in range(10):
        prepare(model)
        train_epoch(model, optimizer, loader)
        evaluate_dense(model, val_loader)
