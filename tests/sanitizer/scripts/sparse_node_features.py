"""Node classification on a citation-style graph, as the usual GCN examples train
it: the bag-of-words node features and the normalised adjacency are sparse
tensors (row-normalised features kept as COO, or as CSR with `--layout csr`),
the whole graph is one batch, and a two-layer graph convolution multiplies them
with `torch.sparse.mm`.

`--fault N` writes a NaN into one stored feature value before step N (a word
count divided by a zero row total upstream): the batch the model is given holds
NaN from step N on; the model itself is sound."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--fault", type=int, default=-1)
parser.add_argument("--layout", choices=("coo", "csr"), default="coo")
args = parser.parse_args()
torch.manual_seed(0)

NODES, WORDS, CLASSES = 120, 40, 4
labels = torch.randint(0, CLASSES, (NODES,))
words = (torch.rand(NODES, WORDS) < 0.1) | (torch.arange(WORDS) % CLASSES == labels[:, None])
words = words.float()
dense_features = words / words.sum(1, keepdim=True)
links = torch.randint(0, NODES, (2, 4 * NODES))
adjacency = torch.zeros(NODES, NODES)
adjacency[links[0], links[1]] = 1.0
adjacency = ((adjacency + adjacency.t() + torch.eye(NODES)) > 0).float()
scale = adjacency.sum(1).rsqrt()
adjacency = (scale[:, None] * adjacency * scale[None, :]).to_sparse()
features = dense_features.to_sparse() if args.layout == "coo" else dense_features.to_sparse_csr()


def stored(tensor: torch.Tensor) -> torch.Tensor:
    return tensor._values() if tensor.layout is torch.sparse_coo else tensor.values()


class GraphConv(nn.Module):
    def __init__(self, inputs: int, outputs: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(inputs, outputs) * inputs ** -0.5)
        self.bias = nn.Parameter(torch.zeros(outputs))

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        support = torch.sparse.mm(x, self.weight) if x.is_sparse or x.layout is torch.sparse_csr else x @ self.weight
        return torch.sparse.mm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = GraphConv(WORDS, 16)
        self.conv2 = GraphConv(16, CLASSES)
        self.drop = nn.Dropout(0.3)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        h = self.drop(F.relu(self.conv1(x, adj)))
        return F.log_softmax(self.conv2(h, adj), dim=1)


model = GCN()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
train_nodes = torch.arange(NODES) % 3 != 0
for step in range(1, args.steps + 1):
    if step == args.fault:
        stored(features)[3] = float("nan")
    model.train()
    optimizer.zero_grad()
    loss = F.nll_loss(model(features, adjacency)[train_nodes], labels[train_nodes])
    loss.backward()
    optimizer.step()
print("final loss:", f"{loss.item():.17g}")
