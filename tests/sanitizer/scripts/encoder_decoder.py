"""A GRU encoder-decoder learning to reverse sequences, with an optimizer for each
half (as sequence-to-sequence tutorials write it): one backward pass, then
`encoder_optimizer.step()` and `decoder_optimizer.step()`.

    --iterations N    training iterations (default 150)
    --fault K         iteration K (1-based) sets the decoder's logit temperature to 0
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, HIDDEN = 12, 32


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)

    def forward(self, tokens):
        _, hidden = self.gru(self.embedding(tokens))
        return hidden


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)
        self.temperature = 1.0

    def forward(self, tokens, hidden):
        output, _ = self.gru(F.relu(self.embedding(tokens)), hidden)
        return self.out(output) / self.temperature


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--fault", type=int, default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    encoder, decoder = Encoder(), Decoder()
    encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=3e-3)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=3e-3)
    for iteration in range(1, args.iterations + 1):
        if iteration == args.fault:
            decoder.temperature = 0.0
        source = torch.randint(1, VOCAB, (16, 8))
        target = source.flip(1)
        start = torch.zeros(16, 1, dtype=torch.long)
        logits = decoder(torch.cat([start, target[:, :-1]], dim=1), encoder(source))  # teacher forcing
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), target.reshape(-1))
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        loss.backward()
        encoder_optimizer.step()
        decoder_optimizer.step()
    print(f"loss: {loss.item():.4f}")


if __name__ == "__main__":
    main()
