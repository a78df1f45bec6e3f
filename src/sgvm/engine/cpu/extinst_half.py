"""Half-precision conversions for the engine's vload_half / vstore_half(_r) family.

OpenCL.std vstore_half_r rounds with the FP rounding mode operand (RTE, RTZ,
RTP, RTN); vstore_half without a mode rounds to nearest even. Both accept
float32 or float64 data and round it *once*, directly to half.
"""

from __future__ import annotations

import numpy as np

#: SPIR-V FPRoundingMode enumerants (spirv.core.grammar.json) → short names.
ROUNDING_MODES = {0: "rte", 1: "rtz", 2: "rtp", 3: "rtn"}


def float_to_half_bits(x: np.ndarray, mode: str | int = "rte") -> np.ndarray:
    """float16/32/64 values → IEEE binary16 bits (uint16), rounded once with ``mode``.

    ``mode`` is "rte", "rtz", "rtp", "rtn" or the SPIR-V FPRoundingMode number.
    NumPy's float64→float16 cast rounds to nearest even directly (no double
    rounding); a directed mode then moves that result by at most one step
    toward the exact value's side, which is exact since float32 and float64
    values are exactly representable in float64. Overflow follows IEEE 754:
    RTZ keeps ±65504, RTP/RTN saturate on the side away from their direction.
    NaN stays NaN (quiet), infinities stay infinities.
    """
    mode = ROUNDING_MODES.get(mode, mode) if isinstance(mode, int) else mode
    if mode not in ("rte", "rtz", "rtp", "rtn"):
        raise ValueError(f"unknown rounding mode {mode!r}")
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        h = x64.astype(np.float16)
    bits = h.view(np.uint16).astype(np.int32)
    if mode == "rte":
        return bits.astype(np.uint16)
    back = h.astype(np.float64)
    exact_inf = np.isinf(x64)
    neg = (bits & 0x8000) != 0
    if mode == "rtz":
        move = (np.abs(back) > np.abs(x64)) & ~exact_inf
        bits = np.where(move, bits - 1, bits)  # magnitude one step down, sign kept
    else:
        up = mode == "rtp"
        move = ((back < x64) if up else (back > x64)) & ~exact_inf
        toward_pos = move if up else np.zeros_like(move)
        toward_neg = np.zeros_like(move) if up else move
        zero = (bits & 0x7FFF) == 0
        # Moving up: positive grows (+1), negative shrinks (-1), ±0 → +min subnormal.
        # Moving down: mirror image.
        bits = np.where(toward_pos & zero, 0x0001, bits)
        bits = np.where(toward_pos & ~zero & ~neg, bits + 1, bits)
        bits = np.where(toward_pos & ~zero & neg, bits - 1, bits)
        bits = np.where(toward_neg & zero, 0x8001, bits)
        bits = np.where(toward_neg & ~zero & neg, bits + 1, bits)
        bits = np.where(toward_neg & ~zero & ~neg, bits - 1, bits)
    return bits.astype(np.uint16)


def half_bits_to_float(bits: np.ndarray, dtype: np.dtype = np.float32) -> np.ndarray:
    """IEEE binary16 bits (any unsigned 16-bit array) → ``dtype`` values, exactly."""
    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(dtype)
