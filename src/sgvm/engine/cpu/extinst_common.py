"""OpenCL.std common, geometric, relational and shuffle instructions
(OpenCL C 6.15.4, 6.15.5, 6.15.7 select/bitselect, 6.15.13 shuffle).

Geometric functions and ``select`` behave differently for scalar and vector
operands, which a 1-D operand cannot tell apart (``(L,)`` per-lane scalar or
``(n,)`` uniform vector): they take the keyword ``n``, the component count of
their first operand (1 for a scalar). Without it a 2-D operand means a vector,
a 0-d one a scalar; an all-1-D call is read as a uniform vector by the
geometric functions and as a per-lane scalar by ``select``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .extinst_base import done, lanewise, signed, unsigned, unsigned_dtype, work
from .extinst_math import MATH

COMMON: dict[str, Callable[..., object]] = {}

#: Entries that take the keyword ``n`` (component count of their first operand).
TAKES_WIDTH = frozenset({"length", "distance", "normalize", "fast_length", "fast_distance",
                         "fast_normalize", "select"})


def _entry(name: str, *, align: bool = True) -> Callable[[Callable[..., object]], Callable[..., object]]:
    def deco(fn: Callable[..., object]) -> Callable[..., object]:
        COMMON[name] = lanewise(fn, align=align)
        return COMMON[name]

    return deco


def _is_vector(arrs: tuple[np.ndarray, ...], n: int | None, scalar_1d: bool) -> bool:
    """Whether the operands are vectors, per the module's rule."""
    if n is not None:
        return n > 1
    if any(a.ndim == 2 for a in arrs):
        return True
    if all(a.ndim == 0 for a in arrs):
        return False
    return not scalar_1d


# -- common ---------------------------------------------------------------------------


@_entry("fclamp")
def fclamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """fmin(fmax(x, minval), maxval) (exact)."""
    return np.fmin(np.fmax(x, lo), hi).astype(rtype)


# fmax_common / fmin_common: "y if x < y else x" with NaN / ∞ operands undefined;
# these follow fmax / fmin.
COMMON["fmax_common"] = MATH["fmax"]
COMMON["fmin_common"] = MATH["fmin"]


@_entry("degrees")
def degrees(r: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """r·180/π (≤ 2 ulp; here ≤ 0.5 ulp + the constant's error)."""
    w = work(r, rtype, extended=True)
    return done(w * (w.dtype.type(180) / np.arccos(w.dtype.type(-1))), rtype)


@_entry("radians")
def radians(d: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """d·π/180 (≤ 2 ulp)."""
    w = work(d, rtype, extended=True)
    return done(w * (np.arccos(w.dtype.type(-1)) / w.dtype.type(180)), rtype)


@_entry("mix")
def mix(x: np.ndarray, y: np.ndarray, a: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x + (y − x)·a, evaluated in the working precision and rounded once."""
    wx = work(x, rtype)
    return done(wx + (work(y, rtype) - wx) * work(a, rtype), rtype)


@_entry("step")
def step(edge: np.ndarray, x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """0.0 if x < edge else 1.0."""
    return np.where(x < edge, 0, 1).astype(rtype)


@_entry("smoothstep")
def smoothstep(e0: np.ndarray, e1: np.ndarray, x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """t·t·(3 − 2t), t = clamp((x − edge0)/(edge1 − edge0), 0, 1)."""
    w0 = work(e0, rtype)
    t = np.clip((work(x, rtype) - w0) / (work(e1, rtype) - w0), 0, 1)
    return done(t * t * (3 - 2 * t), rtype)


@_entry("sign")
def sign(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """1.0 for x > 0, −1.0 for x < 0, x itself for ±0, 0.0 for NaN."""
    r = np.where(x > 0, 1, np.where(x < 0, -1, np.where(np.isnan(x), 0, x)))
    return r.astype(rtype)


# -- geometric ------------------------------------------------------------------------------


@_entry("cross")
def cross(p0: np.ndarray, p1: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """The 3-D cross product; a 4th component is 0.0. Each component is a·b − c·d
    evaluated in the working precision and rounded once."""
    a, b = work(p0, rtype), work(p1, rtype)
    a, b = np.broadcast_arrays(a, b)
    r = np.zeros(a.shape, dtype=a.dtype)
    r[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    r[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    r[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return done(r, rtype)


def _length_w(w: np.ndarray, vector: bool) -> np.ndarray:
    """√(Σ pᵢ²) in the working precision (no overflow: float64 / long double range)."""
    return np.sqrt(np.sum(w * w, axis=-1)) if vector else np.abs(w)


@_entry("length")
def length(p: np.ndarray, *, rtype: np.dtype, n: int | None = None) -> np.ndarray:
    """√(Σ pᵢ²), scalar result; no intermediate overflow or underflow."""
    return done(_length_w(work(p, rtype, extended=True), _is_vector((p,), n, False)), rtype)


@_entry("distance")
def distance(p0: np.ndarray, p1: np.ndarray, *, rtype: np.dtype,
             n: int | None = None) -> np.ndarray:
    """length(p0 − p1), the difference taken exactly in the working precision."""
    d = work(p0, rtype, extended=True) - work(p1, rtype, extended=True)
    return done(_length_w(d, _is_vector((p0, p1), n, False)), rtype)


@_entry("normalize")
def normalize(p: np.ndarray, *, rtype: np.dtype, n: int | None = None) -> np.ndarray:
    """p / length(p). All ±0 → p; any NaN → NaNs; any ±∞ → the ∞ components as
    ±1.0 and the others as ±0.0, then normalised (OpenCL C 6.15.5)."""
    w = work(p, rtype, extended=True)
    vector = _is_vector((p,), n, False)
    if not vector:
        w = w[..., None]
    inf = np.isinf(w)
    any_inf = inf.any(axis=-1, keepdims=True)
    w = np.where(any_inf, np.where(inf, np.copysign(1, w), np.copysign(0, w)), w)
    ln = np.sqrt(np.sum(w * w, axis=-1, keepdims=True))
    r = np.where(ln == 0, w, w / ln)
    r = np.where(np.isnan(w).any(axis=-1, keepdims=True), np.nan, r)
    r = done(r, rtype)
    return r if vector else r[..., 0]


COMMON["fast_length"] = COMMON["length"]
COMMON["fast_distance"] = COMMON["distance"]
COMMON["fast_normalize"] = COMMON["normalize"]


# -- select, bitselect -----------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(unsigned_dtype(a.dtype)) if a.dtype.kind == "f" else unsigned(a)


@_entry("bitselect")
def bitselect(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Each result bit is b's bit where c's bit is 1, else a's (floats by their bits)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, rtype), np.asarray(b, rtype), np.asarray(c, rtype))
    ba, bb, bc = _bits(a), _bits(b), _bits(c)
    return ((ba & ~bc) | (bb & bc)).view(rtype)


@_entry("select")
def select(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype,
           n: int | None = None) -> np.ndarray:
    """Scalar: c ? b : a. Vector: per component, b where c's MSB is set, else a."""
    take_b = (signed(np.asarray(c)) < 0) if _is_vector((a, b, c), n, True) else (c != 0)
    return np.where(take_b, b, a).astype(rtype)


# -- shuffles --------------------------------------------------------------------------------


def _gather(src: np.ndarray, mask: np.ndarray, rtype: np.dtype) -> np.ndarray:
    """result[..., i] = src[..., mask[..., i] mod n]; per-lane if either operand is."""
    count = src.shape[-1]
    idx = (np.asarray(mask).astype(np.uint64) % np.uint64(count)).astype(np.intp)
    if src.ndim == 1 and idx.ndim == 1:
        return src[idx].astype(rtype)
    lanes = src.shape[0] if src.ndim == 2 else idx.shape[0]
    src2 = np.broadcast_to(src, (lanes, count))
    idx2 = np.broadcast_to(idx, (lanes, idx.shape[-1]))
    return np.take_along_axis(src2, idx2, axis=1).astype(rtype)


@_entry("shuffle", align=False)
def shuffle(x: np.ndarray, mask: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x's components picked by mask, each mask value taken modulo x's count."""
    return _gather(x, mask, rtype)


@_entry("shuffle2", align=False)
def shuffle2(x: np.ndarray, y: np.ndarray, mask: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Components of the concatenation (x, y), mask taken modulo 2·n."""
    if x.ndim == 2 or y.ndim == 2:
        lanes = x.shape[0] if x.ndim == 2 else y.shape[0]
        x = np.broadcast_to(x, (lanes, x.shape[-1]))
        y = np.broadcast_to(y, (lanes, y.shape[-1]))
    return _gather(np.concatenate([x, y], axis=-1), mask, rtype)

