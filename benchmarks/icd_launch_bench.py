"""Per-launch cost through the OpenCL ICD: a 1024-item kernel launched N times (default 1000)
through the real PyOpenCL on the sgvm platform, beside the same launches through ``sgvm.cl``.

    .venv/bin/python benchmarks/icd_launch_bench.py [--launches N] [--repeat R]

Both sides build the kernel once, set its arguments once per launch the way each API does
(PyOpenCL: ``kernel(queue, gsize, lsize, buf, scalar)``, sgvm.cl the same call) and end
with ``queue.finish()``; the time is the best of R runs divided by N. The difference is what
a launch costs in the ICD layer: PyOpenCL's C++ wrapper, the ICD loader, cffi's call into
Python, handle lookups and argument decoding.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

SOURCE = """
__kernel void axpy(__global float *y, float a) {
    int i = get_global_id(0);
    y[i] = a * y[i] + 1.0f;
}
"""
N_ITEMS = 1024


def _time(launch, finish, launches: int, repeat: int) -> float:
    launch()  # warm: first-launch work (kernel preparation) is not per-launch cost
    finish()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(launches):
            launch()
        finish()
        best = min(best, time.perf_counter() - t0)
    return best / launches


def via_sgvm_cl(launches: int, repeat: int) -> float:
    import sgvm.cl as cl

    ctx = cl.create_some_context()
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N_ITEMS * 4)
    kernel = cl.Program(ctx, SOURCE).build().axpy
    return _time(lambda: kernel(queue, (N_ITEMS,), (64,), buf, np.float32(0.5)), queue.finish, launches, repeat)


def via_pyopencl(launches: int, repeat: int) -> float:
    from sgvm.icd import build

    os.environ["OCL_ICD_VENDORS"] = str(build().vendors_dir)  # before PyOpenCL's loader looks
    os.environ.pop("OCL_ICD_FILENAMES", None)
    import pyopencl as cl

    platform, = cl.get_platforms()
    ctx = cl.Context(platform.get_devices()[:1])
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N_ITEMS * 4)
    kernel = cl.Kernel(cl.Program(ctx, SOURCE).build(), "axpy")
    return _time(lambda: kernel(queue, (N_ITEMS,), (64,), buf, np.float32(0.5)), queue.finish, launches, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    direct = via_sgvm_cl(args.launches, args.repeat)
    icd = via_pyopencl(args.launches, args.repeat)
    print(f"{N_ITEMS}-item kernel, {args.launches} launches, best of {args.repeat}")
    print(f"{'path':32s} {'per launch':>12s} {'ratio':>7s}")
    print(f"{'sgvm.cl (Python)':32s} {direct * 1e6:9.1f} us {1.0:7.2f}")
    print(f"{'PyOpenCL -> ICD -> sgvm.cl':32s} {icd * 1e6:9.1f} us {icd / direct:7.2f}")


if __name__ == "__main__":
    main()
