"""Pointers: generic address space, pointer differences and comparisons, local
memory through generic pointers, program-scope globals and constant tables."""

import numpy as np
import pytest

from .harness import OPTS, Local, build, run

SRC = r"""
constant float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};
global int counter = 5;

int sum3(int* p) { return p[0] + p[1] + p[2]; }

kernel void ptrs(global int* a, local int* scratch, global long* out) {
  int i = get_global_id(0), l = get_local_id(0);
  scratch[l] = a[i] * 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  int* g = (l & 1) ? (int*)&scratch[l] : (int*)&a[i];
  int* h = (l & 1) ? (int*)&scratch[0] : (int*)&a[i - l];
  out[i * 4 + 0] = (l + 3 < get_local_size(0)) ? sum3(g) : *g;
  out[i * 4 + 1] = g - h;
  out[i * 4 + 2] = (long)(weights[i & 3] * 2.0f) + (to_local(g) != 0) * 100;
  out[i * 4 + 3] = counter + (g == h);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_generic_pointers(module):
    n, ls = 64, 16
    a = np.arange(n, dtype=np.int32) * 3 + 1
    (a_out, out), _ = run(module, "ptrs", [a, Local(ls * 4), np.zeros(n * 4, np.int64)], n, ls)
    out = out.reshape(n, 4)
    i = np.arange(n)
    l = i % ls
    scratch = a * 2
    src = np.where(l & 1, scratch, a)
    s3 = np.array([src[k] + (scratch if l[k] & 1 else a)[k + 1] + (scratch if l[k] & 1 else a)[k + 2]
                   if l[k] + 3 < ls else src[k] for k in range(n)])
    np.testing.assert_array_equal(out[:, 0], s3)
    np.testing.assert_array_equal(out[:, 1], l)
    np.testing.assert_array_equal(out[:, 2], (np.array([0.5, 1.5, 2.5, 3.5])[i & 3] * 2).astype(int)
                                  + (l & 1) * 100)
    np.testing.assert_array_equal(out[:, 3], 5 + (l == 0))
