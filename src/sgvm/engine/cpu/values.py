"""Register values: lane arrays, uniform scalars and affine lane sequences.

A register holds (docs/internals.md, "Values inside the CPU engine"):

* a NumPy scalar (uniform scalar) or a ``(n,)`` array (uniform vector);
* an ``(L,)`` / ``(L, n)`` array, one row per lane of the batch;
* an :class:`Affine` integer ``base + stride * lane`` that has not been
  materialised (work-item ids and addresses derived from them), so that
  loads and stores through it become slices instead of gathers;
* a tuple of member values for structs and arrays held in registers.

The static SPIR-V type tells scalars from vectors; ``ndim`` tells uniform
values from lane arrays.
"""

from __future__ import annotations

import numpy as np


class Affine:
    """The integer lane sequence ``base + stride * k`` for ``k < n`` in ``dtype``.

    Invariant: every element lies in ``[0, 2**(bits-1))``, so the signed and
    unsigned readings agree and no arithmetic on it wraps.
    """

    __slots__ = ("base", "stride", "n", "dtype")

    def __init__(self, base: int, stride: int, n: int, dtype: np.dtype):
        self.base, self.stride, self.n, self.dtype = base, stride, n, dtype

    @property
    def last(self) -> int:
        return self.base + self.stride * (self.n - 1)

    def materialize(self) -> np.ndarray:
        a = np.arange(self.n, dtype=self.dtype)
        if self.stride != 1:
            a *= self.dtype.type(self.stride)
        if self.base:
            a += self.dtype.type(self.base)
        return a

    def __repr__(self) -> str:
        return f"Affine({self.base} + {self.stride}*k, n={self.n}, {self.dtype})"


def affine(base: int, stride: int, n: int, dtype: np.dtype) -> Affine | np.ndarray:
    """An Affine if it satisfies the invariant, else the materialised array."""
    lim = 1 << (dtype.itemsize * 8 - 1)
    a = Affine(base, stride, n, dtype)
    lo, hi = min(base, a.last), max(base, a.last)
    if 0 <= lo and hi < lim:
        return a
    return (np.arange(n, dtype=np.int64).astype(dtype) * dtype.type(stride % (2 * lim))
            + dtype.type(base % (2 * lim)))


def arr(x):
    """``x`` with an Affine materialised (everything else unchanged)."""
    return x.materialize() if type(x) is Affine else x


def is_lane_array(x, vector: bool) -> bool:
    """Whether ``x`` varies per lane (as opposed to a uniform value)."""
    if type(x) is Affine:
        return True
    if type(x) is tuple:
        return any(is_lane_array(m, np.ndim(m) > 1) for m in x)
    return np.ndim(x) > (1 if vector else 0)


def merge(new, old, mask: np.ndarray, vector: bool):
    """Lanes in ``mask`` take ``new``, the others keep ``old`` (``None``: undefined)."""
    if old is None:
        return new
    if type(new) is tuple:
        return tuple(merge(n, o, mask, np.ndim(n) > 1 or np.ndim(o) > 1) for n, o in zip(new, old, strict=False))
    new, old = arr(new), arr(old)
    return np.where(mask[:, None] if vector else mask, new, old)


def lanes(x, n: int, vector: bool = False) -> np.ndarray:
    """``x`` as a full lane array of ``n`` lanes."""
    x = arr(x)
    if np.ndim(x) > (1 if vector else 0):
        return x
    x = np.asarray(x)
    return np.broadcast_to(x, (n,) + x.shape)
