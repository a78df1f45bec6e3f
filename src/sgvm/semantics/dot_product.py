"""cl_khr_integer_dot_product / SPV_KHR_integer_dot_product: OpSDot, OpUDot, OpSUDot and
their accumulating saturating forms.

cl_khr_integer_dot_product.asciidoc lists ``dot`` and ``dot_acc_sat`` on
``char4``/``uchar4`` and the ``dot_4x8packed_{uu,ss,us,su}_{uint,int}`` forms on
``uint``s holding four 8-bit components (component 0 in the low byte: SPIR-V's
PackedVectorFormat4x8Bit, "interpreted as a vector of 4 8-bit components ...
the least-significant byte is the first component"). The SPIR-V instructions take any
integer vectors; these functions take (..., N) arrays of the components.
"""

from __future__ import annotations

import numpy as np


def unpack_4x8(packed: np.ndarray, signed: bool) -> np.ndarray:
    """(..., 4) int8 or uint8 components of 32-bit packed values, component 0 in the low byte."""
    p = np.ascontiguousarray(np.asarray(packed).astype(np.uint32))
    return p[..., None].view(np.int8 if signed else np.uint8).reshape(p.shape + (4,))


def _components(x: np.ndarray, signed: bool) -> np.ndarray:
    """Integer components as exact values: int64 up to 16 bits (a sum of products fits),
    Python ints (object arrays) beyond."""
    x = np.asarray(x)
    x = x.view(np.dtype(f"{'i' if signed else 'u'}{x.dtype.itemsize}"))
    return x.astype(object if x.dtype.itemsize > 2 else np.int64)


def dot(a: np.ndarray, b: np.ndarray, a_signed: bool, b_signed: bool, dtype: np.dtype) -> np.ndarray:
    """The dot product of the last axis in the result type ``dtype`` (the engine's storage).

    cl_khr_integer_dot_product: "The components of `a` and `b` are sign- or
    zero-extended to the width of the destination type and the vectors with extended
    components are multiplied component-wise. All the components of the resulting
    vectors are added together to form the final result." Computed exactly, then
    taken modulo 2**width (the arithmetic of the destination type). OpSUDot reads
    Vector 1 signed and Vector 2 unsigned.
    """
    exact = (_components(a, a_signed) * _components(b, b_signed)).sum(axis=-1)
    return _wrap(exact, np.dtype(dtype))


def _wrap(value: np.ndarray, dt: np.dtype) -> np.ndarray:
    """An exact integer taken modulo 2**width into the (unsigned) storage dtype ``dt``."""
    value = np.asarray(value)
    if value.dtype == object:
        value = (value % (1 << 64)).astype(np.uint64)
    return value.astype(np.int64).view(np.uint64).astype(dt) if value.dtype.kind == "i" else \
        value.astype(dt)


def dot_acc_sat(a: np.ndarray, b: np.ndarray, acc: np.ndarray, a_signed: bool, b_signed: bool,
                result_signed: bool, dtype: np.dtype) -> np.ndarray:
    """``add_sat(dot(a, b), acc)`` in the result type, in ``dtype`` storage.

    cl_khr_integer_dot_product: "`dot_acc_sat` returns the saturating addition of the
    dot product of the two input vectors `a` and `b` and the accumulator `acc`:
    product = dot(a,b); result = add_sat(product, acc);". SPIR-V OpSDotAccSat /
    OpUDotAccSat / OpSUDotAccSat: "[...] saturating addition of the result with
    Accumulator" (signed for S and SU, unsigned for U).
    """
    dt = np.dtype(dtype)
    bits = dt.itemsize * 8
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if result_signed else (0, (1 << bits) - 1)
    product = _components(dot(a, b, a_signed, b_signed, dt), result_signed).astype(object)
    total = product + _components(acc, result_signed).astype(object)
    return _wrap(np.minimum(np.maximum(total, lo), hi), dt)
