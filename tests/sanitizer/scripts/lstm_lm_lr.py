"""A word-level LSTM language model trained with truncated backpropagation through time
on synthetic text (each word followed by one of three words drawn for it), its hidden
state carried from one chunk to the next and detached, its gradient norm clipped to 0.5,
as the classic word-language-model tutorials train it.

Healthy at Adam's lr=2e-3: the loss falls from ln(80) ~ 4.4. `--lr 20` (10,000 times
that): the loss jumps from 4.37 to 388 at step 2 (89 times, under the 100 of a jump at
once), rises on to about 900 within ten steps, then wanders and drifts down, still
more than a hundred times above where it started. A class-indexed cross-entropy that
starts where an untrained classifier does (ln 2 or more) has no warm-up rise of a loss
tiny by construction (a contrastive loss whose queue starts random). Expected:
divergence at step 2, at the line of the loss."""
import argparse

import torch
from torch import nn
from torch.nn import functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=2e-3)
parser.add_argument("--steps", type=int, default=80)
arguments = parser.parse_args()

torch.manual_seed(0)
vocabulary, batch, chunk, width = 80, 16, 20, 256
followers = torch.randint(0, vocabulary, (vocabulary, 3))
words = [0]
for _ in range(batch * (arguments.steps + 1) * chunk):
    words.append(int(followers[words[-1], torch.randint(0, 3, ()).item()]))
stream = torch.tensor(words[:batch * (len(words) // batch)]).view(batch, -1)


class WordModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocabulary, 32)
        self.lstm = nn.LSTM(32, width, batch_first=True)
        self.out = nn.Linear(width, vocabulary)

    def forward(self, ids: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]):
        hidden, state = self.lstm(self.embed(ids), state)
        return self.out(hidden).reshape(-1, vocabulary), state


model = WordModel()
optimizer = torch.optim.Adam(model.parameters(), lr=arguments.lr)
state = (torch.zeros(1, batch, width), torch.zeros(1, batch, width))
for step in range(arguments.steps):
    start = step * chunk
    inputs, targets = stream[:, start:start + chunk], stream[:, start + 1:start + 1 + chunk]
    state = tuple(part.detach() for part in state)
    logits, state = model(inputs, state)
    loss = F.cross_entropy(logits, targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    print(f"step {step + 1} loss {loss.item():.4f}")
