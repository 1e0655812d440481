from torch.utils.data import DataLoader

import engine
import stages


def main(ds, model, device):
    stages.train_stage(model, DataLoader(ds, batch_size=8), device)  # expect: TL502
    stages.warmup(model, DataLoader(ds, batch_size=8), device, 2)  # expect: TL502
    stages.finetune(model, DataLoader(ds, batch_size=8), device)
    engine.fit(model, DataLoader(ds, batch_size=8, pin_memory=True), device, 2)
    engine.count_batches(DataLoader(ds, batch_size=8))
    engine.fit_copied(model, DataLoader(ds, batch_size=8), device)
    stages.evaluate_other(model, DataLoader(ds, batch_size=8), ds, device)
