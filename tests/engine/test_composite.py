"""Vectors: construction, swizzles, shuffles, dynamic indexing, vector ↔ scalar bitcasts."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
kernel void vec(global const float4* a, global float4* out, global uint2* bits, global int* dyn,
                global float* v3) {
  size_t i = get_global_id(0);
  float4 v = a[i];
  float4 w = v.wzyx * 2.0f + (float4)(1.0f, 2.0f, 3.0f, (float)i);
  w.xy = v.zz;
  out[i] = w;
  double d = (double)v.x;
  bits[i] = as_uint2(d);
  int4 k = (int4)(10, 20, 30, 40) + (int)i;
  dyn[i] = k[i & 3];
  float3 t = vload3(i, (global const float*)a);
  vstore3(t * 2.0f, i, v3);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_vectors(module):
    n = 32
    a = np.arange(n * 4, dtype=np.float32).reshape(n, 4) * 0.5
    (_, out, bits, dyn, v3), _ = run(module, "vec", [a, np.zeros((n, 4), np.float32),
                                                     np.zeros((n, 2), np.uint32),
                                                     np.zeros(n, np.int32),
                                                     np.zeros(n * 3, np.float32)], n, 8)
    i = np.arange(n)
    w = a[:, ::-1] * 2 + np.stack([np.full(n, 1.0), np.full(n, 2.0), np.full(n, 3.0), i], 1)
    w[:, 0] = a[:, 2]
    w[:, 1] = a[:, 2]
    np.testing.assert_array_equal(out, w.astype(np.float32))
    np.testing.assert_array_equal(bits, a[:, 0].astype(np.float64).view(np.uint32).reshape(n, 2))
    np.testing.assert_array_equal(dyn, np.array([10, 20, 30, 40])[i & 3] + i)
    np.testing.assert_array_equal(v3, a.reshape(-1)[: n * 3] * 2)
