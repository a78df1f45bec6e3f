"""Cost of checking: checked vs unchecked run time of four kernels, as a table of ratios.

    .venv/bin/python benchmarks/check_bench.py [--repeat N] [--scale S]

Kernels: vector add (1M floats), a local-memory reduction (1M floats, groups of
256), 256³ and 512³ tiled matrix multiplies (16×16 local tiles, barriers) and a
sub-group kernel (1M items: shuffle_down + sub_group_reduce_add + block read).
``--scale`` multiplies the 1M sizes (not the matrices).
Both runs use the same -g build; the checked one attaches every plugin
(``sgvm.check.Checker``). The target is a ratio of at most 5.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sgvm.check import Checker
from sgvm.compiler import compile_with_log
from sgvm.runtime.args import BufferArg, LocalArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange

SRC = r"""
kernel void vadd(global const float* a, global const float* b, global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
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
kernel void subgroup(global const uint* in, global uint* out) {
  size_t i = get_global_id(0);
  uint x = intel_sub_group_block_read(in + (i - get_sub_group_local_id()));
  uint y = intel_sub_group_shuffle_down(x, x, 1u);
  out[i] = sub_group_reduce_add(y) + x;
}
"""


def _buf(a: np.ndarray) -> BufferArg:
    return BufferArg(Allocation(a.view(np.uint8).ravel(), "global", ""))


def cases(scale: int) -> list[tuple[str, str, list, NDRange]]:
    n = (1 << 20) * scale
    f = np.random.default_rng(0).random(n, dtype=np.float32)
    rows = []
    for m in (256, 512):
        A = np.random.default_rng(1).random(m * m, dtype=np.float32)
        rows.append((f"matmul {m}", "matmul", [_buf(A), _buf(A.copy()),
                                               _buf(np.zeros(m * m, np.float32)),
                                               ValueArg(np.int32(m).tobytes())],
                     NDRange((m, m, 1), (16, 16, 1), (0, 0, 0), 2)))
    return [
        ("vector add", "vadd", [_buf(f), _buf(f.copy()), _buf(np.zeros(n, np.float32))],
         NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)),
        ("reduction", "reduce", [_buf(f), _buf(np.zeros(n // 256, np.float32)), LocalArg(1024)],
         NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)),
        *rows,
        ("sub-group", "subgroup", [_buf(np.arange(n, dtype=np.uint32)),
                                   _buf(np.zeros(n, np.uint32))],
         NDRange((n, 1, 1), (256, 1, 1), (0, 0, 0), 1)),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=int, default=1, help="multiply the 1M-item sizes")
    opts = ap.parse_args()
    module = compile_with_log(SRC, "-cl-std=CL2.0 -g").module()
    print(f"{'kernel':<15} {'unchecked s':>12} {'checked s':>10} {'ratio':>6} {'findings':>9}")
    for name, kernel, args, nd in cases(opts.scale):
        suffix = f" ×{opts.scale}" if opts.scale > 1 and not name.startswith("matmul") else ""
        plain, checked, findings = measure(module, kernel, args, nd, opts.repeat)
        print(f"{name + suffix:<15} {plain:>12.3f} {checked:>10.3f} {checked / plain:>6.2f} "
              f"{findings:>9}")


def measure(module, kernel: str, args: list, nd: NDRange, repeat: int) -> tuple[float, float, int]:
    """Best unchecked and checked times of ``repeat`` launches each, and the findings."""
    launch(module, kernel, args, nd)  # warm-up: decode
    plain = min(_time(lambda: launch(module, kernel, args, nd)) for _ in range(repeat))
    checker = Checker(echo=False)
    checked = min(_time(lambda: launch(module, kernel, args, nd,
                                       observers=checker.observers(module, kernel)))
                  for _ in range(repeat))
    checker.finish()
    return plain, checked, len(checker.report)


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
