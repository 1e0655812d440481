"""A bag-of-tokens classifier called the way Hugging Face models are: by keyword,
`model(input_ids=ids, attention_mask=mask)`, or with an empty cache first,
`model(None, ids, mask)`, or given the batch as a dict, `model({"input_ids": ...})`.

--data loader   a shuffled DataLoader of dicts over 1,025 sequences in batches of
                128: each epoch ends on a batch of 1, whose gradient is some 20
                times a full batch's once the model fits (noise of one sample, no
                spike); the model overfits the small training set
--data slices   batches sliced in order from one tensor of token ids; after every
                epoch the script evaluates on the training data, then on the
                validation data: only the second is a validation loss
--call keywords|cache|dict   how the model is given its batch
--memorise      random labels: the model memorises the training set
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

VOCAB, LENGTH, CLASSES = 64, 12, 4
parser = argparse.ArgumentParser()
parser.add_argument("--data", choices=["loader", "slices"], default="loader")
parser.add_argument("--call", choices=["keywords", "cache", "dict"], default="keywords")
parser.add_argument("--memorise", action="store_true")
args = parser.parse_args()


class BagClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 64)
        self.hidden = nn.Linear(64, 64)
        self.head = nn.Linear(64, CLASSES)

    def pooled(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        vectors = (self.embed(input_ids) * mask).sum(1)
        return self.head(F.relu(self.hidden(vectors)))


class KeywordModel(BagClassifier):
    def forward(self, input_ids, attention_mask):
        return self.pooled(input_ids, attention_mask)


class CachedModel(BagClassifier):
    def forward(self, cache, input_ids, attention_mask):
        return self.pooled(input_ids, attention_mask)  # a classifier keeps no cache: always None


class DictModel(BagClassifier):
    def forward(self, batch):
        return self.pooled(batch["input_ids"], batch["attention_mask"])


def call(model, ids, mask):
    if args.call == "keywords":
        return model(input_ids=ids, attention_mask=mask)
    if args.call == "cache":
        return model(None, ids, mask)
    return model({"input_ids": ids, "attention_mask": mask})


class Sequences(Dataset):
    def __init__(self, ids, mask, labels) -> None:
        self.ids, self.mask, self.labels = ids, mask, labels

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index):
        return {"input_ids": self.ids[index], "attention_mask": self.mask[index], "labels": self.labels[index]}


torch.manual_seed(0)
TRAIN = 128 * 8 + 1 if args.data == "loader" else 130
ids = torch.randint(1, VOCAB, (TRAIN + 500, LENGTH))
lengths = torch.randint(4, LENGTH + 1, (TRAIN + 500,))
mask = (torch.arange(LENGTH) < lengths[:, None]).long()
ids = ids * mask
counts = torch.zeros(len(ids), VOCAB).scatter_add_(1, ids, mask.float())[:, 1:]  # padding (0) left out
labels = torch.randint(0, CLASSES, (len(ids),)) if args.memorise else (counts @ torch.randn(VOCAB - 1, CLASSES)).argmax(1)
train_ids, train_mask, train_labels = ids[:TRAIN], mask[:TRAIN], labels[:TRAIN]
val_ids, val_mask, val_labels = ids[TRAIN:], mask[TRAIN:], labels[TRAIN:]
model = {"keywords": KeywordModel, "cache": CachedModel, "dict": DictModel}[args.call]()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2 if args.data == "loader" else 3e-3)


def evaluate(ids, mask, labels):
    model.eval()
    with torch.no_grad():
        loss = F.cross_entropy(call(model, ids, mask), labels).item()
    model.train()
    return loss


def train_on(ids, mask, labels):
    loss = F.cross_entropy(call(model, ids, mask), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if args.data == "loader":
    loader = DataLoader(Sequences(train_ids, train_mask, train_labels), batch_size=128, shuffle=True)
    for epoch in range(25):
        for batch in loader:
            train_on(batch["input_ids"], batch["attention_mask"], batch["labels"])
        val_loss = evaluate(val_ids, val_mask, val_labels)
        if epoch % 5 == 4:
            print(f"epoch {epoch + 1}: val {val_loss:.4f}")
else:
    for epoch in range(40):
        for start in range(0, TRAIN, 32):
            end = start + 32
            train_on(train_ids[start:end], train_mask[start:end], train_labels[start:end])
        train_loss = evaluate(train_ids, train_mask, train_labels)
        val_loss = evaluate(val_ids, val_mask, val_labels)
        if epoch % 10 == 9:
            print(f"epoch {epoch + 1}: train {train_loss:.4f} val {val_loss:.4f}")
print(f"val {val_loss:.6f}")
