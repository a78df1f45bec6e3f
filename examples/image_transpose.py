"""Transpose a 2-D image of uints with image block reads/writes and shuffles.

A sub-group of 8 reads an 8×8 block with ``intel_sub_group_block_read8``
(lane l gets column l, one element per row), transposes it in registers with
``intel_sub_group_shuffle`` and writes it with ``intel_sub_group_block_write8``
at the mirrored coordinate. Image block IO takes byte x-coordinates.
"""

from __future__ import annotations

import numpy as np

import sgvm.cl as cl

SOURCE = r"""
__attribute__((intel_reqd_sub_group_size(8)))
kernel void transpose(read_only image2d_t src, write_only image2d_t dst)
{
    const int bx = get_group_id(0) * 8;   /* block's first column (elements) */
    const int by = get_group_id(1) * 8;   /* block's first row               */
    const uint lane = get_sub_group_local_id();
    uint8 v = intel_sub_group_block_read8(src, (int2)(bx * 4, by));
    uint col[8] = {v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6, v.s7};
    uint out[8];
    for (int i = 0; i < 8; ++i) {          /* out[i] of lane l = element l of lane i */
        uint t = 0;
        for (int k = 0; k < 8; ++k) {
            uint s = intel_sub_group_shuffle(col[k], i);
            t = (k == lane) ? s : t;
        }
        out[i] = t;
    }
    intel_sub_group_block_write8(dst, (int2)(by * 4, bx),
        (uint8)(out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]));
}
"""


def main(width: int = 64, height: int = 32) -> list[tuple[str, bool]]:
    rng = np.random.default_rng(4)
    a = rng.integers(0, 2**32, (height, width), dtype=np.uint32)
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT32)
    src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(width, height), hostbuf=a)
    dst = cl.Image(ctx, mf.WRITE_ONLY, fmt, shape=(height, width))
    prg = cl.Program(ctx, SOURCE).build()
    prg.transpose(queue, (width, height // 8), (8, 1), src, dst)
    out = np.empty((width, height), np.uint32)
    cl.enqueue_copy(queue, out, dst, origin=(0, 0), region=(height, width))
    ok = bool(np.array_equal(out, a.T))
    return [(f"{width}x{height} image transpose with image block read/write + shuffles", ok)]
