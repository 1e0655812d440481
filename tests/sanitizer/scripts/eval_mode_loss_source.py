"""Tabular churn prediction with an MLP (batch norm, dropout), its model calls made with
gradients on around the training call, the model left in eval mode. Expected:
train_in_eval_mode at step 1, located at the model call the training loss came from.

    --metric            the baseline accuracy measured before training calls
                        `model.eval()` and the loop never calls `model.train()`; after
                        the loss, each step measures the accuracy on a fixed probe batch
                        with a second call of the model, gradients on (no torch.no_grad()).
    --chunked-metric    as --metric, the probe batch measured two rows at a time: eight
                        calls on one line after the training call.
    --branches          three branch models (usage, billing, support tickets) summed;
                        the billing one, loaded as pretrained, was left in eval mode and
                        the optimizer fine-tunes all three. Its call is the middle one.
    --validation-first  each epoch begins with a validation pass run with gradients on
                        (it calls `model.eval()`), before the epoch's training calls.
    --fixed             `model.train()` at the start of each epoch: nothing to report.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

FEATURES = 12
STEPS_PER_EPOCH = 6
BATCH = 32


def churn_data(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Customers' features and whether they left: a noisy linear rule."""
    features = torch.randn(n, FEATURES, generator=generator)
    weights = torch.linspace(-1.0, 1.0, FEATURES)
    labels = (features @ weights + 0.3 * torch.randn(n, generator=generator) > 0).long()
    return features, labels


def mlp(inputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2))


def accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    return (logits.argmax(1) == labels).float().mean().item()


def evaluate(model: nn.Module, features: torch.Tensor, labels: torch.Tensor) -> float:
    model.eval()
    return accuracy(model(features), labels)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metric", action="store_true")
    parser.add_argument("--chunked-metric", action="store_true")
    parser.add_argument("--branches", action="store_true")
    parser.add_argument("--validation-first", action="store_true")
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    train_x, train_y = churn_data(BATCH * STEPS_PER_EPOCH, generator)
    val_x, val_y = churn_data(64, generator)
    probe_x, probe_y = val_x[:16], val_y[:16]
    model = mlp(FEATURES)
    usage, billing, support = mlp(4), mlp(4), mlp(4)  # --branches: each over its group of features
    billing.eval()  # loaded as pretrained
    trained = [usage, billing, support] if args.branches else [model]
    optimizer = torch.optim.Adam([param for branch in trained for param in branch.parameters()], lr=1e-2)
    if args.metric or args.chunked_metric:
        print(f"baseline accuracy {evaluate(model, val_x, val_y):.3f}")
    for epoch in range(args.epochs):
        if args.validation_first:
            print(f"epoch {epoch}: validation accuracy {evaluate(model, val_x, val_y):.3f}")
        if args.fixed:
            for branch in trained:
                branch.train()
        for start in range(0, len(train_x), BATCH):
            x, y = train_x[start:start + BATCH], train_y[start:start + BATCH]
            if args.branches:
                from_usage = usage(x[:, :4])
                from_billing = billing(x[:, 4:8])
                from_support = support(x[:, 8:])
                logits = from_usage + from_billing + from_support
            else:
                logits = model(x)
            loss = F.cross_entropy(logits, y)
            if args.metric:
                probe_accuracy = accuracy(model(probe_x), probe_y)
            if args.chunked_metric:  # two rows at a time: 8 calls on one line after the training call
                probe_accuracy = sum(accuracy(model(probe_x[i:i + 2]), probe_y[i:i + 2]) for i in range(0, 16, 2)) / 8
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}" + (f" probe accuracy {probe_accuracy:.3f}" if args.metric or args.chunked_metric else ""))


if __name__ == "__main__":
    main()
