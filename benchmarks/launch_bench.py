"""Launch cost: microseconds and Python calls per launch of an already-built small kernel.

    python benchmarks/launch_bench.py [--device cpu|cuda] [--n 1024] [--repeat 2000] [--above-backend]
    PYTHONPATH=src:tests/cuda python benchmarks/launch_bench.py --device cuda --fake-gpu

Real hosts (PyOpenCL's test suite, ggml) launch thousands of small kernels, so what a
launch costs beyond the kernel's own work matters. Each row launches
``y[i] = a * x[i] + y[i]`` over ``--n`` work-items (work-groups of 64) the way a host
does, with the program built, the kernel made and the buffers in place beforehand:

* ``enqueue_nd_range_kernel``: arguments set once, then only enqueued (the cached launch);
* ``kernel(queue, g, l, *args)``: PyOpenCL's call form, which sets every argument again;
* ``runtime.launch``: the runtime below the host API (no queue, no argument conversion);
* on CUDA, ``engine/cuda launch_cuda``: the CUDA backend alone, below ``runtime.launch``
  (no validation, no variant or sub-group size lookup);
* on CUDA, ``CuPy RawKernel``: the same kernel hand-written, launched by CuPy (the floor).

``--above-backend`` replaces the device's backend by one that returns at once, so the first
three rows time only the layers above it (the host API, ``runtime.launch``); with
``--device cuda`` this needs no GPU (nothing runs, so nothing is checked). ``--fake-gpu``
runs the CUDA backend on ``tests/cuda/fake_cupy.py`` with every CUDA call doing nothing: the
rows then time the backend's own Python (packing, mirrors, the fault record's bookkeeping)
and everything above it, without the GPU's share (nothing is checked either).

The result is checked after the timed launches. Columns: wall-clock and CPU µs per launch
(best of 5 rounds of ``--repeat`` launches; the CPU time of this process is the steadier
measure on a shared machine, and equals the wall time on an idle one for the CPU device),
Python function calls per launch (``sys.setprofile``, one launch), all function calls
per launch as ``cProfile`` counts them (C functions too; 200 launches), and the ratio to
the first row. Run it before and after a change on the same
machine to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections.abc import Callable

import numpy as np

SOURCE = """
kernel void axpy(global const float *x, global float *y, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"""
CUPY_SOURCE = """
extern "C" __global__ void axpy(const float *x, float *y, float a) {
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}
"""


def python_calls(fn: Callable[[], object]) -> int:
    """Python-level function calls one run of ``fn`` makes (C functions not counted)."""
    count = 0

    def prof(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count - 1  # the profiler sees fn's own call


def profiled_calls(fn: Callable[[], object], launches: int = 200) -> float:
    """Function calls per run of ``fn`` as ``cProfile`` counts them (C functions included)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(launches):
        fn()
    prof.disable()
    return (pstats.Stats(prof).total_calls - launches) / launches  # (less fn's own call)


def per_launch_us(fn: Callable[[], object], repeat: int, sync: Callable[[], object]) -> tuple[float, float]:
    """Best of 5 rounds of ``repeat`` calls of ``fn`` then ``sync``: wall-clock and CPU
    (this process) µs per call. On a busy machine the CPU time is the steadier measure."""
    wall = cpu = float("inf")
    for _ in range(5):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(repeat):
            fn()
        sync()
        wall = min(wall, (time.perf_counter() - t0) / repeat)
        cpu = min(cpu, (time.process_time() - c0) / repeat)
    return wall * 1e6, cpu * 1e6


class _ReturnsAtOnce:
    """A backend that runs nothing (``--above-backend``)."""

    def __init__(self, name: str) -> None:
        from sgvm.engine.backend import LaunchResult

        self.name = name
        self.result = LaunchResult

    def launch(self, request: object) -> object:
        return self.result()

    def available(self) -> bool:
        return True


def rows(device: str, n: int, above_backend: bool = False, fake_gpu: bool = False,
         ) -> list[tuple[str, Callable[[], object], Callable[[], object], Callable[[], bool | None]]]:
    """(name, launch, sync, check) per row."""
    os.environ["SGVM_DEVICE"] = device
    if fake_gpu:  # (before sgvm.cl lists the devices)
        import fake_cupy
        import pytest

        fake = fake_cupy.install(pytest.MonkeyPatch())
        fake.kernels["sgvm_k0"] = lambda launch: None
        nothing = fake_cupy.nothing
        fake.cuda.driver.launchKernel = nothing
        for call in ("free", "memsetAsync", "memcpyAsync", "streamSynchronize"):
            setattr(fake.cuda.runtime, call, nothing)
    if above_backend:
        from sgvm.engine import backend as backends
        from sgvm.runtime.device import DEVICES

        engine = DEVICES[device].engine
        backends._LOADED[engine] = _ReturnsAtOnce(engine)  # noqa: SLF001
    import sgvm.cl as cl
    from sgvm.runtime.launch import launch
    from sgvm.runtime.ndrange import NDRange

    ctx = cl.create_some_context()
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SOURCE).build()
    # y grows by x at each launch (tens of thousands over the rows): x below 256 keeps every
    # sum exact in float32, so the check compares exactly
    x = (np.arange(n) % 256).astype(np.float32)
    mf = cl.mem_flags
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, mf.READ_WRITE, x.nbytes)
    knl = cl.Kernel(prg, "axpy")
    knl.set_args(xb, yb, np.float32(1))
    launches = [0]

    def counted(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            launches[0] += 1
            return fn()
        return run

    def check() -> bool | None:
        if above_backend or fake_gpu:
            return None
        y = np.empty_like(x)
        cl.enqueue_copy(queue, y, yb)
        return bool(np.array_equal(y, x * np.float32(launches[0])))

    args = list(knl._args)  # noqa: SLF001 - the runtime's form of the arguments set above
    nd = NDRange((n,), (64,))
    out = [
        ("enqueue_nd_range_kernel", counted(lambda: cl.enqueue_nd_range_kernel(queue, knl, (n,), (64,))),
         queue.finish, check),
        ("kernel(queue, g, l, *args)", counted(lambda: knl(queue, (n,), (64,), xb, yb, np.float32(1))),
         queue.finish, check),
        ("runtime.launch", counted(lambda: launch(prg.module, "axpy", args, nd, device=ctx.devices[0].model)),
         queue.finish, check),
    ]
    if device == "cuda" and not above_backend:
        from sgvm.compiler.subgroup_size import kernel_sub_group_size
        from sgvm.engine.backend import LaunchResult
        from sgvm.engine.cuda.runtime import launch_cuda

        size = kernel_sub_group_size(None, None, ctx.devices[0].model)
        out.append(("engine/cuda launch_cuda", counted(lambda: launch_cuda(
            prg.module, "axpy", args, nd, size, LaunchResult(), ["x", "y", "a"])), queue.finish, check))
        if fake_gpu:
            return out

        import cupy as cp

        raw = cp.RawKernel(CUPY_SOURCE, "axpy")
        dx, dy = cp.asarray(x), cp.zeros(n, np.float32)
        grid, block = (n // 64,), (64,)
        a = np.float32(1)
        out.append(("CuPy RawKernel (same kernel)", lambda: raw(grid, block, (dx, dy, a)),
                    cp.cuda.Device().synchronize, lambda: True))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--above-backend", action="store_true",
                    help="a backend that returns at once: time only the layers above it")
    ap.add_argument("--fake-gpu", action="store_true",
                    help="the CUDA backend on tests/cuda/fake_cupy.py, every CUDA call doing nothing")
    args = ap.parse_args()
    if args.fake_gpu and args.device != "cuda":
        ap.error("--fake-gpu runs the CUDA backend: use it with --device cuda")
    if args.device == "cuda":
        os.environ.setdefault("SGVM_CUDA_BOUNDS", "1")
    table = []
    for name, fn, sync, check in rows(args.device, args.n, args.above_backend, args.fake_gpu):
        fn()
        sync()  # compile and upload before timing
        calls, profiled = python_calls(fn), profiled_calls(fn)
        wall, cpu = per_launch_us(fn, args.repeat, sync)
        table.append((name, wall, cpu, calls, profiled, check()))
    print(f"launch cost, {args.n} work-items, device {args.device}"
          + (f", SGVM_CUDA_BOUNDS={os.environ['SGVM_CUDA_BOUNDS']}" if args.device == "cuda" else "")
          + (", above the backend only (it returns at once)" if args.above_backend else "")
          + (", fake GPU (CUDA calls do nothing)" if args.fake_gpu else ""))
    print(f"{'launch':32} {'µs/launch':>10} {'CPU µs':>8} {'Python calls':>13} {'cProfile calls':>15} "
          f"{'ratio':>7} correct")
    for name, wall, cpu, calls, profiled, ok in table:
        print(f"{name:32} {wall:10.1f} {cpu:8.1f} {calls:13d} {profiled:15.0f} {wall / table[0][1]:7.2f} "
              f"{'n/a' if ok is None else ok}")


if __name__ == "__main__":
    main()
