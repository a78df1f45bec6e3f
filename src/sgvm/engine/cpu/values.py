"""Register values: lane arrays, uniform scalars and affine lane sequences.

A register holds (docs/internals.md, "Values inside the CPU engine"):

* a NumPy scalar (uniform scalar) or a ``(n,)`` array (uniform vector);
* an ``(L,)`` / ``(L, n)`` array, one row per lane of the batch;
* an :class:`Affine` integer ``base + stride * lane`` that has not been
  materialised (work-item ids and addresses derived from them), so that
  loads and stores through it become slices instead of gathers;
* a :class:`GroupUniform`: one value per run of ``k`` lanes (a sub-group or
  work-group): reductions, and addresses such as ``p + (gid & ~15)``;
* a tuple of member values for structs and arrays held in registers.

The static SPIR-V type tells scalars from vectors; ``ndim`` tells uniform
values from lane arrays. Affine and GroupUniform are the *lazy* kinds: only
builders registered as consuming them see them (``registry.builder``); the
others receive materialised arrays.
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
        if self.stride != 1:  # a negative stride as its wrapped unsigned value (NEP 50-proof)
            a *= self.dtype.type(self.stride % (1 << (self.dtype.itemsize * 8)))
        if self.base:
            a += self.dtype.type(self.base)
        return a

    def __repr__(self) -> str:
        return f"Affine({self.base} + {self.stride}*k, n={self.n}, {self.dtype})"


def affine(base: int, stride: int, n: int, dtype: np.dtype) -> Affine | np.ndarray:
    """An Affine if it satisfies the invariant, else the materialised array."""
    lim = 1 << (dtype.itemsize * 8 - 1)
    last = base + stride * (n - 1)
    if 0 <= base < lim and 0 <= last < lim:
        return Affine(base, stride, n, dtype)
    return (np.arange(n, dtype=np.int64).astype(dtype) * dtype.type(stride % (2 * lim))
            + dtype.type(base % (2 * lim)))


class GroupUniform:
    """A lane value constant within each run of ``k`` consecutive lanes: ``values[g]``
    (shape ``(G,)``, or ``(G, n)`` for vectors) in lanes ``g*k .. g*k + k-1``.

    With ``k`` the sub-group size it is a per-sub-group uniform value, with ``k``
    the padded work-group size a per-work-group one (both lie on whole runs of the
    batch's ``[work-group][sub-group][lane]`` layout).
    """

    __slots__ = ("values", "k")

    def __init__(self, values: np.ndarray, k: int):
        self.values, self.k = values, k

    def materialize(self) -> np.ndarray:
        return np.repeat(self.values, self.k, axis=0)

    def __repr__(self) -> str:
        return f"GroupUniform({self.values!r}, k={self.k})"


def group_binary(f, a, b, vector: bool = False) -> GroupUniform | None:
    """``f(a, b)`` where ``a`` or ``b`` is a GroupUniform and the other is uniform or a
    GroupUniform of the same ``k``, computed once per group; else None (against a lane
    array the GroupUniform has to be materialised anyway)."""
    ga, gb = type(a) is GroupUniform, type(b) is GroupUniform
    if ga and gb:
        return GroupUniform(f(a.values, b.values), a.k) if a.k == b.k else None
    other = b if ga else a
    if type(other) is Affine or np.ndim(other) > (1 if vector else 0):
        return None
    return GroupUniform(f(a.values, b) if ga else f(a, b.values), a.k if ga else b.k)


def arr(x):
    """``x`` with a lazy value (Affine, GroupUniform) materialised (everything else unchanged)."""
    return x.materialize() if type(x) is Affine or type(x) is GroupUniform else x


def is_lane_array(x, vector: bool) -> bool:
    """Whether ``x`` varies per lane (as opposed to a uniform value)."""
    if type(x) is Affine or type(x) is GroupUniform:
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
