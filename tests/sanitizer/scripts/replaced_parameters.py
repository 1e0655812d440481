"""A vector quantizer whose codebook follows an moving average of the codes it
picks, written (as public code often is) by assigning a new nn.Parameter in every
training forward. The optimizer, built first, keeps the parameters those replace.
Expected: one param_not_in_optimizer at step 1 saying they were replaced, and the
old ones' missing gradients folded under it."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class MovingCodebook(nn.Module):
    def __init__(self, codes: int = 12, width: int = 6, decay: float = 0.95) -> None:
        super().__init__()
        self.codebook = nn.Embedding(codes, width)
        self.average = nn.Parameter(torch.randn(codes, width))
        self.decay = decay

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        picked = torch.cdist(z, self.codebook.weight).argmin(1)
        if self.training:
            counts = F.one_hot(picked, self.codebook.num_embeddings).float()
            self.average = nn.Parameter(self.average * self.decay + (1 - self.decay) * counts.t() @ z)
            self.codebook.weight = nn.Parameter(self.average.clone())
        quantized = self.codebook(picked)
        return z + (quantized - z).detach()


model = nn.Sequential(nn.Linear(3, 6), MovingCodebook(), nn.Linear(6, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(64, 3)
for step in range(24):
    batch = data[step % 4 * 16:(step % 4 + 1) * 16]
    optimizer.zero_grad()
    F.mse_loss(model(batch), batch).backward()
    optimizer.step()
print(f"codebook norm {model[1].average.norm().item():.4f}")
