"""A character model with learned positions, trained 30 steps on 16-character windows,
then asked to write 40 characters. `sample`: the generation feeds the whole growing text
back in, never cropped to the 16 positions the model has, and the position embedding
raises once the text is longer: a crash after the last optimizer step, in code that
trains nothing. `train`: the batch of step 31 holds an id past the vocabulary, and that
step's forward raises: a crash in step 31. Expected: `sample` says the script crashed
after step 30, the last optimizer step; `train` says it crashed in step 31."""
import sys

import torch
from torch import nn
from torch.nn import functional as F

mode = sys.argv[1] if len(sys.argv) > 1 else "sample"
torch.manual_seed(0)
text = "the quick brown fox jumps over the lazy dog " * 20
chars = sorted(set(text))
ids = torch.tensor([chars.index(c) for c in text])
block = 16


class CharModel(nn.Module):
    def __init__(self, vocab: int, width: int = 32) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(block, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        where = torch.arange(x.shape[1])
        return self.head(torch.tanh(self.tokens(x) + self.positions(where)))


model = CharModel(len(chars))
opt = torch.optim.AdamW(model.parameters(), lr=0.02)
steps = 31 if mode == "train" else 30
for step in range(1, steps + 1):
    start = torch.randint(0, len(ids) - block - 1, (8,))
    x = torch.stack([ids[s:s + block] for s in start])
    y = torch.stack([ids[s + 1:s + block + 1] for s in start])
    if step == 31:
        x[0, 0] = len(chars)  # one past the vocabulary
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, len(chars)), y.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print("trained", f"{loss.item():.3f}", flush=True)

model.eval()
with torch.no_grad():
    out = torch.tensor([[chars.index("t")]])
    for _ in range(40):
        logits = model(out)[:, -1]  # the whole text so far: not cropped to the last `block`
        out = torch.cat([out, logits.argmax(-1, keepdim=True)], dim=1)
print("".join(chars[i] for i in out[0]))
