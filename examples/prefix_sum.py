"""Prefix sum of a large array from sub-group scans and work-group scans.

Pass 1 scans each work-group: ``sub_group_scan_inclusive_add`` inside each
sub-group, then ``work_group_scan_exclusive_add`` over the sub-group totals.
Pass 2 scans the work-group totals in one work-group; pass 3 adds them back.
"""

from __future__ import annotations

import numpy as np

import sgvm.cl as cl

SOURCE = r"""
kernel void scan_groups(global const int *x, global int *y, global int *group_sums)
{
    local int sg_total[64];
    local int sg_offset[64];
    const int gid = get_global_id(0), lid = get_local_id(0);
    const int s = sub_group_scan_inclusive_add(x[gid]);
    if (get_sub_group_local_id() == get_sub_group_size() - 1)
        sg_total[get_sub_group_id()] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int t = lid < get_num_sub_groups() ? sg_total[lid] : 0;
    const int off = work_group_scan_exclusive_add(t);
    if (lid < get_num_sub_groups())
        sg_offset[lid] = off;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int r = s + sg_offset[get_sub_group_id()];
    y[gid] = r;
    if (lid == get_local_size(0) - 1)
        group_sums[get_group_id(0)] = r;
}

kernel void scan_sums(global int *group_sums)
{
    const int i = get_global_id(0);
    group_sums[i] = work_group_scan_exclusive_add(group_sums[i]);
}

kernel void add_offsets(global int *y, global const int *group_sums)
{
    y[get_global_id(0)] += group_sums[get_group_id(0)];
}
"""


def main(n: int = 256 * 256, local: int = 256) -> list[tuple[str, bool]]:
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, n).astype(np.int32)
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    x_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y_g = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    sums_g = cl.Buffer(ctx, mf.READ_WRITE, 4 * (n // local))
    prg = cl.Program(ctx, SOURCE).build(options="-cl-std=CL2.0")
    prg.scan_groups(queue, (n,), (local,), x_g, y_g, sums_g)
    prg.scan_sums(queue, (n // local,), (n // local,), sums_g)
    prg.add_offsets(queue, (n,), (local,), y_g, sums_g)
    y = np.empty_like(x)
    cl.enqueue_copy(queue, y, y_g)
    ok = bool(np.array_equal(y, np.cumsum(x, dtype=np.int64).astype(np.int32)))
    return [(f"inclusive prefix sum of {n} ints from sub-group and work-group scans", ok)]
