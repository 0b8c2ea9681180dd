"""
Linear algebra with torch.linalg's names and the library's contracts (concord/linalg.h): batched, every device, CPU fallback counted.
"""

import concord


def solve(A: concord.Tensor, B: concord.Tensor) -> concord.Tensor:
    """
    X with A X = B (B a vector or a matrix, batched). LinAlgError for a singular A.
    """

def solve_ex(A: concord.Tensor, B: concord.Tensor) -> tuple[concord.Tensor, concord.Tensor]:
    """(result, info): never raises for a singular matrix; info > 0 marks it."""

def inv(A: concord.Tensor) -> concord.Tensor: ...

def det(A: concord.Tensor) -> concord.Tensor: ...

def slogdet(A: concord.Tensor) -> tuple[concord.Tensor, concord.Tensor]: ...

def cholesky(A: concord.Tensor, upper: bool = False) -> concord.Tensor: ...

def lu_factor(A: concord.Tensor) -> tuple[concord.Tensor, concord.Tensor]: ...

def lu_solve(LU: concord.Tensor, pivots: concord.Tensor, B: concord.Tensor) -> concord.Tensor: ...

def solve_triangular(A: concord.Tensor, B: concord.Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> concord.Tensor: ...

def vector_norm(x: concord.Tensor, ord: float = 2.0, dim: object | None = None, keepdim: bool = False) -> concord.Tensor: ...

def matrix_norm(A: concord.Tensor, ord: object = 'fro', keepdim: bool = False) -> concord.Tensor: ...
