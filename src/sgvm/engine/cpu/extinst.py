"""The OpenCL.std extended instruction table of the CPU engine.

``OPENCL_STD[opname](*operands, rtype=dtype)`` returns the result array
(docs/internals.md "Extended instructions"; docs/extinst.md for each family's
method and accuracy). Three additions to that contract:

* ``STORES_THROUGH_POINTER`` — entries with a pointer operand (fract, frexp,
  lgamma_r, modf, remquo, sincos) receive it like any operand (and ignore it)
  and return ``(result, value_to_store)``; the map gives the pointer's operand
  index, so the engine stores ``value_to_store`` through it. Stored ints are
  int32 bits as uint32; stored floats have ``rtype``.
* ``TAKES_WIDTH`` — entries whose meaning differs for scalars and vectors
  (geometric functions, select) also accept ``n=`` the component count of
  their first operand (1 for a scalar), which a 1-D operand cannot show.
* Memory instructions (vload*, vstore*, prefetch, printf) are absent; the half
  conversions they need are ``float_to_half_bits`` / ``half_bits_to_float``.
"""

from __future__ import annotations

from collections.abc import Callable

from .extinst_common import COMMON, TAKES_WIDTH
from .extinst_half import ROUNDING_MODES, float_to_half_bits, half_bits_to_float
from .extinst_integer import INTEGER
from .extinst_math import MATH

OPENCL_STD: dict[str, Callable[..., object]] = {**MATH, **INTEGER, **COMMON}

STORES_THROUGH_POINTER: dict[str, int] = {
    "fract": 1, "frexp": 1, "lgamma_r": 1, "modf": 1, "remquo": 2, "sincos": 1,
}

#: OpenCL.std instructions the engine implements itself (they touch memory).
ENGINE_INSTRUCTIONS = frozenset({
    "vloadn", "vstoren", "vload_half", "vload_halfn", "vstore_half", "vstore_half_r",
    "vstore_halfn", "vstore_halfn_r", "vloada_halfn", "vstorea_halfn", "vstorea_halfn_r",
    "prefetch", "printf",
})

__all__ = [
    "ENGINE_INSTRUCTIONS", "OPENCL_STD", "ROUNDING_MODES", "STORES_THROUGH_POINTER",
    "TAKES_WIDTH", "float_to_half_bits", "half_bits_to_float",
]
