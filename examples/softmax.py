"""Row-wise softmax: one sub-group per row, max and sum by sub-group reductions."""

from __future__ import annotations

import numpy as np

import sgvm

SOURCE = r"""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void softmax(global const float *x, global float *y, int n)
{
    const int row = get_global_id(1);
    const int lane = get_sub_group_local_id();
    global const float *in = x + row * n;
    global float *out = y + row * n;
    float m = -INFINITY;
    for (int i = lane; i < n; i += 16)
        m = fmax(m, in[i]);
    m = sub_group_reduce_max(m);
    float s = 0.0f;
    for (int i = lane; i < n; i += 16)
        s += exp(in[i] - m);
    s = sub_group_reduce_add(s);
    for (int i = lane; i < n; i += 16)
        out[i] = exp(in[i] - m) / s;
}
"""


def main(rows: int = 32, n: int = 200) -> list[tuple[str, bool]]:
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((rows, n)) * 4).astype(np.float32)
    y = np.zeros_like(x)
    sgvm.run(SOURCE, "softmax", (16, rows), (16, 1), x, y, np.int32(n))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    ok = bool(np.allclose(y, expected, rtol=1e-5, atol=1e-7))
    return [(f"softmax over {rows} rows of {n} with sub_group_reduce_max/add", ok)]
