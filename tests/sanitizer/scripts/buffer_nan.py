"""A model whose buffers change as it trains: a `Standardize` layer keeps an EMA of
its input's scale (`register_buffer("scale", ...)`, updated in forward after using it),
and divides its input by it; a causal mask buffer holds -inf above the diagonal (a
constant, by design).

    zero-scale   at step 3 the batch is all zeros: the EMA update divides by the batch's
                 own scale, 0, and writes NaN into `norm.scale` after step 3's forward used
                 it (finite). Expected: nonfinite_buffer at step 3 naming buffer
                 `norm.scale` and module `norm`, first in the diagnosis; step 4's
                 non-finite outputs fold under it.
    reset        the all-zero batch of zero-scale comes at steps 3 and 6; the script's own
                 guard skips the update of a step whose loss is not finite and resets the
                 EMA to ones. Expected: nonfinite_buffer at step 3 and again at step 6, each
                 found by the next forward.
    copied       after step 2 the script copies a NaN statistic into `norm.scale`
                 (`.copy_()`, as a bad checkpoint does). Expected: nonfinite_buffer at
                 step 2 naming `norm.scale`.
    nan-batch    the batch of step 3 holds NaN: the EMA takes it in. Expected: the batch
                 is the cause (nonfinite_input at step 3), the buffer its consequence.
    critic       a second model, a critic with its own `Standardize`, runs after the
                 first in each step on the model's output; its batch is all zeros at
                 step 3. Expected: nonfinite_buffer at step 3 naming the critic's buffer.
    healthy      nothing breaks: the -inf mask is never reported, nor the EMA.
    by-design    buffers that turn non-finite after the first step on purpose while every
                 output stays finite: a causal mask registered as zeros and rebuilt with
                 -inf at each forward, a NaN placeholder, a float16 sentinel set to Inf.
                 Expected: no event.
    by-design-lr those buffers, and from step 2 a learning rate of 1e30 that blows the weights
                 up: the forward that first read the buffers non-finite (step 2's) gave finite
                 outputs, so the blow-up is not theirs. Expected: no nonfinite_buffer.
    loss-nan     after step 1 the script fills a `score` buffer with NaN ("not measured yet"),
                 which no forward reads; at step 3 the loss code makes NaN (0 * log(0)) from
                 finite outputs. Expected: nonfinite_loss at step 3 is the root, no nonfinite_buffer.
    ema-weight   after each step() the script keeps an EMA of `mix.weight` in a buffer that
                 the forward adds to its input; at step 3 a learning rate of Inf breaks the
                 weight, and the EMA copies it. Expected: nonfinite_param at step 3 is the
                 root, the buffer (written at step 3 too) one of its symptoms.
    meta         the model also holds buffers whose values cannot be read cheaply: one on
                 the meta device (no values at all), a sparse one; the batch of step 3 holds
                 NaN. Expected: the batch is the cause (nonfinite_input at step 3), and no
                 internal error.
    odd          those buffers, a float16 one near its largest value that its forward adds
                 to, and one registered as None that the forward then assigns: healthy.
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "zero-scale"
torch.manual_seed(0)
D = 8


class Standardize(nn.Module):
    def __init__(self, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        self.register_buffer("scale", torch.ones(D))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x / self.scale
        with torch.no_grad():
            ratio = x.abs().mean(0) / x.abs().mean(0)  # a relative update: 0 / 0 on an all-zero batch
            self.scale.mul_(1 - self.momentum).add_(self.momentum * ratio * x.abs().mean(0).clamp_min(1e-3))
        return out


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = Standardize()
        self.mix = nn.Linear(D, D)
        self.register_buffer("mask", torch.full((D, D), float("-inf")).triu(1))
        self.head = nn.Linear(D, 1)
        if mode == "loss-nan":
            self.register_buffer("score", torch.zeros(1))
        if mode == "ema-weight":
            self.register_buffer("ema_w", self.mix.weight.detach().clone())
        if mode.startswith("by-design"):
            self.register_buffer("causal", torch.zeros(D, D))
            self.register_buffer("placeholder", torch.zeros(D))
            self.register_buffer("sentinel", torch.zeros(D, dtype=torch.float16))
        if mode in ("meta", "odd"):
            self.register_buffer("shape_only", torch.empty(D, device="meta"))
            self.register_buffer("sparse", torch.eye(D).to_sparse())
            self.register_buffer("big16", torch.full((D,), 300.0, dtype=torch.float16))
            self.register_buffer("later", None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if mode == "ema-weight":
            x = x + self.ema_w.sum(0)
        h = self.mix(self.norm(x))
        if mode == "odd":
            self.big16.add_(1)
            self.later = h.detach().mean(0)
        if mode.startswith("by-design"):
            self.causal = torch.full((D, D), float("-inf")).triu(1)
            self.placeholder.fill_(float("nan"))
            self.sentinel.fill_(float("inf"))
        mask = self.causal if mode.startswith("by-design") else self.mask  # the rebuilt mask, read: the same
        weights = torch.softmax(h.unsqueeze(1) * h.unsqueeze(2) + mask, dim=-1)
        return self.head((weights @ h.unsqueeze(2)).squeeze(2))


model = Net()
critic = nn.Sequential(Standardize(), nn.Linear(D, 1))
opt = torch.optim.SGD([*model.parameters(), *(critic.parameters() if mode == "critic" else ())], lr=1e-2)
for step in range(1, 9 if mode == "reset" else 7):
    x, y = torch.randn(16, D), torch.randn(16, 1)
    if (step == 3 and mode == "zero-scale") or (step in (3, 6) and mode == "reset"):
        x = torch.zeros(16, D)
    if step == 3 and mode in ("nan-batch", "meta"):
        x[0, 0] = float("nan")
    if step == 2 and mode == "by-design-lr":
        opt.param_groups[0]["lr"] = 1e30
    if step == 3 and mode == "ema-weight":
        opt.param_groups[0]["lr"] = float("inf")
    loss = nn.functional.mse_loss(model(x), y)
    if step == 3 and mode == "loss-nan":
        loss = loss + 0 * torch.log(torch.zeros(()))
    if mode == "critic":
        loss = loss + critic(torch.zeros(16, D) if step == 3 else x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if mode == "reset" and not torch.isfinite(loss):
        opt.zero_grad()  # skip the batch, and start the running scale again
        model.norm.scale.fill_(1.0)
    opt.step()
    if mode == "ema-weight":
        with torch.no_grad():
            model.ema_w.mul_(0.9).add_(0.1 * model.mix.weight)
    if step == 1 and mode == "loss-nan":
        model.score.fill_(float("nan"))
    if step == 2 and mode == "copied":
        model.norm.scale.copy_(torch.full((D,), float("nan")))
    print(f"{step} {loss.item():.6f}")
