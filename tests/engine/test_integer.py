"""Integer instructions: wrap-around, signed division/remainder, shifts, comparisons."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
kernel void ints(global const int* a, global const int* b, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  global int* o = out + i * 12;
  o[0] = x + y;  o[1] = x - y;  o[2] = x * y;
  o[3] = y != 0 ? x / y : 0;  o[4] = y != 0 ? x % y : 0;
  o[5] = x << (y & 31);  o[6] = x >> (y & 31);  o[7] = (int)((uint)x >> (y & 31));
  o[8] = (x < y) + 2 * (x <= y) + 4 * ((uint)x < (uint)y) + 8 * (x == y);
  o[9] = x & y ^ ~x | y;
  o[10] = (int)(((long)x * (long)y) >> 7);
  o[11] = (int)((uchar)x + (uchar)y) + (short)(x * 3);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_integer_ops(module):
    rng = np.random.default_rng(1)
    a = rng.integers(-2**31, 2**31, 256).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 256).astype(np.int32)
    a[:4] = [np.iinfo(np.int32).min, 7, -7, 0]
    b[:4] = [-1, -2, 2, 5]
    b[10:20] = rng.integers(-40, 40, 10)
    (_, _, out), _ = run(module, "ints", [a, b, np.zeros(256 * 12, np.int32)], 256, 64)
    out = out.reshape(256, 12)
    x, y = a.astype(np.int64), b.astype(np.int64)
    w = lambda v: (np.asarray(v) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)  # noqa: E731
    safe = np.where(y == 0, 1, y)
    q = np.where(y != 0, np.trunc(x / safe).astype(np.int64), 0)
    q = np.where((x == -2**31) & (y == -1), -2**31, q)
    exp = np.stack([
        w(x + y), w(x - y), w(x * y), w(q), w(np.where(y != 0, x - q * safe, 0) * (y != -1)),
        w(x << (y & 31)), w(x >> (y & 31)), w((x & 0xFFFFFFFF) >> (y & 31)),
        w((x < y) + 2 * (x <= y) + 4 * ((x & 0xFFFFFFFF) < (y & 0xFFFFFFFF)) + 8 * (x == y)),
        w((x & y) ^ ~x | y), w((x * y) >> 7),
        w(((x & 255) + (y & 255)) + ((x * 3) & 0xFFFF).astype(np.uint16).view(np.int16)),
    ], axis=1)
    np.testing.assert_array_equal(out, exp)
