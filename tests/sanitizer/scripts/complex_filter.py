"""A learned spectral filter, as signal-processing code trains one: a complex-valued
`nn.Parameter` (`--dtype cfloat` or `cdouble`) multiplies the signal's spectrum, a real
linear layer follows. Expected: nothing to report.

`--nan-input N`: a NaN in the batch of step N; expected nonfinite_input at step N.
`--inf-imag N`: the imaginary part of one filter weight set to Inf before step N, its
real part left finite; expected nonfinite_activation at step N in `mix`."""
import argparse

import torch
from torch import nn


class SpectralMix(nn.Module):
    def __init__(self, bins: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(bins, dtype=dtype))

    def forward(self, spectrum: torch.Tensor) -> torch.Tensor:
        return spectrum * self.weight


class Filter(nn.Module):
    def __init__(self, size: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.mix = SpectralMix(size // 2 + 1, dtype)
        self.out = nn.Linear(size, size, dtype=dtype.to_real())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.fft.irfft(self.mix(torch.fft.rfft(x)), n=x.shape[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="cfloat", choices=["cfloat", "cdouble"])
    parser.add_argument("--nan-input", type=int, default=-1)
    parser.add_argument("--inf-imag", type=int, default=-1)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    size = 16
    model = Filter(size, dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(1, 41):
        x = torch.randn(32, size, dtype=dtype.to_real())
        target = x.roll(1, -1)  # a delay: what the filter learns
        if step == args.nan_input:
            x[0, 0] = float("nan")
        if step == args.inf_imag:
            with torch.no_grad():
                model.mix.weight.imag[3] = float("inf")
        loss = nn.functional.mse_loss(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
