"""sgvm CUDA vs a hand-written CuPy RawKernel vs sgvm CPU, side by side (docs/cuda.md).

Rows: vector add (64M floats), sub-group reduction (256M floats), a 4096³ fp32 GEMM
with sub-group shuffles (against cuBLAS through ``cupy.matmul``, TF32 off), an 8192²
uint image transpose with sub-group image block reads and writes (against a
shared-memory tiled CuPy transpose of the same bytes). The CPU
column runs a smaller size (printed) or n/a. GPU times: CUDA events over repeated
launches, best of ``--repeat``. Run on a machine with CuPy and a GPU::

    PYTHONPATH=src python3 benchmarks/cuda_bench.py [--spv-dir .gpu_cache/bench]

The sgvm CUDA column runs without bounds checks; ``SGVM_CUDA_BOUNDS=1`` measures them.

SPIR-V is compiled with clang where it exists and cached in ``--spv-dir`` (the GPU
machine has no clang: build here first with ``--compile-only``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("CUPY_TF32", "0")  # plain FP32 cuBLAS
# Bounds checks cost 28-67% on these rows (docs/cuda.md, "Memory errors"): off unless asked.
os.environ.setdefault("SGVM_CUDA_BOUNDS", "0")

VADD = """
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""
REDUCE = """
__attribute__((intel_reqd_sub_group_size(16)))
kernel void sgreduce(global const float *x, global float *out) {
  float s = sub_group_reduce_add(x[get_global_id(0)]);
  if (get_sub_group_local_id() == 0) out[get_global_id(0) / 16] = s;
}
"""
# Each sub-group (32 lanes) computes 16 rows x 256 columns of C: lane l owns columns
# 4l..4l+3 and 128+4l..+3; A is read one k-tile (32 values per row, one per lane) at a
# time and broadcast with intel_sub_group_shuffle; the k-tile of B (32 x 256) sits in
# local memory. A work-group of 8 sub-groups covers 128 x 256 of C.
GEMM = """
#define TM 16
#define KT 32
__attribute__((intel_reqd_sub_group_size(32))) __attribute__((reqd_work_group_size(256, 1, 1)))
kernel void gemm(global const float *A, global const float *B, global float *C, int N) {
  local float4 Bs[KT][64];
  int lane = get_sub_group_local_id(), lid = get_local_id(0);
  int row0 = get_group_id(1) * 128 + get_sub_group_id() * TM;
  int col0 = get_group_id(0) * 256;
  float4 acc0[TM], acc1[TM];
  for (int r = 0; r < TM; r++) { acc0[r] = 0.0f; acc1[r] = 0.0f; }
  for (int k0 = 0; k0 < N; k0 += KT) {
    for (int i = 0; i < 8; i++) {
      int idx = lid + i * 256;
      Bs[idx / 64][idx % 64] = vload4(0, B + (size_t)(k0 + idx / 64) * N + col0 + (idx % 64) * 4);
    }
    float a[TM];
    for (int r = 0; r < TM; r++) a[r] = A[(size_t)(row0 + r) * N + k0 + lane];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int kk = 0; kk < KT; kk++) {
      float4 b0 = Bs[kk][lane], b1 = Bs[kk][32 + lane];
#pragma unroll
      for (int r = 0; r < TM; r++) {
        float ar = intel_sub_group_shuffle(a[r], kk);
        acc0[r] = fma((float4)ar, b0, acc0[r]);
        acc1[r] = fma((float4)ar, b1, acc1[r]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int r = 0; r < TM; r++) {
    vstore4(acc0[r], 0, C + (size_t)(row0 + r) * N + col0 + lane * 4);
    vstore4(acc1[r], 0, C + (size_t)(row0 + r) * N + col0 + 128 + lane * 4);
  }
}
"""
# Each sub-group (16 lanes) moves one 16x16 tile: two block reads of 8 rows (lane l holds
# column l), the tile through local memory, two block writes of 8 rows of the transpose.
TRANSPOSE = """
__attribute__((intel_reqd_sub_group_size(16))) __attribute__((reqd_work_group_size(16, 16, 1)))
kernel void transpose(read_only image2d_t src, write_only image2d_t dst) {
  local uint tile[16][16][17];
  int sg = get_sub_group_id(), l = get_sub_group_local_id();
  int x0 = get_group_id(0) * 16, y0 = (get_group_id(1) * 16 + sg) * 16;
  uint8 a = intel_sub_group_block_read8(src, (int2)(x0 * 4, y0));
  uint8 b = intel_sub_group_block_read8(src, (int2)(x0 * 4, y0 + 8));
  tile[sg][0][l] = a.s0; tile[sg][1][l] = a.s1; tile[sg][2][l] = a.s2; tile[sg][3][l] = a.s3;
  tile[sg][4][l] = a.s4; tile[sg][5][l] = a.s5; tile[sg][6][l] = a.s6; tile[sg][7][l] = a.s7;
  tile[sg][8][l] = b.s0; tile[sg][9][l] = b.s1; tile[sg][10][l] = b.s2; tile[sg][11][l] = b.s3;
  tile[sg][12][l] = b.s4; tile[sg][13][l] = b.s5; tile[sg][14][l] = b.s6; tile[sg][15][l] = b.s7;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint8 c, d;
  c.s0 = tile[sg][l][0]; c.s1 = tile[sg][l][1]; c.s2 = tile[sg][l][2]; c.s3 = tile[sg][l][3];
  c.s4 = tile[sg][l][4]; c.s5 = tile[sg][l][5]; c.s6 = tile[sg][l][6]; c.s7 = tile[sg][l][7];
  d.s0 = tile[sg][l][8]; d.s1 = tile[sg][l][9]; d.s2 = tile[sg][l][10]; d.s3 = tile[sg][l][11];
  d.s4 = tile[sg][l][12]; d.s5 = tile[sg][l][13]; d.s6 = tile[sg][l][14]; d.s7 = tile[sg][l][15];
  intel_sub_group_block_write8(dst, (int2)(y0 * 4, x0), c);
  intel_sub_group_block_write8(dst, (int2)(y0 * 4, x0 + 8), d);
}
"""
CUPY_TRANSPOSE = r"""extern "C" __global__ void transpose(const unsigned *in, unsigned *out, int n) {
  __shared__ unsigned t[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(size_t)(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}"""
CUPY_VADD = r"""extern "C" __global__ void vadd(const float *a, const float *b, float *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}"""
CUPY_REDUCE = r"""extern "C" __global__ void sgreduce(const float *x, float *out) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o, 16);
  if ((threadIdx.x & 15) == 0) out[i / 16] = v;
}"""
OPTIONS = "-cl-std=CL2.0"


def module(source: str, spv_dir: Path):
    """The SPIR-V module of ``source``, compiled once and kept in ``spv_dir``."""
    from sgvm.spirv import read

    path = spv_dir / (hashlib.sha256(source.encode()).hexdigest()[:24] + ".spv")
    if not path.exists():
        import sgvm

        spv_dir.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sgvm.compile(source, OPTIONS))
    return read(path.read_bytes())


def gpu_time(fn, repeat: int, inner: int) -> float:
    """Best over ``repeat`` of the mean seconds per call over ``inner`` calls (CUDA events)."""
    import cupy as cp

    fn()
    cp.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) / 1e3 / inner)
    return best


def cpu_time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def sgvm_launcher(mod, name: str, arrays: list, values: list, gsize, lsize, device):
    """A function launching ``name`` with Allocation-backed ``arrays`` (kept device-resident)."""
    from sgvm.runtime.args import BufferArg, ValueArg
    from sgvm.runtime.launch import launch
    from sgvm.runtime.memory import Allocation
    from sgvm.runtime.ndrange import NDRange

    allocs = [Allocation(a.view(np.uint8).reshape(-1), "global", f"arg{i}")
              for i, a in enumerate(arrays)]
    args = [BufferArg(a) for a in allocs] + [ValueArg(np.asarray(v).tobytes()) for v in values]
    nd = NDRange(gsize, lsize)
    return (lambda: launch(mod, name, args, nd, device=device)), allocs


def transpose_row(mod, rng, repeat: int, n: int) -> tuple:
    """n² uint image transpose: sgvm (image block IO) vs CuPy, GB/s of bytes moved.

    At 8192² one launch moves 512 MiB in about 0.16 ms, so sgvm's host-side launch cost
    (Python) shows in the figure; 16384² moves four times as much per launch."""
    import cupy as cp

    from sgvm.runtime import residency
    from sgvm.runtime.args import ImageArg
    from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE
    from sgvm.runtime.images import Image, ImageFormat, channel_order, channel_type
    from sgvm.runtime.images.enums import mem_object_type
    from sgvm.runtime.launch import launch
    from sgvm.runtime.ndrange import NDRange

    fmt = ImageFormat(channel_order.R, channel_type.UNSIGNED_INT32)

    def images(n: int, data: np.ndarray) -> tuple[Image, Image]:
        src, dst = (Image(fmt, mem_object_type.IMAGE2D, (n, n)) for _ in range(2))
        src.write_host((0, 0), (n, n), data)
        return src, dst

    def runner(n: int, data: np.ndarray, device):
        src, dst = images(n, data)
        nd = NDRange((n, n // 16), (16, 16))
        return (lambda: launch(mod, "transpose", [ImageArg(src), ImageArg(dst)], nd,
                               device=device)), dst

    data = rng.integers(0, 2**32, (n, n), dtype=np.uint32)
    run, dst = runner(n, data, CUDA_DEVICE)
    t_sg = gpu_time(run, repeat, 10)
    residency.host_access(dst.data)
    ok = np.array_equal(dst.data.data.view(np.uint32).reshape(n, n), data.T)
    din, dout = cp.asarray(data), cp.zeros((n, n), cp.uint32)
    k = cp.RawKernel(CUPY_TRANSPOSE, "transpose")
    t_ref = gpu_time(lambda: k((n // 32, n // 32), (32, 8), (din, dout, np.int32(n))), repeat, 10)
    ok = ok and bool((dout == din.T).all())
    nc = 1024
    run_cpu, _ = runner(nc, data[:nc, :nc].copy(), CPU_DEVICE)
    t_cpu = cpu_time(run_cpu)
    gbs = lambda t, m: 8 * m * m / t / 1e9  # noqa: E731
    return (f"image block transpose {n}^2 (GB/s)", gbs(t_sg, n), gbs(t_ref, n),
            f"{gbs(t_cpu, nc):.2f} (1024^2)", ok)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spv-dir", type=Path, default=Path(".gpu_cache/bench"))
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gemm-n", type=int, default=4096)
    opts = ap.parse_args()
    mods = {k: module(s, opts.spv_dir) for k, s in (("vadd", VADD), ("reduce", REDUCE),
                                                     ("gemm", GEMM), ("transpose", TRANSPOSE))}
    if opts.compile_only:
        return
    import cupy as cp

    from sgvm.runtime import residency
    from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE

    rows = []
    rng = np.random.default_rng(0)

    # vector add
    n = 64 << 20
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    c = np.zeros(n, np.float32)
    run, allocs = sgvm_launcher(mods["vadd"], "vadd", [a, b, c], [], (n,), (256,), CUDA_DEVICE)
    t_sg = gpu_time(run, opts.repeat, 10)
    residency.host_access(allocs[2])
    ok = np.array_equal(allocs[2].data.view(np.float32), a + b)
    da, db, dc = cp.asarray(a), cp.asarray(b), cp.zeros(n, cp.float32)
    k = cp.RawKernel(CUPY_VADD, "vadd")
    t_ref = gpu_time(lambda: k((n // 256,), (256,), (da, db, dc, np.int64(n))), opts.repeat, 10)
    nc = 4 << 20
    run_cpu, _ = sgvm_launcher(mods["vadd"], "vadd", [a[:nc], b[:nc], np.zeros(nc, np.float32)],
                               [], (nc,), (256,), CPU_DEVICE)
    t_cpu = cpu_time(run_cpu)
    gbs = lambda t, m: 12 * m / t / 1e9  # noqa: E731
    rows.append(("vector add 64M (GB/s)", gbs(t_sg, n), gbs(t_ref, n), f"{gbs(t_cpu, nc):.2f} (4M)",
                 ok))

    # sub-group reduction
    n = 256 << 20
    x = rng.random(n, np.float32)
    out = np.zeros(n // 16, np.float32)
    run, allocs = sgvm_launcher(mods["reduce"], "sgreduce", [x, out], [], (n,), (256,), CUDA_DEVICE)
    t_sg = gpu_time(run, opts.repeat, 5)
    residency.host_access(allocs[1])
    ref = x.reshape(-1, 16).sum(axis=1, dtype=np.float64)
    ok = np.allclose(allocs[1].data.view(np.float32), ref, rtol=1e-5)
    dx, dout = cp.asarray(x), cp.zeros(n // 16, cp.float32)
    k = cp.RawKernel(CUPY_REDUCE, "sgreduce")
    t_ref = gpu_time(lambda: k((n // 256,), (256,), (dx, dout)), opts.repeat, 5)
    nc = 16 << 20
    run_cpu, _ = sgvm_launcher(mods["reduce"], "sgreduce", [x[:nc], np.zeros(nc // 16, np.float32)],
                               [], (nc,), (256,), CPU_DEVICE)
    t_cpu = cpu_time(run_cpu)
    g = lambda t, m: 4 * m * 17 / 16 / t / 1e9  # noqa: E731
    rows.append(("sub-group reduce 256M (GB/s)", g(t_sg, n), g(t_ref, n), f"{g(t_cpu, nc):.2f} (16M)",
                 ok))

    # GEMM
    N = opts.gemm_n
    A = rng.standard_normal((N, N), np.float32)
    B = rng.standard_normal((N, N), np.float32)
    C = np.zeros((N, N), np.float32)
    run, allocs = sgvm_launcher(mods["gemm"], "gemm", [A, B, C], [np.int32(N)], (N, N // 128),
                                (256, 1), CUDA_DEVICE)
    t_sg = gpu_time(run, opts.repeat, 3)
    residency.host_access(allocs[2])
    dA, dB = cp.asarray(A), cp.asarray(B)
    ref = cp.matmul(dA, dB)
    got = allocs[2].data.view(np.float32).reshape(N, N)
    ok = bool(np.allclose(got, cp.asnumpy(ref), rtol=1e-3, atol=1e-2))
    t_ref = gpu_time(lambda: cp.matmul(dA, dB), opts.repeat, 3)
    tf = lambda t: 2 * N**3 / t / 1e12  # noqa: E731
    rows.append((f"GEMM {N}^3 fp32 (TFLOP/s; ref cuBLAS)", tf(t_sg), tf(t_ref), "n/a", ok))

    for n in (8192, 16384):
        rows.append(transpose_row(mods["transpose"], rng, opts.repeat, n))

    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"| {'benchmark':<38} | {'sgvm CUDA':>10} | {'hand CuPy':>10} | {'ratio':>6} | "
          f"{'sgvm CPU':>14} | correct |")
    print("|" + "-" * 40 + "|" + "-" * 12 + "|" + "-" * 12 + "|" + "-" * 8 + "|" + "-" * 16
          + "|---------|")
    for name, s, r, cpu, good in rows:
        print(f"| {name:<38} | {s:>10.2f} | {r:>10.2f} | {s / r:>5.0%} | {cpu:>14} | {good!s:>7} |")


if __name__ == "__main__":
    main()
