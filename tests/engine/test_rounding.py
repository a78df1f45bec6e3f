"""Rounding modes to half (vstore_half_r*, convert_half_rt*) and 64-bit mad_sat,
checked against references derived from the definitions (the float16 neighbours of
the exact value; Python integers clamped)."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void store_half(global const float *x, global half *out) {
  size_t i = get_global_id(0);
  vstore_half_rte(x[i], i * 4 + 0, out);
  vstore_half_rtz(x[i], i * 4 + 1, out);
  vstore_half_rtp(x[i], i * 4 + 2, out);
  vstore_half_rtn(x[i], i * 4 + 3, out);
}
kernel void store_half4(global const float4 *x, global half *out) {
  size_t i = get_global_id(0);
  vstore_half4_rtz(x[i], i * 2, out);
  vstorea_half4_rtp(x[i], i * 2 + 1, out);
}
kernel void conv_half(global const float *x, global const int *n, global half *out) {
  size_t i = get_global_id(0);
  out[i * 6 + 0] = convert_half_rtz(x[i]);
  out[i * 6 + 1] = convert_half_rtp(x[i]);
  out[i * 6 + 2] = convert_half_rtn(x[i]);
  out[i * 6 + 3] = convert_half_rtz(n[i]);
  out[i * 6 + 4] = convert_half_rtp(n[i]);
  out[i * 6 + 5] = convert_half_rtn(n[i]);
}
kernel void mad_sat64(global const long *a, global const long *b, global const long *c,
                      global long *s, global ulong *u, global int *s32, global uint *u32) {
  size_t i = get_global_id(0);
  s[i] = mad_sat(a[i], b[i], c[i]);
  u[i] = mad_sat((ulong)a[i], (ulong)b[i], (ulong)c[i]);
  s32[i] = mad_sat((int)a[i], (int)b[i], (int)c[i]);
  u32[i] = mad_sat((uint)a[i], (uint)b[i], (uint)c[i]);
}
"""

_BITS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
_FINITE = np.unique(_BITS.view(np.float16)[np.isfinite(_BITS.view(np.float16))].astype(np.float64))


def half_round(x: np.ndarray, mode: str) -> np.ndarray:
    """binary16 bits of each x rounded by ``mode``: the exact value's neighbours among the
    finite halves (or infinity past them), zeros keeping x's sign."""
    out = []
    for v in map(float, np.asarray(x, np.float64)):
        if np.isnan(v):
            out.append(0x7E00)
            continue
        if np.isinf(v) or (abs(v) <= 65504 and float(np.float16(v)) == v):
            out.append(int(np.float16(v).view(np.uint16)) | (0x8000 if np.signbit(v) else 0))
            continue
        k = np.searchsorted(_FINITE, v)
        lo = _FINITE[k - 1] if k > 0 else -np.inf
        hi = _FINITE[k] if k < len(_FINITE) else np.inf
        if mode == "rte":  # nearest, ties to the even bit pattern; past 65520 infinity
            r = np.copysign(np.inf, v) if abs(v) >= 65520 else float(np.float16(v))
        else:
            r = {"rtz": lo if v > 0 else hi, "rtp": hi, "rtn": lo}[mode]
        out.append((0x8000 if v < 0 else 0) if r == 0 else int(np.float16(r).view(np.uint16)))
    return np.array(out, np.uint16)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    nan = (want & 0x7C00) == 0x7C00
    nan &= (want & 0x3FF) != 0
    np.testing.assert_array_equal(got[~nan], want[~nan])
    assert np.isnan(got[nan].view(np.float16)).all()


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


VALUES = np.array([0.0, -0.0, 1.0, 1.0001, -1.0001, 65504.0, 65519.0, 65520.0, 70000.0, -70000.0,
                   1e-8, -1e-8, 6.1e-5, -3.3e-6, 2049.5, np.inf, -np.inf, np.nan, 0.1, -0.1,
                   1e30, -1e30, 5.96e-8, 3.0e-8, -2.98e-8, 1234.567, -0.33333334, 7.0],
                  np.float32)


def test_vstore_half_rounding_modes(module):
    n = len(VALUES)
    (_, out), _ = run(module, "store_half", [VALUES, np.zeros(4 * n, np.uint16)], n, 4)
    out = out.reshape(n, 4)
    for k, mode in enumerate(("rte", "rtz", "rtp", "rtn")):
        _same(out[:, k], half_round(VALUES, mode))


def test_vstore_half4_and_vstorea(module):
    x = VALUES[:24].reshape(6, 4)
    (_, out), _ = run(module, "store_half4", [x, np.zeros(6 * 8, np.uint16)], 6, 2)
    out = out.reshape(6, 2, 4)
    _same(out[:, 0].reshape(-1), half_round(x.reshape(-1), "rtz"))
    _same(out[:, 1].reshape(-1), half_round(x.reshape(-1), "rtp"))


def test_convert_half_rounding_modes(module):
    n = len(VALUES)
    ints = np.array([0, 1, -1, 2049, 2051, -2051, 65519, 65520, 70000, -70000, 2**31 - 1, -2**31,
                     4097, -4097, 12345, 99999] * 2, np.int32)[:n]
    (_, _, out), _ = run(module, "conv_half", [VALUES, ints, np.zeros(6 * n, np.uint16)], n, 4)
    out = out.reshape(n, 6)
    for k, mode in enumerate(("rtz", "rtp", "rtn")):
        _same(out[:, k], half_round(VALUES, mode))
        _same(out[:, 3 + k], half_round(ints.astype(np.float64), mode))


def test_mad_sat_64(module):
    big, small = 2**63 - 1, -2**63
    rows = [(3, 4, 5), (2**32, 2**32, 0), (2**31, -2**32, -1), (-3, 2**62, 2**62), (big, 1, 1),
            (small, 1, -1), (small, -1, 0), (2**40, 2**20, -5), (-7, -9, small), (1, 1, big),
            (0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF), (-0x80000000, 0x7FFFFFFF, -1),
            (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (-1, -1, -1), (2**33 + 7, -(2**30) - 3, 11),
            (123456789, 987654321, -(2**62))]
    a, b, c = (np.array(col, np.int64) for col in zip(*rows, strict=True))
    n = len(rows)
    outs = [np.zeros(n, t) for t in (np.int64, np.uint64, np.int32, np.uint32)]
    (_, _, _, s, u, s32, u32), _ = run(module, "mad_sat64", [a, b, c, *outs], n, 4)

    def sat(v: int, bits: int, signed: bool) -> int:
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return min(max(v, lo), hi)

    def wrap(v: int, bits: int, signed: bool) -> int:
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >> (bits - 1) else v

    for k, (x, y, z) in enumerate(rows):
        assert s[k] == sat(x * y + z, 64, True)
        ux, uy, uz = (wrap(v, 64, False) for v in (x, y, z))
        assert int(u[k]) == sat(ux * uy + uz, 64, False)
        sx, sy, sz = (wrap(v, 32, True) for v in (x, y, z))
        assert s32[k] == sat(sx * sy + sz, 32, True)
        vx, vy, vz = (wrap(v, 32, False) for v in (x, y, z))
        assert int(u32[k]) == sat(vx * vy + vz, 32, False)
