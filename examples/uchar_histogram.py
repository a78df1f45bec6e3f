"""Histogram of bytes with ``_uc`` block reads and 8-bit sub-group reductions.

Each sub-group reads 4 bytes per lane with ``intel_sub_group_block_read_uc4``
(64 bytes per sub-group, so per-bin counts stay below 256): each lane counts its
4 bytes per bin (0…4), ``intel_sub_group_reduce_add`` on uchar sums them across
16 lanes (at most 64, no wrap), and lane 0 adds the sub-group's count to the
global histogram with an atomic.
"""

from __future__ import annotations

import numpy as np

import sgvm.cl as cl

SOURCE = r"""
__attribute__((intel_reqd_sub_group_size(16)))
kernel void histogram(global const uchar *data, global uint *bins)
{
    /* each sub-group owns 16 lanes × 4 bytes = 64 consecutive bytes */
    const size_t base = (get_global_id(0) / 16) * 64;
    const uchar4 v = intel_sub_group_block_read_uc4(data + base);
    for (int b = 0; b < 256; ++b) {
        uchar c = (uchar)((v.x == b) + (v.y == b) + (v.z == b) + (v.w == b));
        uchar total = intel_sub_group_reduce_add(c);
        if (get_sub_group_local_id() == 0 && total)
            atomic_add(&bins[b], total);
    }
}
"""


def main(n: int = 64 * 512) -> list[tuple[str, bool]]:
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, n, dtype=np.uint8)
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    d_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    bins = np.zeros(256, np.uint32)
    b_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=bins)
    prg = cl.Program(ctx, SOURCE).build()
    prg.histogram(queue, (n // 4,), (64,), d_g, b_g)
    cl.enqueue_copy(queue, bins, b_g)
    ok = bool(np.array_equal(bins, np.bincount(data, minlength=256)))
    return [(f"histogram of {n} bytes with _uc4 block reads and uchar reductions", ok)]
