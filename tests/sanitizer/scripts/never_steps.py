"""Forward and backward, but no optimizer step."""
import torch

model = torch.nn.Linear(3, 1)
model(torch.randn(2, 3)).sum().backward()
print("no step")
