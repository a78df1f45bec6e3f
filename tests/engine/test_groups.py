"""Sub-group and work-group collectives through sgvm.semantics, incl. partial sub-groups."""

import numpy as np
import pytest

from .harness import OPTS, build, run

SRC = r"""
kernel void sg(global const int* a, global const float* f, global int* out, global float* fo) {
  size_t i = get_global_id(0);
  int x = a[i];
  global int* o = out + i * 9;
  o[0] = sub_group_reduce_add(x);
  o[1] = sub_group_scan_inclusive_max(x);
  o[2] = sub_group_scan_exclusive_min(x);
  o[3] = sub_group_broadcast(x, 3);
  o[4] = intel_sub_group_shuffle(x, (uint)(get_sub_group_local_id() ^ 1));
  o[5] = intel_sub_group_shuffle_down(x, x + 100, 3u);
  o[6] = sub_group_all(x > -90) + 2 * sub_group_any(x > 95);
  o[7] = work_group_reduce_add(x);
  o[8] = get_sub_group_size() * 100 + get_sub_group_id();
  fo[i] = sub_group_reduce_max(f[i]);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


@pytest.mark.parametrize("local", [32, 24])
def test_sub_group_collectives(module, local):
    n, S = 48, 16
    rng = np.random.default_rng(9)
    a = rng.integers(-100, 100, n).astype(np.int32)
    f = rng.normal(size=n).astype(np.float32)
    (_, _, out, fo), _ = run(module, "sg", [a, f, np.zeros(n * 9, np.int32),
                                            np.zeros(n, np.float32)], n, local)
    out = out.reshape(n, 9)
    for g0 in range(0, n, local):
        end = min(g0 + local, n)  # the last work-group may be smaller (non-uniform)
        for s0 in range(g0, end, S):
            idx = np.arange(s0, min(s0 + S, end))
            x = a[idx]
            sz = len(idx)
            np.testing.assert_array_equal(out[idx, 0], x.sum())
            np.testing.assert_array_equal(out[idx, 1], np.maximum.accumulate(x))
            exc = np.concatenate(([np.iinfo(np.int32).max], np.minimum.accumulate(x)[:-1]))
            np.testing.assert_array_equal(out[idx, 2], exc)
            np.testing.assert_array_equal(out[idx, 3], x[3])
            for k in range(sz):
                if (k ^ 1) < sz:
                    assert out[idx[k], 4] == x[k ^ 1]
                if k + 3 < sz:
                    assert out[idx[k], 5] == x[k + 3]
                elif k + 3 >= S and sz == S:
                    assert out[idx[k], 5] == x[k + 3 - S] + 100
            np.testing.assert_array_equal(out[idx, 6], (x > -90).all() + 2 * (x > 95).any())
            np.testing.assert_array_equal(out[idx, 8], sz * 100 + (s0 - g0) // S)
            np.testing.assert_array_equal(fo[idx], f[idx].max())
        np.testing.assert_array_equal(out[g0:end, 7], a[g0:end].sum())
