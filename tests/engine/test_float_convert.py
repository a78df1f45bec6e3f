"""Float arithmetic and comparisons (ordered/unordered), conversions with rounding
and saturation, bit reinterpretation."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
kernel void floats(global const float* a, global const float* b, global float* out,
                   global int* cmp) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i];
  out[i * 5 + 0] = x + y; out[i * 5 + 1] = x - y; out[i * 5 + 2] = x * y;
  out[i * 5 + 3] = x / y; out[i * 5 + 4] = -x;
  cmp[i] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | isnan(x) << 4
         | isgreaterequal(x, y) << 5 | islessgreater(x, y) << 6 | isunordered(x, y) << 7
         | !(x >= y) << 8;
}
kernel void convs(global const float* a, global int* i32, global uchar* u8, global short* s16,
                  global float* f, global uint* bits) {
  size_t i = get_global_id(0);
  float x = a[i];
  i32[i * 4 + 0] = convert_int_sat(x);
  i32[i * 4 + 1] = convert_int_rte(x);
  i32[i * 4 + 2] = convert_int_rtp(x);
  i32[i * 4 + 3] = convert_int_rtn(x);
  u8[i] = convert_uchar_sat(x);
  s16[i] = convert_short_sat((int)i * 1000 + 25000);  // clang emits OpSatConvertUToS: keep it >= 0
  f[i * 2] = convert_float_rtz((int)(16777217 + (int)i * 3));
  f[i * 2 + 1] = (float)(double)x;
  bits[i] = as_uint(x);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_float_ops(module):
    rng = np.random.default_rng(2)
    a = rng.normal(size=64).astype(np.float32)
    b = rng.normal(size=64).astype(np.float32)
    a[:4] = [np.nan, 1.0, 2.0, np.inf]
    b[:4] = [1.0, np.nan, 2.0, np.inf]
    (_, _, out, cmp), _ = run(module, "floats", [a, b, np.zeros(64 * 5, np.float32),
                                                  np.zeros(64, np.int32)], 64, 16)
    with np.errstate(all="ignore"):
        exp = np.stack([a + b, a - b, a * b, a / b, -a], axis=1).reshape(-1)
        c = ((a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | np.isnan(a) << 4
             | (a >= b) << 5 | ((a < b) | (a > b)) << 6 | (np.isnan(a) | np.isnan(b)) << 7
             | ~(a >= b) << 8)
    np.testing.assert_array_equal(out, exp)
    np.testing.assert_array_equal(cmp, c.astype(np.int32))


def test_conversions(module):
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3e9, -3e9, np.nan, 255.7, -3.2, 1e10, 7.49] + [0.0] * 4,
                 dtype=np.float32)
    n = len(a)
    (_, i32, u8, s16, f, bits), _ = run(
        module, "convs", [a, np.zeros(4 * n, np.int32), np.zeros(n, np.uint8),
                          np.zeros(n, np.int16), np.zeros(2 * n, np.float32),
                          np.zeros(n, np.uint32)], n, n)
    i32 = i32.reshape(n, 4)
    x = np.nan_to_num(a.astype(np.float64), nan=0.0)
    lim = lambda v: np.clip(v, -2**31, 2**31 - 1).astype(np.int32)  # noqa: E731
    np.testing.assert_array_equal(i32[:, 0], lim(np.trunc(x)))
    np.testing.assert_array_equal(i32[:, 1], lim(np.rint(x)))
    np.testing.assert_array_equal(i32[:, 2], lim(np.ceil(x)))
    np.testing.assert_array_equal(i32[:, 3], lim(np.floor(x)))
    np.testing.assert_array_equal(u8, np.clip(np.trunc(x), 0, 255).astype(np.uint8))
    k = np.arange(n)
    np.testing.assert_array_equal(s16, np.clip(k * 1000 + 25000, -32768, 32767))
    v = 16777217 + k * 3
    rtz = v.astype(np.float32)
    rtz = np.where(rtz.astype(np.int64) > v, np.nextafter(rtz, np.float32(0)), rtz)
    np.testing.assert_array_equal(f.reshape(n, 2)[:, 0], rtz)
    np.testing.assert_array_equal(f.reshape(n, 2)[:, 1], a)
    np.testing.assert_array_equal(bits, a.view(np.uint32))
