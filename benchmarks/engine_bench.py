"""CPU engine benchmarks: prints a table of wall-clock times.

    .venv/bin/python benchmarks/engine_bench.py [--repeat N]

Cases (Oclgrind baselines on a 2-core machine from DESIGN.md: vector add
4.1 s, 100-iteration loop 108 s; the target is ≥ 30× faster):
vector add of 4,194,304 floats; a 100-iteration per-item arithmetic loop over
4,194,304 items; a local-memory reduction of 16M floats; a 512×512×512 tiled
matrix multiply.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sgvm
from sgvm.runtime.args import BufferArg, LocalArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import read

SRC = r"""
kernel void vadd(global const float* a, global const float* b, global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
kernel void loop100(global float* x) {
  size_t i = get_global_id(0);
  float v = x[i];
  for (int k = 0; k < 100; k++) v = v * 0.999f + 0.5f;
  x[i] = v;
}
kernel void reduce(global const float* in, global float* out, local float* tmp) {
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
#define T 16
kernel void matmul(global const float* A, global const float* B, global float* C, int N) {
  local float As[T][T], Bs[T][T];
  int r = get_global_id(1), c = get_global_id(0);
  int lr = get_local_id(1), lc = get_local_id(0);
  float acc = 0.0f;
  for (int t = 0; t < N / T; t++) {
    As[lr][lc] = A[r * N + t * T + lc];
    Bs[lr][lc] = B[(t * T + lr) * N + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < T; k++) acc += As[lr][k] * Bs[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[r * N + c] = acc;
}
"""


def _buf(a: np.ndarray) -> BufferArg:
    return BufferArg(Allocation(np.ascontiguousarray(a).view(np.uint8).reshape(-1).copy(), "global"))


def _cases(module):
    n = 4_194_304
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    big = rng.random(16 * 1024 * 1024, dtype=np.float32)
    N = 512
    A, B = rng.random((N, N), dtype=np.float32), rng.random((N, N), dtype=np.float32)
    i32 = lambda v: ValueArg(np.int32(v).tobytes())  # noqa: E731
    vadd = [_buf(a), _buf(b), _buf(np.zeros(n, np.float32))]
    yield ("vector add, 4,194,304 floats", 4.1,
           lambda: launch(module, "vadd", vadd, NDRange((n,), (256,))))
    loop = [_buf(a)]
    yield ("100-iteration loop, 4,194,304 items", 108.0,
           lambda: launch(module, "loop100", loop, NDRange((n,), (256,))))
    red = [_buf(big), _buf(np.zeros(big.size // 256, np.float32)), LocalArg(256 * 4)]
    yield ("local reduction, 16M floats", None,
           lambda: launch(module, "reduce", red, NDRange((big.size,), (256,))))
    mm = [_buf(A), _buf(B), _buf(np.zeros((N, N), np.float32)), i32(N)]
    yield ("tiled matmul 512x512x512", None,
           lambda: launch(module, "matmul", mm, NDRange((N, N), (16, 16))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--options", default="-cl-std=CL2.0")
    args = ap.parse_args()
    module = read(sgvm.compile(SRC, args.options))
    print(f"{'case':40} {'best s':>9} {'Oclgrind s':>11} {'speed-up':>9}")
    for name, baseline, fn in _cases(module):
        best = min(_timed(fn) for _ in range(args.repeat))
        ratio = f"{baseline / best:8.0f}x" if baseline else f"{'-':>9}"
        base = f"{baseline:11.1f}" if baseline else f"{'-':>11}"
        print(f"{name:40} {best:9.3f} {base} {ratio}", flush=True)


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
