"""numba's compiler, typed for mypy: every kernel of the package is compiled through these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

__all__ = ["jit", "jit_fast", "jit_inline"]

_F = TypeVar("_F", bound=Callable[..., Any])


def jit(fn: _F) -> _F:
    """``numba.njit(cache=True)``: compiled on first call, the machine code kept on disk."""
    return cast(_F, numba.njit(cache=True)(fn))


def jit_inline(fn: _F) -> _F:
    """``jit`` for a tiny helper of a hot loop, inlined where it is called."""
    return cast(_F, numba.njit(cache=True, inline="always")(fn))


def jit_fast(fn: _F) -> _F:
    """``jit`` with fast floating point (sums may be reordered, so that they run in SIMD
    lanes): for the network's layers, whose float32 sums need no particular order. The same
    machine code gives the same result run after run."""
    return cast(_F, numba.njit(cache=True, fastmath=True)(fn))
