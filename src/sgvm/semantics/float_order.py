"""The order of floating-point reductions and scans: the one place every group
reduction and scan takes it from.

cl_khr_subgroup_extensions: "The order of floating-point operations is not
guaranteed for the sub-group scan and reduction built-in functions that operate
on floating-point types"; opencl_c_work_group_functions.txt: "The order of
floating-point operations is not guaranteed". sgvm offers three orders; each is a
legal association of the same operands (inactive lanes hold a neutral value that
leaves every step bit-exact, ``collectives._neutral``):

* ``lanes``: ``((a0 op a1) op a2) ...``, increasing lane order (the default);
* ``tree``: pairwise, ``(a0 op a1) op (a2 op a3)`` ...; scans by doubling strides
  (lane ``i`` combines lane ``i - k`` for ``k = 1, 2, 4 ...``);
* ``reversed``: ``((an-1 op an-2) op an-3) ...``; a scan's lane ``i`` folds
  lanes ``i, i-1 ... 0`` in that order.

All functions take (G, K[, N]) arrays and fold along axis 1.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Order = Literal["lanes", "tree", "reversed"]
ORDERS: tuple[str, ...] = ("lanes", "tree", "reversed")


def fold(ufunc: np.ufunc, x: np.ndarray, order: str = "lanes") -> np.ndarray:
    """Reduce ``x`` along axis 1 in ``order``: shape ``(G,) + x.shape[2:]``."""
    if order == "tree":
        while x.shape[1] > 1:
            n = x.shape[1]
            pairs = ufunc(x[:, 0:n - n % 2:2], x[:, 1:n:2])
            x = np.concatenate([pairs, x[:, n - 1:]], axis=1) if n % 2 else pairs
        return x[:, 0].copy()
    lanes = range(x.shape[1] - 2, -1, -1) if order == "reversed" else range(1, x.shape[1])
    acc = x[:, -1 if order == "reversed" else 0].copy()
    for lane in lanes:
        ufunc(acc, x[:, lane], out=acc)
    return acc


def inclusive(ufunc: np.ufunc, x: np.ndarray, order: str = "lanes") -> np.ndarray:
    """Inclusive scan of ``x`` along axis 1, each prefix associated in ``order``."""
    if order == "lanes":
        return ufunc.accumulate(x, axis=1, dtype=x.dtype)
    acc = x.copy()
    if order == "tree":
        k = 1
        while k < x.shape[1]:
            acc[:, k:] = ufunc(acc[:, :-k], acc[:, k:])
            k *= 2
        return acc
    for d in range(1, x.shape[1]):  # reversed: lane i folds x[i], x[i-1], ... x[0]
        acc[:, d:] = ufunc(acc[:, d:], x[:, :-d])
    return acc
