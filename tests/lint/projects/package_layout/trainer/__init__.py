from .loop import fit, train_step
