"""Layers with PyTorch's initialisation and names (concord/nn.h)."""

from collections.abc import Callable

import concord


class Linear:
    """y = x W^T + b; the same seed gives the same layer on every device."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, dtype: object | None = None, device: object | None = None, seed: int | None = None) -> None: ...

    def __call__(self, arg: concord.Tensor, /) -> concord.Tensor: ...

    def forward(self, arg: concord.Tensor, /) -> concord.Tensor: ...

    @property
    def weight(self) -> concord.Tensor: ...

    @property
    def bias(self) -> object: ...

    @property
    def in_features(self) -> int: ...

    @property
    def out_features(self) -> int: ...

class SpectralNorm:
    """weight / sigma, sigma estimated by power iteration (PyTorch's)."""

    def __init__(self, weight: concord.Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12, seed: int | None = None) -> None: ...

    def __call__(self) -> concord.Tensor: ...

    def train(self, mode: bool = True) -> None: ...

    def eval(self) -> None: ...

    @property
    def training(self) -> bool: ...

    @property
    def weight(self) -> concord.Tensor: ...

    @property
    def u(self) -> concord.Tensor: ...

    @property
    def v(self) -> concord.Tensor: ...

def scan(fn: Callable, init: concord.Tensor, xs: concord.Tensor) -> tuple[concord.Tensor, object]:
    """
    carry = init; for each x in xs (along dim 0): carry, y = fn(carry, x). Returns (carry, stacked ys).
    """
