"""A character-level MLP (makemore's MLP: embeddings of the last 3 characters, a
hidden layer, logits over 27 characters) trained with AdamW on made-up names.
`--lr 25` (a rate for plain SGD given to AdamW): the loss goes from chance
(ln 27 = 3.4) to 845, 250 times as high, at step 2, rises on to 4,000 over the
next steps, then drifts down and stays 70 to 300 times above its start for 80
steps, with no NaN. Expected: divergence at step 2. The default rate (5e-4)
trains normally."""
import argparse

import torch
from torch import nn
from torch.nn import functional as F

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def names(count: int, generator: torch.Generator) -> list[str]:
    syllables = ["an", "el", "ma", "ri", "jo", "sa", "li", "na", "ka", "ev", "ol", "us", "ta", "be", "ne"]
    picks = torch.randint(0, len(syllables), (count, 4), generator=generator)
    lengths = torch.randint(1, 5, (count,), generator=generator)
    return ["".join(syllables[i] for i in row[:n].tolist()) for row, n in zip(picks, lengths.tolist())]


def examples(words: list[str], context: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    inputs, targets = [], []
    for word in words:
        window = [0] * context
        for char in word + ".":
            index = LETTERS.index(char) + 1 if char != "." else 0
            inputs.append(list(window))
            targets.append(index)
            window = window[1:] + [index]
    return torch.tensor(inputs), torch.tensor(targets)


class CharMLP(nn.Module):
    def __init__(self, vocab: int = 27, context: int = 3, embed: int = 32, hidden: int = 256) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.mlp = nn.Sequential(nn.Linear(context * embed, hidden), nn.Tanh(), nn.Linear(hidden, vocab))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.embed(idx).flatten(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--steps", type=int, default=80)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    inputs, targets = examples(names(2000, generator))
    model = CharMLP()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    for step in range(args.steps):
        batch = torch.randint(0, len(inputs), (32,), generator=generator)
        loss = F.cross_entropy(model(inputs[batch]), targets[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0 or step < 4:
            print(f"step {step} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
