"""A word-level LSTM language model trained without torch.optim: truncated BPTT,
gradient clipping and a hand-written SGD update on `p.data`, as small LM examples do.

    --batches N       batches to train (default 40)
    --nan-batch K     batch K divides the head's logits by a temperature of 0
    --rss             print the process RSS (KiB) after batch 100 and at the end
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    """Projects LSTM states to vocabulary logits, softened by a temperature."""

    def __init__(self, hidden: int, vocab: int) -> None:
        super().__init__()
        self.proj = nn.Linear(hidden, vocab)
        self.temperature = 1.0

    def forward(self, h):
        return self.proj(h) / self.temperature


class LanguageModel(nn.Module):
    def __init__(self, vocab: int, emb: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden)
        self.drop = nn.Dropout(0.2)
        self.head = Head(hidden, vocab)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(tokens)), hidden)
        return self.head(self.drop(output)), hidden

    def init_hidden(self, batch: int):
        zeros = torch.zeros(1, batch, self.rnn.hidden_size)
        return zeros, zeros.clone()


def repackage(hidden):
    """Cut the graph between BPTT windows (the hidden state's values are kept)."""
    return tuple(h.detach() for h in hidden)


def rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--nan-batch", type=int, default=-1)
    parser.add_argument("--rss", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    vocab, bptt, batch = 50, 12, 8
    corpus = torch.randint(0, vocab, (bptt * batch * 20 + 1,))
    model = LanguageModel(vocab)
    lr = 2.0
    hidden = model.init_hidden(batch)
    stream = corpus[:-1].view(-1, batch)
    targets_stream = corpus[1:].view(-1, batch)
    windows = stream.size(0) // bptt
    for index in range(1, args.batches + 1):
        start = ((index - 1) % windows) * bptt
        tokens, targets = stream[start:start + bptt], targets_stream[start:start + bptt]
        model.head.temperature = 0.0 if index == args.nan_batch else 1.0
        model.train()
        model.zero_grad()
        hidden = repackage(hidden)
        logits, hidden = model(tokens, hidden)
        loss = F.cross_entropy(logits.view(-1, vocab), targets.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        if args.rss and index == 100:
            print("rss_kb", rss_kib(), flush=True)
    if args.rss:
        print("rss_kb", rss_kib(), flush=True)
    print(f"trained {args.batches} batches, last loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
