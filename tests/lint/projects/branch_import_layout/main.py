import torch


def pipeline(model, loader, val_loader, dense):
    optimizer = torch.optim.Adam(model.parameters())
    if dense:
        from train.epochs import train_epoch_dense as train_epoch, evaluate_dense as evaluate_network
    else:
        from train.epochs import train_epoch_sparse as train_epoch, evaluate_sparse as evaluate_network
    for epoch in range(10):
        train_epoch(model, optimizer, loader)
        evaluate_network(model, val_loader)  # expect: TL405 (the sparse run never calls .train())
