"""Cost of the message profile: each kernel unprofiled and on a profiling queue.

    .venv/bin/python benchmarks/profile_overhead.py [--items N] [--repeat R]

Prints the best wall-clock time of ``R`` launches per queue and the ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sgvm.cl as cl

KERNELS = {
    "vector add": ("""
__kernel void run(__global const float* a, __global const uint* idx, __global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + (float)idx[i];
}""", "c = a + b: affine addresses"),
    "masked gather": ("""
__kernel void run(__global const float* a, __global const uint* idx, __global float* c) {
    size_t i = get_global_id(0);
    if (i % 3 != 0)
        c[i] = a[idx[i]] * 2.0f;
}""", "lane-array addresses under a 2/3 mask"),
    "block read": ("""
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void run(__global const float* a, __global const uint* idx, __global float* c) {
    size_t base = get_group_id(0) * get_local_size(0) + get_sub_group_id() * 16;
    float v = as_float(intel_sub_group_block_read((const __global uint*)a + base));
    intel_sub_group_block_write((__global uint*)c + base, as_uint(v));
}""", "sub-group block read and write"),
}


def best(queue: cl.CommandQueue, kernel: cl.Kernel, n: int, bufs: list, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        kernel(queue, (n,), (256,), *bufs)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=1 << 22)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.items
    ctx = cl.create_some_context(interactive=False)
    plain = cl.CommandQueue(ctx)
    prof = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    mf = cl.mem_flags
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    idx = np.random.default_rng(1).permutation(n).astype(np.uint32)
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a),
            cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=idx),
            cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)]
    print(f"{n} work-items, best of {args.repeat}")
    print(f"{'kernel':<14} {'unprofiled':>11} {'profiled':>9} {'ratio':>6}  what")
    for name, (src, what) in KERNELS.items():
        knl = cl.Program(ctx, src).build("-g").run
        knl(plain, (n,), (256,), *bufs)  # warm up (decode, caches)
        t0 = best(plain, knl, n, bufs, args.repeat)
        t1 = best(prof, knl, n, bufs, args.repeat)
        print(f"{name:<14} {t0:10.3f}s {t1:8.3f}s {t1 / t0:5.1f}×  {what}")


if __name__ == "__main__":
    main()
